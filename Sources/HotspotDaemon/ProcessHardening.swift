// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// What the daemon takes away from itself at start, beside what the systemd
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
        boundLargeAllocations()
        guard prctl(setDumpable, 0, 0, 0, 0) == 0 else {
            return "prctl(PR_SET_DUMPABLE, 0) failed: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Every allocation of 1 MiB or more gets its own mapping, returned to the system when freed.
    /// glibc otherwise raises its mmap threshold after the first large free (up to 32 MiB) and
    /// serves the next ones from the heap, which it rarely gives back: a peer unicasting 30 MB
    /// signals then grew the daemon by 120 MiB (`hotspot-stress flood`), 60 MiB with this.
    static func boundLargeAllocations() {
        // <malloc.h> is not in Glibc's module: mallopt(3) by its symbol; M_MMAP_THRESHOLD is -3.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 1 << 20)
    }

    /// Whether the process may be dumped (PR_GET_DUMPABLE), for the test that checks apply().
    static var isDumpable: Bool {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(nil, "prctl") else { return true }
        return unsafeBitCast(symbol, to: Prctl.self)(getDumpable, 0, 0, 0, 0) != 0
    }
}
