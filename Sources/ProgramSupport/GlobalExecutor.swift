// SPDX-License-Identifier: Apache-2.0
// The custom executor is installed through Swift 6.3's executor factory, an SPI that may change
// in any release: it is built only with the CustomGlobalExecutor trait (the default) and only by
// the compilers it was written for. Anywhere else the programs keep the platform's executor, and
// `install()` says so (docs/ARCHITECTURE.md, "Where tasks run").
#if HOTSPOT_CUSTOM_GLOBAL_EXECUTOR && compiler(>=6.3) && compiler(<6.4)
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import CExecutor
#if canImport(Glibc)
import Glibc
#endif

/// The executor every task of the programs runs on unless an actor says otherwise.
///
/// Swift's default on Linux is libdispatch's pool, whose monitor wakes the process every second
/// for as long as it lives — the one wake-up an idle daemon had. This pool (Sources/CExecutor)
/// has a few workers that wait on a condition variable and one timer thread that waits for the
/// earliest `Task.sleep` deadline, so a process with nothing to do sleeps until something
/// arrives. It is installed with Swift 6.3's executor factory (`_createExecutors`, SPI
/// `ExperimentalCustomExecutors`, the shape SE-0464 describes); the main actor keeps the
/// platform's main executor. Jobs run in FIFO order; task priorities are not used (the daemon's
/// work is one kind).
public enum GlobalExecutor {
    /// Worker threads: the processors, at least 2 (a blocked job must not stall the rest) and at
    /// most 4 (the daemon's work is small and mostly waits on the bus). Blocking work (transfers,
    /// file syncs) still has threads of its own (`DetachedThread`), so the workers stay free.
    static var workerCount: Int {
        let processors = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return min(4, max(2, processors))
    }

    /// Makes this the global executor. Call first thing in main, before any task starts; only
    /// the first call has an effect. When its threads cannot be made, the platform's executor
    /// stays (and says so on stderr); so it does when the environment names
    /// ``platformExecutorVariable`` (to compare, or to rule the pool out when chasing a problem).
    public static func install() {
        _ = installed
    }

    /// Whether the programs' tasks run on this pool (false: the platform's executor).
    public static var isInstalled: Bool { installed }

    /// Set (to anything) in the environment, the programs keep libdispatch's pool.
    public static let platformExecutorVariable = "HOTSPOT_HELPER_PLATFORM_EXECUTOR"

    private static let installed: Bool = {
        guard getenv(platformExecutorVariable) == nil else { return false }
        let rc = hh_executor_start(Int32(workerCount)) { raw in
            unsafeBitCast(raw, to: UnownedJob.self).runSynchronously(on: PoolExecutor.shared.asUnownedTaskExecutor())
        }
        guard rc == 0 else {
            StandardError.writeLine("warning: no threads for the global executor (\(String(cString: strerror(rc)))); using the platform's")
            return false
        }
        _createExecutors(factory: Factory.self)
        return true
    }()

    struct Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { PoolExecutor.shared }
    }
}

/// The pool as Swift's executor protocols see it.
final class PoolExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    static let shared = PoolExecutor()
    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        hh_executor_enqueue(unsafeBitCast(UnownedJob(job), to: UnsafeMutableRawPointer.self))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        guard let d = delay as? Duration else {
            // A clock whose Duration is not Swift's: let the platform's executor time it.
            let unowned = UnownedJob(job)
            if let platform = PlatformExecutorFactory.defaultExecutor as? any SchedulingExecutor {
                platform.enqueue(ExecutorJob(unowned), after: delay, tolerance: tolerance, clock: clock)
            } else {
                hh_executor_enqueue(unsafeBitCast(unowned, to: UnsafeMutableRawPointer.self))
            }
            return
        }
        let (seconds, attoseconds) = d.components
        // Past a century is "never" (and keeps the sum below Int64.max).
        let nanoseconds = seconds >= 3_153_600_000 ? 3_153_600_000 * 1_000_000_000 : max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        hh_executor_enqueue_at(hh_executor_now() + nanoseconds, unsafeBitCast(UnownedJob(job), to: UnsafeMutableRawPointer.self))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }
}
#else
/// The platform's executor: this build has no custom global executor (built without the
/// CustomGlobalExecutor trait, or by a Swift this project's executor was not written for).
public enum GlobalExecutor {
    /// Does nothing: the platform's executor stays.
    public static func install() {}
    /// Always false in this build.
    public static var isInstalled: Bool { false }
    /// Kept for the benchmarks' messages.
    public static let platformExecutorVariable = "HOTSPOT_HELPER_PLATFORM_EXECUTOR"
}
#endif
