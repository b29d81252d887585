// SPDX-License-Identifier: Apache-2.0
import CDBus
import Glibc
import Synchronization

/// A timeline of the messages a process's connections send and read, for measuring where a
/// message's time goes between processes (`daemon-benchmark --hops`): dbus-monitor sees when the
/// bus routed a message, not when a peer sent it or got to read it.
///
/// Off unless `HOTSPOT_WIRE_TRACE` names a file prefix when the process first sends or reads a
/// message; each process then appends to `<prefix>.<pid>`, one line per message: monotonic
/// nanoseconds, pid, the connection's unique name, `in` or `out`, the message type (libdbus's
/// number: 1 call, 2 return, 3 error, 4 signal), member (`-` for none) and path (`-`). Names and
/// paths only, never a body, so never a secret. An `out` is stamped as the message is handed to
/// libdbus, which writes it at once; an `in` as the connection begins to handle it. Lines are
/// kept in memory and written every 4096 and at exit; a process killed loses its last ones.
public enum WireTrace {
    private static let prefix: String? = getenv("HOTSPOT_WIRE_TRACE").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    private static let lines = Mutex<[String]>([])
    private static let enabled: Bool = {
        guard prefix != nil else { return false }
        atexit { WireTrace.flush() }
        return true
    }()

    static func note(_ direction: StaticString, _ message: OpaquePointer, on connection: String) {
        guard enabled else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let member = dbus_message_get_member(message).map { String(cString: $0) } ?? "-"
        let path = dbus_message_get_path(message).map { String(cString: $0) } ?? "-"
        let line = "\(Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)) \(getpid()) \(connection) \(direction) \(dbus_message_get_type(message)) \(member) \(path)"
        if lines.withLock({ $0.append(line); return $0.count >= 4096 }) { flush() }
    }

    /// Writes the lines kept so far (a program that ends without `exit`, or wants its lines
    /// before it reads the files, calls this).
    public static func flush() {
        guard let prefix else { return }
        let out = lines.withLock { kept -> [String] in
            defer { kept = [] }
            return kept
        }
        guard !out.isEmpty, let file = fopen("\(prefix).\(getpid())", "a") else { return }
        for line in out { fputs(line + "\n", file) }
        fclose(file)
    }
}
