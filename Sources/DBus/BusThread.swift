// SPDX-License-Identifier: Apache-2.0
import CDBus
import CExecutor
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What the bus thread asks of the connection it serves, between running jobs: which descriptor
/// to poll and for how long, and what to do when it is ready. Both run on the bus thread.
protocol BusThreadClient: AnyObject, Sendable {
    func pollPlan() -> BusThread.PollPlan
    /// `revents` for the connection's descriptor; `extra` are the plan's other descriptors with
    /// theirs (peer links, `Connection+PeerLinks.swift`).
    func ioReady(revents: Int16, extra: [pollfd])
}

/// One OS thread that owns a libdbus connection and is the serial executor of its actor
/// (SE-0392). Jobs enqueued by Swift concurrency and libdbus I/O interleave on this thread only,
/// so libdbus is never touched from two threads and the compiler enforces it through the actor.
///
/// `@unchecked Sendable` is sound here: the job queue and flags live in a `Mutex`, the thread id
/// in an `Atomic`, and `client` is written once before the thread starts and only read on it.
final class BusThread: SerialExecutor, @unchecked Sendable {
    struct PollPlan {
        var fd: Int32
        var events: Int16
        /// Milliseconds, or -1 for no limit.
        var timeout: Int32
        /// Other descriptors to watch (the connection's peer links); usually none.
        var extra: [pollfd] = []
    }

    /// A job of the connection's actor, or one of the program's global executor that this
    /// thread hosts (``hostGlobalJobs()``). Both kinds run in the order they came.
    private enum Job: Sendable {
        case actor(UnownedJob)
        case global(GlobalJob)
    }

