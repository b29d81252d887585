import Foundation
import HotspotCore

/// The network cache and the autoconnect ledger on disk: one file under the state directory,
/// replaced atomically (write a temporary file, fsync, rename, fsync the directory), so a crash
/// leaves either the old or the new file, never half of one.
public struct StateFile: HotspotStateStore {
    public let directory: String
    public var path: String { directory + "/state" }

    public init(directory: String) { self.directory = directory }

    public func load() throws -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StateFileError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return [UInt8](data)
    }

    public func save(_ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory + "/.state.\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StateFileError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var ok = bytes.withUnsafeBytes { buf -> Bool in
            var offset = 0
            while offset < buf.count {
                let n = write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        let writeErrno = errno
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok else {
            unlink(temporary)
            throw StateFileError("cannot write \(temporary): \(String(cString: strerror(writeErrno == 0 ? errno : writeErrno)))")
        }
        guard rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            throw StateFileError("cannot replace \(path): \(String(cString: strerror(e)))")
        }
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}

public struct StateFileError: Error, CustomStringConvertible {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
