// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
import HotspotDaemon
import Logging
import Synchronization

/// Where a scenario's daemon runs.
public enum DaemonMode: Sendable {
    /// `hotspot-helperd` as a subprocess (the debug build): its own process, killable and
    /// restartable, its log its stderr.
    case subprocess
    /// `Daemon.run` in a task of the test's own process, on the private bus: no process to start,
    /// and a debugger or a crash report sees the daemon's frames; its log is captured. Not for
    /// tests that signal, kill or restart the daemon, nor for the connectivity monitor (its Router
    /// Advertisement thread outlives a stopped daemon). The test process keeps Swift's own
    /// executor, not the program's pool (`GlobalExecutor`); the subprocess runs what ships.
    case inProcess
}

/// `hotspot-helperd` on a private bus, with its own configuration and state directory, for
/// integration tests and the demo: as a subprocess or in this process (``DaemonMode``).
public final class DaemonProcess: Sendable {
    private let subprocess: ManagedProcess?
    private let inProcess: InProcessDaemon?
    public let stateDirectory: URL
    public let configPath: URL
    public static let busName = "org.freedesktop.NetworkManager.HotspotHelper"

    /// The subprocess. A daemon running in this process has none: asking for it is a mistake in
    /// the test (choose ``DaemonMode/subprocess`` for tests that signal or kill the daemon).
    public var process: ManagedProcess {
        guard let subprocess else { preconditionFailure("this daemon runs in the test's process (DaemonMode.inProcess): it has no process to signal") }
        return subprocess
    }

    /// Where this daemon runs.
    public var mode: DaemonMode { subprocess == nil ? .inProcess : .subprocess }

    /// Writes a configuration (`[daemon]` keys such as `command-timeout`), starts the daemon and
    /// waits until it owns its bus name.
    ///
    /// Without `connectivity` (the `[connectivity]` keys) the daemon neither probes nor starts its
    /// built-in helpers, so no test sends traffic anywhere by accident; tests that want them pass
    /// probes pointing at a simulator. `environment` adds to the bus's variables (a subprocess only).
    public static func start(on bus: PrivateBus, settings: [String: String] = [:], connectivity: [String: String]? = nil,
                             stateDirectory: URL? = nil, logLevel: String = "debug",
                             prefix: [String] = [], mode: DaemonMode = .subprocess,
                             environment: [String: String] = [:]) async throws -> DaemonProcess {
        let dir = stateDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("hotspot-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        if stateDirectory == nil { ExitCleanup.register(dir) }
        let config = dir.deletingLastPathComponent().appendingPathComponent("hotspot-\(UUID().uuidString).conf")
        ExitCleanup.register(config)
        var text = "[daemon]\nstate-dir=\(dir.path)\n"
        var daemonSettings = settings
        if connectivity == nil, daemonSettings["builtin-helpers"] == nil { daemonSettings["builtin-helpers"] = "" }
        for (k, v) in daemonSettings.sorted(by: { $0.key < $1.key }) { text += "\(k)=\(v)\n" }
        text += "[connectivity]\n"
        for (k, v) in (connectivity ?? ["enabled": "false"]).sorted(by: { $0.key < $1.key }) { text += "\(k)=\(v)\n" }
        try text.write(to: config, atomically: false, encoding: .utf8)
        if mode == .inProcess {
            precondition(prefix.isEmpty && environment.isEmpty, "a daemon in the test's process has the test's environment and no prefix command")
            let daemon = try await InProcessDaemon.start(config: config, logLevel: logLevel, bus: bus)
            return DaemonProcess(subprocess: nil, inProcess: daemon, stateDirectory: dir, configPath: config, ownsStateDirectory: stateDirectory == nil)
        }
        let daemon = [TestKitPaths.product("hotspot-helperd").path, "--config", config.path, "--log-level", logLevel]
        let command = prefix + daemon
        let p = try ManagedProcess.launch(command[0], Array(command.dropFirst()), environment: bus.environment.merging(environment) { $1 },
                                       name: "hotspot-helperd")
        do {
            try await bus.waitForName(busName)
        } catch {
            p.stop()
            throw TestKitError.startFailed("hotspot-helperd did not take its name; its log:\n\(p.output)")
        }
        return DaemonProcess(subprocess: p, inProcess: nil, stateDirectory: dir, configPath: config, ownsStateDirectory: stateDirectory == nil)
    }

    /// Whether the state directory was made here (and so is removed with the object); a directory
    /// the caller passed in is theirs to keep, for tests that restart the daemon on it.
    let ownsStateDirectory: Bool

    init(subprocess: ManagedProcess?, inProcess: InProcessDaemon?, stateDirectory: URL, configPath: URL, ownsStateDirectory: Bool) {
        self.subprocess = subprocess
        self.inProcess = inProcess
        self.ownsStateDirectory = ownsStateDirectory
        self.stateDirectory = stateDirectory
        self.configPath = configPath
    }

    deinit {
        subprocess?.stop()
        let (config, state, owned) = (configPath, stateDirectory, ownsStateDirectory)
        if let inProcess {
            // The files go once the daemon has stopped: its last save would make them again.
            Task.detached {
                _ = await inProcess.stop()
                ExitCleanup.remove(config)
                if owned { ExitCleanup.remove(state) }
            }
            return
        }
        ExitCleanup.remove(config)
        if owned { ExitCleanup.remove(state) }
    }

    /// Stops the daemon as SIGTERM would and waits until it has (its shutdown ran: profiles
    /// withdrawn, the state saved, the name released). Returns its exit status: 0, or 1 when
    /// `Daemon.run` failed (a subprocess's status as it exited; nil if it did not within 10 s).
    public func stop() async -> Int32? {
        if let inProcess { return await inProcess.stop() }
        process.send(SIGTERM)
        return await process.waitForExit(timeout: .seconds(10))
    }

    /// The daemon's log so far.
    public var log: String { subprocess?.output ?? inProcess?.log ?? "" }

    /// Changes with every line the daemon logs (and, for a subprocess, at its exit).
    public var changes: Changes { subprocess?.changes ?? inProcess?.changes ?? Changes() }
}

/// `Daemon.run` in a task of this process, its log captured.
final class InProcessDaemon: Sendable {
    private let captured: LogCapture
    private let stopRequest: AsyncStream<Void>.Continuation
    private let running: Task<Int32, Never>

