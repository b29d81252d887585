// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// What the daemon takes away from itself at start (issue 14 item 6), beside what the systemd
/// unit takes away: no core dumps and no ptrace by other processes of the same uid, so the
/// passwords it holds in memory cannot be read out of a crash dump or `/proc/PID/mem`.
enum ProcessHardening {
    /// From <linux/prctl.h>, which Glibc's module does not export.
    static let setDumpable: Int32 = 4, getDumpable: Int32 = 3
    /// Turns off PR_SET_DUMPABLE. Returns a problem to log, or nil.
    static func apply() -> String? {
        // prctl(2) is variadic in glibc's header, which Swift cannot call; glibc's symbol is a
        // plain system-call wrapper taking five integer-sized arguments, so it is called as one.
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(nil, "prctl") else {  // nil is RTLD_DEFAULT in glibc
            return "cannot find prctl(2); core dumps stay as the system configures them"
        }
        let prctl = unsafeBitCast(symbol, to: Prctl.self)
        guard prctl(setDumpable, 0, 0, 0, 0) == 0 else {
            return "prctl(PR_SET_DUMPABLE, 0) failed: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Whether the process may be dumped (PR_GET_DUMPABLE), for the test that checks apply().
    static var isDumpable: Bool {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(nil, "prctl") else { return true }
        return unsafeBitCast(symbol, to: Prctl.self)(getDumpable, 0, 0, 0, 0) != 0
    }
}
