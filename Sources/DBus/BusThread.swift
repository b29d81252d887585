// SPDX-License-Identifier: Apache-2.0
import CDBus
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

    /// What the thread runs: a job of the connection's actor or of an actor sharing its executor
    /// (`Connection.unownedExecutor`), or work handed over with ``perform(_:)``.
    enum Work {
        case job(UnownedJob)
        case work(@Sendable () -> Void)
    }

    /// The thread's work, in the order it came.
    private struct Queue {
        var jobs: [Work] = []
        var sleeping = false
        var stopping = false
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
        append(.job(UnownedJob(job)))
    }

    /// Runs `work` on the thread, in order with its jobs, with no task made for it: a send
    /// handed over from another thread costs one wake-up of this one, where a task would first
    /// wake a worker of the programs' pool to hop here.
    func perform(_ work: @escaping @Sendable () -> Void) {
        append(.work(work))
    }

    private func append(_ work: Work) {
        let wake = queue.withLock { q -> Bool in
            q.jobs.append(work)
            defer { q.sleeping = false }
            return q.sleeping
        }
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
            // bus) rather than piling up in memory faster than it is handled. A time budget keeps
            // I/O (replies, deadlines) from being starved by jobs that keep queueing jobs.
            let budget = ContinuousClock.now + Self.jobBudget
            var ranAny = false
            var stopping = false
            while true {
                let (jobs, stop) = queue.withLock { q -> ([Work], Bool) in
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
        // Run what came meanwhile.
        let left = queue.withLock { q -> [Work] in
            defer { q.jobs = [] }
            return q.jobs
        }
        run(left, on: me)
        threadID.store(0, ordering: .releasing)
    }

    private func run(_ jobs: [Work], on me: UnownedSerialExecutor) {
        for item in jobs {
            switch item {
            case .job(let job): job.runSynchronously(on: me)
            case .work(let work): work()
            }
        }
    }
}