    private init(captured: LogCapture, stopRequest: AsyncStream<Void>.Continuation, running: Task<Int32, Never>) {
        self.captured = captured
        self.stopRequest = stopRequest
        self.running = running
    }

    static func start(config: URL, logLevel: String, bus: PrivateBus) async throws -> InProcessDaemon {
        let configuration = try DaemonConfiguration.load(path: config.path)
        let captured = LogCapture()
        var log = Logger(label: "hotspot-helperd") { _ in CapturingLogHandler(capture: captured) }
        log.logLevel = Logger.Level(rawValue: logLevel) ?? .debug
        let (stops, stopRequest) = AsyncStream.makeStream(of: Void.self)
        let running = Task { [log] () -> Int32 in
            do {
                try await Daemon.run(configuration: configuration, log: log, busAddress: bus.address, hardenProcess: false) {
                    for await _ in stops { break }
                    return "the test stopped it"
                }
                return 0
            } catch {
                log.critical("\(error)")
                return 1
            }
        }
        let daemon = InProcessDaemon(captured: captured, stopRequest: stopRequest, running: running)
        do {
            try await bus.waitForName(DaemonProcess.busName)
        } catch {
            _ = await daemon.stop()
            throw TestKitError.startFailed("the in-process daemon did not take its name; its log:\n\(captured.text)")
        }
        return daemon
    }

    var log: String { captured.text }
    var changes: Changes { captured.changes }

    func requestStop() { stopRequest.yield() }

    func stop() async -> Int32 {
        requestStop()
        return await running.value
    }
}

/// The lines an in-process daemon logged, as its stderr would show them.
final class LogCapture: Sendable {
    private let lines = Mutex("")
    let changes = Changes()
    var text: String { lines.withLock { $0 } }
    func append(_ line: String) {
        lines.withLock { $0 += line + "\n" }
        changes.bump()
    }
}

struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let tail = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        capture.append("\(event.level) \(event.message)\(tail)")
    }
}
