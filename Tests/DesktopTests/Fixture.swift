// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Synchronization
import Testing

/// A private bus with python-dbusmock's NetworkManager (one Wi-Fi device, three access points),
/// the daemon as a subprocess, and helpers in this process answering as scripted; the pattern
/// of Tests/DaemonTests/Scenario.swift, for driving hotspotctl and the agent.
struct Desktop {
    static let nmPath = "/org/freedesktop/NetworkManager"
    let bus: PrivateBus
    let nm: DBusMock
    let daemon: DaemonProcess
    let client: Connection
    let device: String
    let helpers = Kept<HotspotHelper>()

    init() async throws {
        bus = try await PrivateBus()
        nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        client = try bus.connect()
        let device = try await nm.setUpWiFi(client, accessPoints: [
            MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01"),
            MockAccessPoint(name: "ap2", ssid: "CoffeeShop", bssid: "0A:00:00:00:00:02", secure: true),
            MockAccessPoint(name: "ap3", ssid: "Library", bssid: "0A:00:00:00:00:03"),
        ])
        self.device = device
        daemon = try await DaemonProcess.start(on: bus, settings: ["command-timeout": "2", "filter-interval": "0.2", "maintain-interval": "300"])
        try await waitUntil("the daemon publishes wlan0") {
            let paths = try await client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                              interface: "org.freedesktop.DBus.Properties", member: "Get",
                                              body: [.string(HotspotContract.managerInterface.rawValue), "Interfaces"]).first?.unwrapped.objectPaths ?? []
            return paths.contains(HotspotContract.interfacePath(1))
        }
    }

    /// Joins `ssid` through access point `ap` (a saved profile is created).
    func join(_ ssid: String, accessPoint ap: String) async throws {
        try await nm.joinWiFi(client, device: device, ssid: ssid, accessPoint: ap)
    }

    func state() async throws -> String {
        try await client.call(destination: HotspotContract.busName, path: HotspotContract.interfacePath(1), interface: "org.freedesktop.DBus.Properties",
                              member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue), "State"]).first?.unwrapped.string ?? ""
    }

    func waitFor(_ wanted: String) async throws {
        try await waitUntil("State becomes \(wanted)\n--- daemon log ---\n\(daemon.log.suffix(3000))") { try await state() == wanted }
    }

    /// Registers an in-process helper: `confidence` to evaluate, `results` per command, claims
    /// for filter-scan-list (SSID → password or nil).
    @discardableResult
    func helper(_ name: String, confidence: Confidence, results: [CommandType: CommandResult] = [:], claims: [String: String?] = [:],
                received: Kept<CommandType>? = nil) async throws -> HotspotHelper {
        let c = try bus.connect()
        let script = HelperScript(confidence: confidence, results: results, claims: claims)
        let h = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: name, identifier: "test.\(name)", purpose: "Signs in at \(name)"), connection: c) { command in
            received?.keep(command.commandType)
            script.answer(command)
        }
        helpers.keep(h)
        return h
    }

    /// Runs hotspotctl against this bus.
    func ctl(_ arguments: [String]) async throws -> ManagedProcess.Result {
        try await bus.run(TestKitPaths.product("hotspotctl").path, arguments)
    }

    /// Runs hotspotctl as nobody (needs root and setpriv).
    func ctlAsNobody(_ arguments: [String]) async throws -> ManagedProcess.Result {
        try await bus.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", TestKitPaths.product("hotspotctl").path] + arguments)
    }
}

/// Keeps values (helpers, received commands) for a test's lifetime, across tasks.
final class Kept<T: Sendable>: Sendable {
    private let list = Mutex<[T]>([])
    func keep(_ v: T) { list.withLock { $0.append(v) } }
    var all: [T] { list.withLock { $0 } }
}

/// Polls `condition` until it holds; generous deadline, since tests run in parallel on 2 cores.
func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestKitError.timeout(what)
}

/// Parses JSON output.
func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}
