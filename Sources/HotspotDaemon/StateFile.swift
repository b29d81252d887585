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

    /// Removes temporary files (`.state.PID.tmp`) that a save interrupted by a crash or SIGKILL
    /// left behind; the state file itself is whole either way. Returns the paths removed.
    public func removeStaleTemporaries() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.sorted().filter { $0.hasPrefix(".state.") && $0.hasSuffix(".tmp") }.map { directory + "/" + $0 }
            .filter { unlink($0) == 0 }
    }

    public func save(_ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory + "/.state.\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StateFileError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var failure: Int32 = bytes.withUnsafeBytes { buf -> Int32 in
            var offset = 0
            while offset < buf.count {
                let n = write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 { if errno == EINTR { continue }; return errno }
                offset += n
            }
            return 0
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        guard failure == 0 else {
            unlink(temporary)
            throw StateFileError("cannot write \(temporary): \(String(cString: strerror(failure)))")
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
