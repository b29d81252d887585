// SPDX-License-Identifier: Apache-2.0
import CDBus
import Foundation

/// ``Changes`` for a directory (inotify): bumped when a file in it is written and closed, made,
/// moved in or out, or removed. For waits on what a program writes to disk (its saved state, a
/// file a stand-in program appends to) without polling the file.
public final class DirectoryWatch: Sendable {
    public let changes = Changes()
    /// The write end of a pipe whose read end the reading thread polls: closing it (deinit)
    /// ends the thread, which closes the rest.
    private let stopFD: Int32

    /// Starts watching `path` (a directory that exists).
    public init(_ path: String) throws {
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw TestKitError.startFailed("inotify_init1: \(String(cString: strerror(errno)))") }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_DELETE)
        guard inotify_add_watch(inotify, path, mask) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(inotify)
            throw TestKitError.startFailed("cannot watch \(path): \(reason)")
        }
        var stop: [Int32] = [-1, -1]
        guard hotspot_pipe_cloexec(&stop) == 0 else {
            close(inotify)
            throw TestKitError.startFailed("pipe: \(String(cString: strerror(errno)))")
        }
        stopFD = stop[1]
        let (changes, stopped) = (self.changes, stop[0])
        Thread.detachNewThread {
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stopped, events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let rc = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, -1) }
                if rc < 0 { if errno == EINTR { continue }; break }
                if fds[1].revents != 0 { break }  // the write end closed
                if fds[0].revents != 0 {
                    guard read(inotify, &buffer, buffer.count) > 0 else { break }
                    changes.bump()
                }
            }
            close(inotify)
            close(stopped)
        }
    }

    deinit { close(stopFD) }
}