    /// A job of the global executor as CExecutor hands it over (an `UnownedJob` underneath,
    /// which is Sendable; the pointer type is not).
    private struct GlobalJob: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer
    }

    private struct Queue {
        var jobs: [Job] = []
        var sleeping = false
        var stopping = false
        /// The thread has ended: global jobs handed over now go back to the workers.
        var exited = false
        var hosting = false
    }

    private let queue = Mutex(Queue())
    /// How long queued jobs may run before the thread reads the socket again.
    static let jobBudget = Duration.milliseconds(5)
    private let threadID = Atomic<UInt>(0)
    /// A self-pipe: enqueue() writes a byte to wake a thread sleeping in poll().
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// Held strongly; the client itself holds its connection weakly, so there is no cycle.
    private var client: (any BusThreadClient)?
    private var thread: pthread_t?

    init() {
        var fds: [Int32] = [-1, -1]
        let rc = pipe(&fds)
        precondition(rc == 0, "pipe failed: \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    /// Starts the thread, serving `client`. Called once.
    func start(serving client: any BusThreadClient) {
        self.client = client
        let box = Unmanaged.passRetained(self)
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            let me = Unmanaged<BusThread>.fromOpaque(raw!).takeRetainedValue()
            me.run()
            return nil
        }, box.toOpaque())
        precondition(rc == 0, "pthread_create failed: \(rc)")
        pthread_detach(tid)
        thread = tid
    }

    /// Asks the thread to finish: it runs the jobs already queued, then exits.
    func stop() {
        let wake = queue.withLock { q -> Bool in
            q.stopping = true
            return true
        }
        if wake { signalWake() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let wake = queue.withLock { q -> Bool in
            q.jobs.append(.actor(unowned))
            defer { q.sleeping = false }
            return q.sleeping
        }
        if wake { signalWake() }
    }

    /// Makes this thread run the program's global jobs too (ProgramSupport's executor, Sources/
    /// CExecutor): one thread then receives a message, runs the tasks it resumes and sends what
    /// they send, with no hand-off between threads (issue 13: the join's data path). Returns
    /// false when that executor is not the one in use or another thread already hosts its jobs.
    ///
    /// What runs on the hosting thread must not block: blocking work (file syncs, network
    /// exchanges) goes to threads of its own. This object is kept for the rest of the process (a
    /// job may still be on its way to it after its thread ended; it then goes to the workers).
    func hostGlobalJobs() -> Bool {
        let claimed = queue.withLock { q -> Bool in
            guard !q.stopping, !q.exited, !q.hosting else { return false }
            q.hosting = true
            return true
        }
        guard claimed else { return false }
        let context = Unmanaged.passRetained(self)  // never released: see above
        let rc = hh_executor_set_host({ context, job in
            Unmanaged<BusThread>.fromOpaque(context!).takeUnretainedValue().enqueueGlobal(job!)
        }, context.toOpaque())
        guard rc == 0 else {
            context.release()
            queue.withLock { $0.hosting = false }
            return false
        }
        return true
    }

    private func enqueueGlobal(_ job: UnsafeMutableRawPointer) {
        let (accepted, wake) = queue.withLock { q -> (Bool, Bool) in
            guard !q.exited else { return (false, false) }
            q.jobs.append(.global(GlobalJob(raw: job)))
            defer { q.sleeping = false }
            return (true, q.sleeping)
        }
        if !accepted { hh_executor_enqueue_on_workers(job) }  // the thread has ended: the workers run it
        if wake { signalWake() }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func isIsolatingCurrentContext() -> Bool? {
        threadID.load(ordering: .acquiring) == UInt(pthread_self())
    }

    func checkIsolated() {
        precondition(threadID.load(ordering: .acquiring) == UInt(pthread_self()),
                     "not on the D-Bus connection's thread")
    }

    /// True when called on this bus thread.
    var isCurrent: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    private func signalWake() {
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        // Threads inherit their creator's name; give this one its own for ps, top and perf.
        _ = hotspot_name_current_thread("dbus-connection")
        let me = asUnownedSerialExecutor()
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0), pollfd(fd: -1, events: 0, revents: 0)]
        while true {
            // Run what is queued, and what those jobs queue in turn, before reading more: work
            // already received goes first, so a burst of signals waits in the socket (and the
            // bus) rather than piling up in memory faster than it is handled — with the daemon's
            // tasks on this thread (hostGlobalJobs), reading on after every batch let a 5,000-signal
            // burst overflow the NetworkManager client's intake. A time budget keeps I/O (replies,
            // deadlines) from being starved by jobs that keep queueing jobs.
            let budget = ContinuousClock.now + Self.jobBudget
            var ranAny = false
            var stopping = false
            while true {
                let (jobs, stop) = queue.withLock { q -> ([Job], Bool) in
                    let batch = q.jobs
                    q.jobs.removeAll(keepingCapacity: true)
                    return (batch, q.stopping)
                }
                stopping = stop
                run(jobs, on: me)
                if jobs.isEmpty { break }
                ranAny = true
                if ContinuousClock.now >= budget { break }
            }
            if stopping && !ranAny { break }

            let plan = client?.pollPlan() ?? PollPlan(fd: -1, events: 0, timeout: -1)
            fds[1] = pollfd(fd: plan.fd, events: plan.events, revents: 0)
            fds[0].revents = 0
            if fds.count > 2 { fds.removeSubrange(2...) }
            fds.append(contentsOf: plan.extra)
            // Sleep only when nothing is queued; enqueue() wakes us through the eventfd.
            let mayBlock = queue.withLock { q -> Bool in
                if q.jobs.isEmpty && !q.stopping { q.sleeping = true; return true }
                return false
            }
            let rc = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), mayBlock ? plan.timeout : 0) }
            if mayBlock { queue.withLock { $0.sleeping = false } }
            if rc > 0 && fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeFD, &drain, 64) == 64 {}
            }
            client?.ioReady(revents: rc > 0 ? fds[1].revents : 0, extra: rc > 0 && fds.count > 2 ? Array(fds[2...]) : [])
        }
        // Give the global jobs back to the workers, then run what came meanwhile.
        if queue.withLock({ $0.hosting }) { _ = hh_executor_set_host(nil, nil) }
        let left = queue.withLock { q -> [Job] in
            q.exited = true
            defer { q.jobs = [] }
            return q.jobs
        }
        run(left, on: me)
        threadID.store(0, ordering: .releasing)
    }

    private func run(_ jobs: [Job], on me: UnownedSerialExecutor) {
        for job in jobs {
            switch job {
            case .actor(let job): job.runSynchronously(on: me)
            case .global(let job): hh_executor_run(job.raw)
            }
        }
    }
}
