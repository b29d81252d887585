// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation

/// `hotspot-helperd` as a subprocess on a private bus, with its own configuration and state
/// directory, for integration tests and the demo.
public final class DaemonProcess: Sendable {
    public let process: ManagedProcess
    public let stateDirectory: URL
    public let configPath: URL
    public static let busName = "org.freedesktop.NetworkManager.HotspotHelper"

    /// Writes a configuration (`[daemon]` keys such as `command-timeout`), starts the daemon and
    /// waits until it owns its bus name.
    ///
    /// Without `connectivity` (the `[connectivity]` keys) the daemon neither probes nor starts its
    /// built-in helpers, so no test sends traffic anywhere by accident; tests that want them pass
    /// probes pointing at a simulator.
    public static func start(on bus: PrivateBus, settings: [String: String] = [:], connectivity: [String: String]? = nil,
                             stateDirectory: URL? = nil, logLevel: String = "debug",
                             prefix: [String] = []) async throws -> DaemonProcess {
        let dir = stateDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("hotspot-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let config = dir.deletingLastPathComponent().appendingPathComponent("hotspot-\(UUID().uuidString).conf")
        var text = "[daemon]\nstate-dir=\(dir.path)\n"
        var daemonSettings = settings
        if connectivity == nil, daemonSettings["builtin-helpers"] == nil { daemonSettings["builtin-helpers"] = "" }
        for (k, v) in daemonSettings.sorted(by: { $0.key < $1.key }) { text += "\(k)=\(v)\n" }
        text += "[connectivity]\n"
        for (k, v) in (connectivity ?? ["enabled": "false"]).sorted(by: { $0.key < $1.key }) { text += "\(k)=\(v)\n" }
        try text.write(to: config, atomically: false, encoding: .utf8)
        let daemon = [TestKitPaths.product("hotspot-helperd").path, "--config", config.path, "--log-level", logLevel]
        let command = prefix + daemon
        let p = try ManagedProcess.launch(command[0], Array(command.dropFirst()), environment: bus.environment, name: "hotspot-helperd")
        do {
            try await bus.waitForName(busName)
        } catch {
            p.stop()
            throw TestKitError.startFailed("hotspot-helperd did not take its name; its log:\n\(p.output)")
        }
        return DaemonProcess(process: p, stateDirectory: dir, configPath: config, ownsStateDirectory: stateDirectory == nil)
    }

    /// Whether the state directory was made here (and so is removed with the object); a directory
    /// the caller passed in is theirs to keep, for tests that restart the daemon on it.
    let ownsStateDirectory: Bool

    init(process: ManagedProcess, stateDirectory: URL, configPath: URL, ownsStateDirectory: Bool) {
        self.process = process
        self.ownsStateDirectory = ownsStateDirectory
        self.stateDirectory = stateDirectory
        self.configPath = configPath
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: configPath)
        if ownsStateDirectory { try? FileManager.default.removeItem(at: stateDirectory) }
    }

    /// The daemon's log so far.
    public var log: String { process.output }
}
