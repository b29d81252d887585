// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import SystemSupport
import Glibc
#endif
import HotspotCore

/// The network cache and the autoconnect ledger on disk: one file under the state directory,
/// replaced atomically (write a temporary file, fsync, rename, fsync the directory), so a crash
/// leaves either the old or the new file, never half of one.
///
/// Hostile files: the directory and the file are opened with `O_NOFOLLOW` and
/// must be a directory and a regular file; the temporary is created with `O_EXCL` inside the
/// directory already opened (`openat`), so no symbolic link planted in the state directory can
/// make the root daemon read or write elsewhere.
public struct StateFile: HotspotStateStore {
    public let directory: String
    public var path: String { directory + "/state" }
    /// A state file larger than this is not read (ours is a few bytes per network).
    public static let maximumSize = 4 << 20

    public init(directory: String) { self.directory = directory }

    public func load() throws -> [UInt8]? {
        do { return try RegularFile.read(path, maximumSize: Self.maximumSize) } catch {
            throw StateFileError(error.message)
        }
    }

    /// Removes temporary files (`.state.PID.tmp`, ``AtomicFile/temporaryName(for:)``) that a save interrupted by a crash or SIGKILL
    /// left behind; the state file itself is whole either way. Returns the paths removed.
    public func removeStaleTemporaries() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".state.") && name.hasSuffix(".tmp") { names.append(name) }
        }
        return names.sorted().filter { unlinkat(dirfd(dir), $0, 0) == 0 }.map { directory + "/" + $0 }
    }

    public func save(_ bytes: [UInt8]) throws {
        do {
            try AtomicFile.makeDirectories(directory)
            try AtomicFile.replace("state", in: directory, with: bytes)
        } catch {
            switch error.step {
            case .makeDirectory: throw StateFileError("cannot create the state directory \(error.path): \(error.reason)")
            case .openDirectory:
                throw StateFileError("cannot open the state directory \(error.path) (it must be a directory, not a symbolic link): \(error.reason)")
            case .write: throw StateFileError("cannot write \(error.path): \(error.reason)")
            case .replace: throw StateFileError("cannot replace \(error.path): \(error.reason)")
            }
        }
    }

    /// Loads the state at start-up and decides whether it may be saved: a store this version
    /// cannot read (a newer format, a symbolic link, not a regular file) is left untouched, and
    /// the daemon runs without persisting rather than overwrite it.
    public func restore() -> StateRestore {
        var notes: [String] = []
        for stale in removeStaleTemporaries() {
            notes.append("state directory: removed \(stale), left over from a save that never finished (the daemon was killed)")
        }
        do {
            let load = try loadState()
            for damage in load.damaged {
                notes.append("state file \(path): damaged entry skipped, the rest loaded: \(damage)")
            }
            return StateRestore(state: load.state, persisting: true, notes: notes)
        } catch {
            notes.append("state file \(path) is left untouched and the network cache is not saved until the daemon restarts: \(error)")
            return StateRestore(state: PersistentState(), persisting: false, notes: notes)
        }
    }
}

/// What ``StateFile/restore()`` found: the state, whether saving is allowed, and what to log.
public struct StateRestore: Sendable {
    public var state: PersistentState
    /// False when the file on disk must not be overwritten.
    public var persisting: Bool
    /// Problems for the log (no file content in them).
    public var notes: [String]
}

public struct StateFileError: Error, CustomStringConvertible {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
