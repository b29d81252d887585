// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol

/// A private bus with python-dbusmock's NetworkManager, and reading the daemon's side of it.
final class Rig: Sendable {
    static let nmPath = "/org/freedesktop/NetworkManager"
    let bus: PrivateBus
    let nm: DBusMock
    let c: Connection

    init() async throws {
        bus = try await PrivateBus()
        nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        c = try bus.connect()
        try await nm.addAgentManager(c)
    }

    func stop() {
        nm.stop()
        bus.stop()
    }

    @discardableResult
    func nmCall(_ member: String, _ body: [DBusValue], path: String = Rig.nmPath) async throws -> [DBusValue] {
        try await nm.mockCall(c, path: path, member, body)
    }

    func addDevice(_ name: String) async throws -> String {
        let path = try await nmCall("AddWiFiDevice", [.string(name), .string(name), .int32(30)]).first?.string ?? ""
        try await nm.addDisconnect(c, device: path)
        return path
    }

    @discardableResult
    func addAccessPoint(device: String, name: String, ssid: String, bssid: String, strength: UInt8, secure: Bool = false) async throws -> String {
        try await nmCall("AddAccessPoint", [.string(device), .string(name), .string(ssid), .string(bssid), .uint32(2), .uint32(2412),
                                             .uint32(54000), .byte(strength), .uint32(secure ? 0x100 : 0)]).first?.string ?? ""
    }

    // MARK: - The daemon

    func interfaces() async throws -> [ObjectPath] { try await c.daemonInterfaces() }

    func property(_ path: ObjectPath, _ name: String) async throws -> DBusValue? { try await c.daemonProperty(path, name) }

    /// The daemon's interface objects by interface name.
    func interfacesByName() async throws -> [String: ObjectPath] {
        var out: [String: ObjectPath] = [:]
        for path in try await interfaces() {
            if let name = try await property(path, "Name")?.string { out[name] = path }
        }
        return out
    }

    func scanList(_ path: ObjectPath) async throws -> [[String: DBusValue]] {
        let reply = try await c.call(destination: HotspotContract.busName, path: path, interface: HotspotContract.interfaceInterface,
                                     member: "GetScanList", body: [])
        return reply.first?.arrayItems?.compactMap(\.varDict) ?? []
    }

    /// Waits until `condition` holds, checking every `every`; false after `timeout`.
    func waitUntil(timeout: Duration, every: Duration = .milliseconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
        try await pollUntil(timeout: timeout, every: every, condition)
    }
}

struct StressError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
