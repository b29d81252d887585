// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Reading a file the root daemon trusts (configuration, state, profiles) without following a
/// link an attacker planted: opened with `O_NOFOLLOW`, it must be a regular file
/// of bounded size. FIFOs and devices are refused before a read could block on them.
public enum RegularFile {
    /// What was read, with the owner and mode of the file that was opened (not of whatever the path
    /// names by the time someone looks again).
    public struct Contents: Sendable {
        /// The bytes.
        public var bytes: [UInt8]
        /// The permission bits (`st_mode & 0o7777`).
        public var mode: UInt32
        /// The owner's uid.
        public var owner: UInt32
    }

    /// The file's bytes, or nil when it does not exist. Errors name the path and the fix.
    public static func read(_ path: String, maximumSize: Int) throws(RegularFileError) -> [UInt8]? {
        try contents(path, maximumSize: maximumSize)?.bytes
    }

    /// The file's bytes, owner and mode, or nil when it does not exist.
    public static func contents(_ path: String, maximumSize: Int) throws(RegularFileError) -> Contents? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { return nil }
            if e == ELOOP { throw RegularFileError("\(path) is a symbolic link, which is not followed; replace it with a regular file") }
            throw RegularFileError("cannot read \(path): \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw RegularFileError("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw RegularFileError("\(path) is not a regular file; move it aside and put a regular file there")
        }
        guard Int(info.st_size) <= maximumSize else {
            throw RegularFileError("\(path) is \(info.st_size) bytes, more than the \(maximumSize) allowed; move it aside")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= maximumSize {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RegularFileError("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        guard bytes.count <= maximumSize else { throw RegularFileError("\(path) grew past \(maximumSize) bytes while being read") }
        return Contents(bytes: bytes, mode: UInt32(info.st_mode & 0o7777), owner: UInt32(info.st_uid))
    }
}

/// Why a configuration, state or profile file was refused.
public struct RegularFileError: Error, Sendable {
    /// What is wrong and the fix, naming the path.
    public var message: String
    init(_ message: String) { self.message = message }
}
