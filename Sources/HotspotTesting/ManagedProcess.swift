// SPDX-License-Identifier: Apache-2.0
import CDBus
import Foundation
import Synchronization

/// A child process started by a test: its output is collected, it is stopped on `stop()` or
/// deinit, and it is recorded in a registry so that a later run reaps it if this test process
/// died before cleaning up.
///
/// Spawned with `posix_spawn`; output is read by a thread of its own with `poll`, and the exit
/// status collected by another with `waitpid`. Foundation's `Process` and `FileHandle`
/// readability handlers are avoided on purpose: under load, with many children started and
/// stopped at once, they crashed the test process inside libdispatch's event loop.
public final class ManagedProcess: Sendable {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    final class StateBox: Sendable {
        let state = Mutex(State())
        /// Bumped by every chunk of output, the pipes closing and the exit.
        let changes = Changes()
        /// Signalled once, at the exit (for the thread that stops the process).
        let exited = DispatchSemaphore(value: 0)
    }

    struct State {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var combined: [UInt8] = []
        var stopped = false
        var pipesClosed = false
        var exitStatus: Int32?
    }

    public let name: String
    /// The process id.
    public let pid: Int32
    /// In a box of its own so stop() (called from deinit) can hand it to its thread.
    private let box = StateBox()
    private let registryEntry: URL?

    private init(pid: Int32, name: String, registryEntry: URL?) {
        self.pid = pid
        self.name = name
        self.registryEntry = registryEntry
    }

    deinit { stop() }

    public var isRunning: Bool { box.state.withLock { $0.exitStatus == nil } }
    /// Changes with every chunk of output and at the exit: what a wait on the process sleeps on
    /// (``BusWaiter/follow(_:)`` wakes a bus wait on them too).
    public var changes: Changes { box.changes }
    var pipesClosed: Bool { box.state.withLock { $0.pipesClosed } }

    /// Everything the process wrote so far (stdout and stderr, interleaved).
    public var output: String { String(decoding: box.state.withLock { $0.combined }, as: UTF8.self) }

    /// Starts `executable` with `arguments`; `environment` is added to this process's own.
    public static func launch(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                              name: String? = nil) throws -> ManagedProcess {
        Reaper.reapOrphans()
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard hotspot_pipe_cloexec(&outPipe) == 0 else { throw TestKitError.startFailed("pipe: \(String(cString: strerror(errno)))") }
        guard hotspot_pipe_cloexec(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            throw TestKitError.startFailed("pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing else crosses: descriptors this process opened without O_CLOEXEC (a file being
        // written, a socket) would otherwise live on in long-running children.
        _ = hotspot_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for sig in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw TestKitError.startFailed("cannot run \(executable): \(String(cString: strerror(rc)))")
        }
        let entry = Reaper.record(pid: pid, executable: executable)
        let managed = ManagedProcess(pid: pid, name: name ?? URL(fileURLWithPath: executable).lastPathComponent, registryEntry: entry)
        let (outFD, errFD) = (outPipe[0], errPipe[0])
        // The threads hold the state box, not the process object, so dropping the object still
        // stops the child (deinit).
        let box = managed.box
        Thread.detachNewThread { readOutput(box, out: outFD, err: errFD) }
        let childPID = pid
        Thread.detachNewThread { waitForChild(box, pid: childPID, registryEntry: entry) }
        return managed
    }

    private static func readOutput(_ box: StateBox, out: Int32, err: Int32) {
        var fds = [pollfd(fd: out, events: Int16(POLLIN), revents: 0), pollfd(fd: err, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while fds.contains(where: { $0.fd >= 0 }) {
            let rc = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, -1) }
            if rc < 0 { if errno == EINTR { continue }; break }
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = read(fds[i].fd, &buffer, buffer.count)
                if n > 0 {
                    let chunk = Array(buffer[0..<n])
                    box.state.withLock { s in
                        if i == 0 { s.stdout += chunk } else { s.stderr += chunk }
                        s.combined += chunk
                    }
                    box.changes.bump()
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(fds[i].fd)
                    fds[i].fd = -1
                }
            }
        }
        box.state.withLock { $0.pipesClosed = true }
        box.changes.bump()
    }

