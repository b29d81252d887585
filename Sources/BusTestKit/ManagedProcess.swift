import Foundation
import Synchronization

/// A child process started by a test: its output is collected, it is stopped on `stop()` or
/// deinit, and it is recorded in a registry so that a later run reaps it if this test process
/// died before cleaning up.
public final class ManagedProcess: Sendable {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    private struct Output {
        var stdout = Data()
        var combined = Data()
        var stopped = false
        var closedPipes = 0
    }

    var pipesClosed: Bool { buffers.withLock { $0.closedPipes == 2 } }

    public let name: String
    private let process: Process
    private let buffers = Mutex(Output())
    private let registryEntry: URL?

    private init(process: Process, name: String, registryEntry: URL?) {
        self.process = process
        self.name = name
        self.registryEntry = registryEntry
    }

    deinit { stop() }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Everything the process wrote so far (stdout and stderr, interleaved).
    public var output: String { String(decoding: buffers.withLock { $0.combined }, as: UTF8.self) }

    /// Starts `executable` with `arguments`; `environment` is added to this process's own.
    public static func launch(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                              name: String? = nil) throws -> ManagedProcess {
        Reaper.reapOrphans()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        let display = name ?? URL(fileURLWithPath: executable).lastPathComponent
        try p.run()
        let entry = Reaper.record(pid: p.processIdentifier, executable: executable)
        let managed = ManagedProcess(process: p, name: display, registryEntry: entry)
        out.fileHandleForReading.readabilityHandler = { [weak managed] h in
            let d = h.availableData
            if d.isEmpty { h.readabilityHandler = nil; managed?.buffers.withLock { $0.closedPipes += 1 }; return }
            managed?.append(d, stdout: true)
        }
        err.fileHandleForReading.readabilityHandler = { [weak managed] h in
            let d = h.availableData
            if d.isEmpty { h.readabilityHandler = nil; managed?.buffers.withLock { $0.closedPipes += 1 }; return }
            managed?.append(d, stdout: false)
        }
        return managed
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
        // Let the readability handlers drain what is left in the pipes (under load this can take
        // far longer than the process took to exit).
        let drained = ContinuousClock.now + .seconds(5)
        while !p.pipesClosed && ContinuousClock.now < drained { try? await Task.sleep(for: .milliseconds(2)) }
        let (out, combined) = p.buffers.withLock { ($0.stdout, $0.combined) }
        let stdout = String(decoding: out, as: UTF8.self)
        var stderr = String(decoding: combined, as: UTF8.self)
        if !stdout.isEmpty, let r = stderr.range(of: stdout) { stderr.removeSubrange(r) }
        p.stop()
        return Result(status: status, stdout: stdout, stderr: stderr)
    }

    private func append(_ d: Data, stdout: Bool) {
        buffers.withLock { o in
            if stdout { o.stdout.append(d) }
            o.combined.append(d)
        }
    }

    /// Waits for the first line on stdout.
    public func waitForFirstStdoutLine(timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let line: String? = buffers.withLock { o in
                guard let nl = o.stdout.firstIndex(of: 0x0A) else { return nil }
                return String(decoding: o.stdout[o.stdout.startIndex..<nl], as: UTF8.self)
            }
            if let line { return line }
            if !process.isRunning { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Waits until the output contains `text`; returns false on timeout or exit.
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if output.contains(text) { return true }
            if !process.isRunning { return output.contains(text) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Sends `signal` (e.g. SIGKILL) without waiting.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to exit and returns its status (nil on timeout).
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return process.terminationStatus
    }

    /// Stops the process: SIGTERM now, then SIGKILL after a grace period. Idempotent, and it
    /// never blocks the caller (it may run on the cooperative pool, or in deinit): the waiting
    /// happens on a thread of its own.
    public func stop(grace: Double = 2) {
        let first = buffers.withLock { o -> Bool in
            defer { o.stopped = true }
            return !o.stopped
        }
        guard first else { return }
        let process = self.process
        let entry = registryEntry
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(2_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            while process.isRunning { usleep(1_000) }
            if let entry { try? FileManager.default.removeItem(at: entry) }
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
        return (try? text.write(to: entry, atomically: true, encoding: .utf8)) != nil ? entry : nil
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
