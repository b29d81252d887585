// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Synchronization

/// An end-to-end scenario: a private bus, python-dbusmock's NetworkManager with a Wi-Fi device
/// and access points, the daemon as a subprocess, and helpers written with HotspotHelperKit in
/// this process answering as scripted. State is observed through the daemon's D-Bus properties
/// and NetworkManager's actions through the mock's recorded calls.
struct Scenario {
    static let nmPath = "/org/freedesktop/NetworkManager"
    let bus: PrivateBus
    let nm: DBusMock
    let daemon: DaemonProcess
    let client: Connection
    let device: String
    /// Helpers registered in this process stay registered while the scenario lives.
    let helpers = HelperHolder()
    /// Wakes the waits below on every signal of the daemon and of the mock.
    let waiter: BusWaiter

    typealias AP = MockAccessPoint
    static let defaultAPs = [AP(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01"),
                             AP(name: "ap2", ssid: "CoffeeShop", bssid: "0A:00:00:00:00:02", secure: true),
                             AP(name: "ap3", ssid: "Library", bssid: "0A:00:00:00:00:03")]

    init(settings: [String: String] = [:], connectivity: [String: String]? = nil, accessPoints: [AP] = Scenario.defaultAPs,
         stateDirectory: URL? = nil, prefix: [String] = [], bus existing: PrivateBus? = nil) async throws {
        if let existing { bus = existing } else { bus = try await PrivateBus() }
        nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        client = try bus.connect()
        waiter = try await BusWaiter.daemonAndNetworkManager(client)
        device = try await Self.setUpNetworkManager(nm, client, accessPoints)
        var s = ["command-timeout": "2", "filter-interval": "0.2", "maintain-interval": "300"]
        for (k, v) in settings { s[k] = v }
        daemon = try await DaemonProcess.start(on: bus, settings: s, connectivity: connectivity, stateDirectory: stateDirectory, prefix: prefix)
        try await waitForInterface()
    }

    /// The Wi-Fi device, its access points, and the methods the template lacks.
    static func setUpNetworkManager(_ nm: DBusMock, _ c: Connection, _ aps: [AP]) async throws -> String {
        try await nm.setUpWiFi(c, accessPoints: aps)
    }

    func mock(_ member: String, _ body: [DBusValue], path: String = Scenario.nmPath) async throws -> [DBusValue] {
        try await nm.mockCall(client, path: path, member, body)
    }

    /// Joins `ssid` (a saved profile is created the first time) and returns the profile's path.
    @discardableResult
    func join(_ ssid: String, accessPoint: String, profile: String? = nil, active: String = "active\(Int.random(in: 0..<1_000_000))") async throws -> String {
        try await nm.joinWiFi(client, device: device, ssid: ssid, accessPoint: accessPoint, profile: profile, active: active)
    }

    func leave() async throws { _ = try await mock("SetDeviceDisconnected", [.string(device)]) }

    var interfacePath: ObjectPath { HotspotContract.interfacePath(1) }

    func property(_ name: String) async throws -> DBusValue? {
        try await client.call(destination: HotspotContract.busName, path: interfacePath, interface: "org.freedesktop.DBus.Properties",
                              member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue), .string(name)]).first?.unwrapped
    }

    func state() async throws -> String { try await property("State")?.string ?? "" }

    /// Waits until the daemon publishes wlan0 (woken by its `Interfaces` announcements).
    func waitForInterface() async throws {
        try await waiter.until("the daemon publishes wlan0", context: { daemon.log }) {
            let paths = (try? await client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                                interface: "org.freedesktop.DBus.Properties", member: "Get",
                                                body: [.string(HotspotContract.managerInterface.rawValue), "Interfaces"]).first?.unwrapped.objectPaths) ?? []
            return paths.contains(interfacePath)
        }
    }

    /// Waits until the interface's State is `state` (woken by PropertiesChanged); fails with the
    /// daemon's log otherwise.
    func waitFor(_ state: String, timeout: Duration = .seconds(10)) async throws {
        var last = ""
        try await waiter.until("State \(state)", timeout: timeout, context: { "State stayed \(last)\n--- daemon log ---\n\(daemon.log.suffix(4000))" }) {
            last = try await self.state()
            return last == state
        }
    }

    /// Waits until NetworkManager was asked to disconnect the device (Device.Disconnect; the
    /// mock announces each call with MethodCalled).
    func waitForDisconnect(timeout: Duration = .seconds(10)) async throws {
        try await waiter.until("the daemon calls Disconnect", timeout: timeout, context: { "--- daemon log ---\n\(daemon.log.suffix(4000))" }) {
            try await calls(device).contains { $0.method == "Disconnect" }
        }
    }

    /// Stops this scenario's NetworkManager and waits until it is off the bus.
    func stopNetworkManager() async throws {
        nm.process.send(SIGKILL)
        _ = await nm.process.waitForExit()
        try await bus.waitForNameGone("org.freedesktop.NetworkManager")
    }

    /// The methods the mock recorded on `path`.
    func calls(_ path: String) async throws -> [(method: String, args: [DBusValue])] { try await nm.calls(client, path: path) }

    /// Registers an in-process helper answering as scripted.
    func helper(_ name: String, identifier: String? = nil, script: HelperScript) async throws -> (HotspotHelper, HelperScript) {
        let c = try bus.connect()
        let h = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: name, identifier: identifier ?? name), connection: c) { command in
            script.answer(command)
        }
        helpers.keep(h)
        return (h, script)
    }
}

/// Keeps helpers (and so their connections) alive for a scenario's lifetime.
final class HelperHolder: Sendable {
    private let list = Mutex<[HotspotHelper]>([])
    func keep(_ h: HotspotHelper) { list.withLock { $0.append(h) } }
}