    private static func waitForChild(_ box: StateBox, pid: Int32, registryEntry: URL?) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Exit code for a normal exit, the signal number when a signal ended it (as Foundation).
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : status & 0x7F
        box.state.withLock { $0.exitStatus = code }
        box.exited.signal()
        box.changes.bump()
        if let registryEntry { try? FileManager.default.removeItem(at: registryEntry) }
    }

    /// Runs a command to completion and returns its status and output. Waiting suspends the
    /// task instead of blocking a thread: the command may be calling back into this process.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Duration = .seconds(60)) async throws -> Result {
        let p = try launch(executable, arguments, environment: environment)
        guard let status = await p.waitForExit(timeout: timeout) else {
            p.stop()
            throw TestKitError.timeout("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        // Output written just before the exit may still be in the pipes.
        _ = await p.changes.holds(within: .seconds(5)) { p.pipesClosed }
        let (out, err) = p.box.state.withLock { ($0.stdout, $0.stderr) }
        return Result(status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Waits for the first line on stdout.
    public func waitForFirstStdoutLine(timeout: Duration) async -> String? {
        func line() -> String? {
            box.state.withLock { s in
                guard let nl = s.stdout.firstIndex(of: 0x0A) else { return nil }
                return String(decoding: s.stdout[..<nl], as: UTF8.self)
            }
        }
        // Ends at the line, or when the process is gone and its output read.
        _ = await changes.holds(within: timeout) { line() != nil || pipesClosed }
        return line()
    }

    /// Waits until the output contains `text`; returns false on timeout or exit.
    public func waitForOutput(containing text: String, timeout: Duration = SafetyNet.wait) async -> Bool {
        // Ends at the text, or when the process is gone and its output read.
        _ = await changes.holds(within: timeout) { output.contains(text) || pipesClosed }
        return output.contains(text)
    }

    /// Sends `signal` (e.g. SIGKILL) without waiting.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits for the process to exit and returns its status (nil on timeout). Once it has
    /// exited, waits up to 2 s more for its output to be read to the end (the pipes are read on
    /// a thread of their own, which on a loaded machine can lag the exit), so `output` then holds
    /// everything it wrote unless something it started still holds the pipes.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        _ = await changes.holds(within: timeout) { box.state.withLock { $0.exitStatus != nil } }
        guard let status = box.state.withLock({ $0.exitStatus }) else { return nil }
        _ = await changes.holds(within: .seconds(2)) { box.state.withLock { $0.pipesClosed } }
        return status
    }

    /// Stops the process: SIGTERM now, then SIGKILL after a grace period. Idempotent, and it
    /// never blocks the caller (it may run on the cooperative pool, or in deinit): the waiting
    /// happens on a thread of its own.
    public func stop(grace: Double = 2) {
        let first = box.state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped && s.exitStatus == nil
        }
        guard first else { return }
        kill(pid, SIGTERM)
        let pid = self.pid
        let box = self.box
        Thread.detachNewThread {
            if box.exited.wait(timeout: .now() + grace) == .timedOut { kill(pid, SIGKILL) }
        }
    }
}

/// Records the children of test processes so that a run killed before cleaning up (a crash, a
/// timeout) does not leave daemons behind: the next launch kills children whose parent is gone.
enum Reaper {
    static let directory = URL(fileURLWithPath: "/tmp/hotspot-helper-testkit")
    private static let reaped = Mutex(false)

    static func record(pid: Int32, executable: String) -> URL? {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let entry = directory.appendingPathComponent("\(pid)")
        let text = "\(getpid())\n\(startTime(of: pid) ?? "")\n\(executable)\n"
        return (try? text.write(to: entry, atomically: false, encoding: .utf8)) != nil ? entry : nil
    }

    /// Once per test process: kill recorded children whose recording parent no longer runs,
    /// checking the child's start time so a reused pid is never hit.
    static func reapOrphans() {
        let first = reaped.withLock { done -> Bool in defer { done = true }; return !done }
        guard first else { return }
        // Children still running when this test process exits (a test that never released its
        // bus, a crash in Swift code that still runs exit handlers) are killed on the way out.
        atexit { Reaper.killChildren(of: getpid()) }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in entries {
            let url = directory.appendingPathComponent(name)
            guard let pid = Int32(name), let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.count >= 2, let parent = Int32(lines[0]) else { try? FileManager.default.removeItem(at: url); continue }
            if kill(parent, 0) == 0 && parent != getpid() { continue }
            if let started = startTime(of: pid), started == lines[1] { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(at: url)
        }
    }

    static func killChildren(of parent: Int32) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in entries {
            let url = directory.appendingPathComponent(name)
            guard let pid = Int32(name), let text = try? String(contentsOf: url, encoding: .utf8),
                  text.split(separator: "\n").first == Substring("\(parent)") else { continue }
            kill(pid, SIGKILL)
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// Field 22 of /proc/PID/stat: the start time in clock ticks since boot.
    static func startTime(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
