// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Writing a file the root daemon owns (its state, the sign-ins users asked to remember) so that
/// a crash leaves the old file or the new one, never half of one: a temporary file beside it,
/// written, fsynced, renamed over the file, and the directory fsynced.
///
/// Hostile directories: the directory is opened with `O_NOFOLLOW` and must be one; the temporary
/// (`.NAME.PID.tmp`, mode 0600) is created with `O_EXCL` inside the directory already opened
/// (`openat`), so no symbolic link planted there can make the daemon write elsewhere.
public enum AtomicFile {
    /// Creates `directory` and its missing parents (mode 0700); the path and errno of the first
    /// that could not be made.
    public static func makeDirectories(_ directory: String) throws(AtomicFileError) {
        var prefix = ""
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw AtomicFileError(step: .makeDirectory, path: prefix, errno: errno) }
        }
    }

    /// The temporary file a write of `name` uses (a crash may leave it behind; its owner removes it).
    public static func temporaryName(for name: String) -> String { "." + name + ".\(getpid()).tmp" }

    /// Replaces `directory/name` with `bytes` (mode 0600).
    public static func replace(_ name: String, in directory: String, with bytes: [UInt8]) throws(AtomicFileError) {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dfd >= 0 else { throw AtomicFileError(step: .openDirectory, path: directory, errno: errno) }
        defer { close(dfd) }
        let temporary = temporaryName(for: name)
        // Ours from an earlier write that failed half-way (same pid).
        unlinkat(dfd, temporary, 0)
        let fd = openat(dfd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFileError(step: .write, path: directory + "/" + temporary, errno: errno) }
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
            unlinkat(dfd, temporary, 0)
            throw AtomicFileError(step: .write, path: directory + "/" + temporary, errno: failure)
        }
        guard renameat(dfd, temporary, dfd, name) == 0 else {
            let e = errno
            unlinkat(dfd, temporary, 0)
            throw AtomicFileError(step: .replace, path: directory + "/" + name, errno: e)
        }
        fsync(dfd)
    }
}

/// What an ``AtomicFile`` write could not do, on which path, and why (errno).
public struct AtomicFileError: Error, Sendable {
    public enum Step: Sendable { case makeDirectory, openDirectory, write, replace }
    public let step: Step
    public let path: String
    public let errno: Int32
    /// The system's words for `errno`.
    public var reason: String { String(cString: strerror(errno)) }
}
