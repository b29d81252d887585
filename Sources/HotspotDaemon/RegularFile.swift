// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Reading a file the root daemon trusts (configuration, state) without following a link an
/// attacker planted (issue 14 item 4): opened with `O_NOFOLLOW`, it must be a regular file of
/// bounded size. FIFOs and devices are refused before a read could block on them.
enum RegularFile {
    /// The file's bytes, or nil when it does not exist. Errors name the path and the fix.
    static func read(_ path: String, maximumSize: Int) throws(RegularFileError) -> [UInt8]? {
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
        return bytes
    }
}

/// Why a configuration or state file was refused.
struct RegularFileError: Error, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}
