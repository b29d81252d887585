// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import NetworkManager
import Synchronization
import Testing

/// A private bus with python-dbusmock's NetworkManager template, and helpers that read as the
/// mock's own API (AddWiFiDevice, AddAccessPoint…), plus the gaps filled at run time.
final class MockNetworkManager: Sendable {
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let busName = "org.freedesktop.NetworkManager"

    let bus: PrivateBus
    let control: Connection
    private let current: Mutex<DBusMock>

    var mock: DBusMock { current.withLock { $0 } }

    init() async throws {
        bus = try await PrivateBus()
        current = Mutex(try await bus.startMock(template: "networkmanager", waitFor: Self.busName))
        control = try bus.connect()
    }

    /// Stops the mock process and waits until its name is gone from the bus.
    func stopMock() async throws {
        mock.stop()
        try await bus.waitForNameGone(Self.busName, timeout: .seconds(10))
    }

    /// Starts a fresh mock (after ``stopMock()``).
    func restartMock() async throws {
        let fresh = try await bus.startMock(template: "networkmanager", waitFor: Self.busName)
        current.withLock { $0 = fresh }
    }

    @discardableResult
    func nm(_ member: String, _ body: [DBusValue] = [], path: String = managerPath) async throws -> [DBusValue] {
        try await mock.mockCall(control, path: path, member, body)
    }

    func addWiFiDevice(_ name: String = "wlan0", state: UInt32 = 30) async throws -> ObjectPath {
        let reply = try await nm("AddWiFiDevice", [.string(name), .string(name), .int32(Int32(state))])
        return try ObjectPath(reply.first?.string ?? "")
    }

    func addAccessPoint(_ device: ObjectPath, _ name: String, ssid: String, bssid: String, strength: UInt8 = 70,
                        security: UInt32 = 0, frequency: UInt32 = 2437) async throws -> ObjectPath {
        let reply = try await nm("AddAccessPoint", [.string(device.rawValue), .string(name), .string(ssid), .string(bssid),
                                                    .uint32(2), .uint32(frequency), .uint32(54000), .byte(strength), .uint32(security)])
        return try ObjectPath(reply.first?.string ?? "")
    }

    func addWiFiConnection(_ device: ObjectPath, _ name: String, ssid: String) async throws -> ObjectPath {
        let reply = try await nm("AddWiFiConnection", [.string(device.rawValue), .string(name), .string(ssid), .string("")])
        return try ObjectPath(reply.first?.string ?? "")
    }

    func addActiveConnection(_ device: ObjectPath, connection: ObjectPath, accessPoint: ObjectPath, name: String) async throws -> ObjectPath {
        let reply = try await nm("AddActiveConnection", [.strings([device.rawValue]), .string(connection.rawValue),
                                                         .string(accessPoint.rawValue), .string(name), .uint32(2)])
        return try ObjectPath(reply.first?.string ?? "")
    }

    /// Any property change, announced with the standard PropertiesChanged.
    func updateProperties(_ path: ObjectPath, interface: String, _ props: [String: DBusValue]) async throws {
        try await nm("UpdateProperties", [.string(interface), .varDict(props)], path: path.rawValue)
    }

    func addProperty(_ path: ObjectPath, interface: String, _ name: String, _ value: DBusValue) async throws {
        try await nm("AddProperty", [.string(interface), .string(name), .variant(value)], path: path.rawValue)
    }

    /// A device state change the way NetworkManager announces it (the template has helpers
    /// only for 100 and 30).
    func setDeviceState(_ device: ObjectPath, _ state: UInt32, old: UInt32, reason: UInt32) async throws {
        let iface = "org.freedesktop.NetworkManager.Device"
        for (name, value) in [("State", DBusValue.uint32(state)), ("StateReason", .structure([.uint32(state), .uint32(reason)]))] {
            try await nm("SetProperty", [.string(device.rawValue), .string(iface), .string(name), .variant(value)])
        }
        try await nm("EmitSignal", [.string(iface), .string("StateChanged"), .string("uuu"),
                                    .array(element: .variant, [.variant(.uint32(state)), .variant(.uint32(old)), .variant(.uint32(reason))])],
                     path: device.rawValue)
    }

    /// The template has no way to remove a device: do what NetworkManager does.
    func removeDevice(_ device: ObjectPath) async throws {
        let props = try await control.call(Self.busName, Self.managerPath, "org.freedesktop.DBus.Properties", "Get",
                                           [.string("org.freedesktop.NetworkManager"), .string("Devices")])
        let remaining = (props.first?.objectPaths ?? []).filter { $0 != device }
        try await nm("SetProperty", [.string(Self.managerPath), .string("org.freedesktop.NetworkManager"), .string("Devices"),
                                     .variant(.objectPaths(remaining))])
        try await nm("EmitSignal", [.string("org.freedesktop.NetworkManager"), .string("DeviceRemoved"), .string("o"),
                                    .array(element: .variant, [.variant(.objectPath(device))])])
        try await nm("RemoveObject", [.string(device.rawValue)])
    }

    /// The calls the mock recorded on the object at `path`.
    func calls(_ path: ObjectPath) async throws -> [(method: String, args: [DBusValue])] {
        try await mock.calls(control, path: path.rawValue)
    }
}

/// Collects a client's events and waits for the ones a test expects, in order.
final class EventLog: Sendable {
    private struct State {
        var events: [NetworkManagerEvent] = []
        var cursor = 0
    }
    private final class Store: Sendable {
        let state = Mutex(State())
    }
    private let store = Store()
    /// Bumped by every event: what ``next(_:timeout:sourceLocation:_:)`` waits on.
    private let arrived = Changes()
    private let task: Task<Void, Never>

    init(_ stream: AsyncQueue<NetworkManagerEvent>) {
        let (store, arrived) = (self.store, self.arrived)
        task = Task {
            for await e in stream {
                store.state.withLock { $0.events.append(e) }
                arrived.bump()
            }
        }
    }

    deinit { task.cancel() }

    var all: [NetworkManagerEvent] { store.state.withLock { $0.events } }

    /// The first event after the previous match that `match` accepts; fails the test after `timeout`
    /// (generous: only a failure waits that long, and a loaded machine handling a burst of 2,000
    /// signals took over 5 s).
    func next<T>(_ what: String, timeout: Duration = SafetyNet.wait, sourceLocation: SourceLocation = #_sourceLocation,
                 _ match: (NetworkManagerEvent) -> T?) async throws -> T {
        var found: T?
        let came = await arrived.holds(within: timeout) {
            found = store.state.withLock { s in
                var i = s.cursor
                while i < s.events.count {
                    if let m = match(s.events[i]) { s.cursor = i + 1; return m }
                    i += 1
                }
                return nil
            }
            return found != nil
        }
        guard came, let found else {
            Issue.record("no \(what) within \(timeout); events so far:\n\(all.map { "  \($0)" }.joined(separator: "\n"))", sourceLocation: sourceLocation)
            throw TestKitError.timeout(what)
        }
        return found
    }

    /// The events after the last match that `match` accepts, watched over `window`: a "nothing
    /// more comes" check, which ends early when one comes (each event wakes it).
    func unmatched(over window: Duration = .milliseconds(300), _ match: (NetworkManagerEvent) -> Bool) async -> [NetworkManagerEvent] {
        func extra() -> [NetworkManagerEvent] { store.state.withLock { s in s.events[s.cursor...].filter(match) } }
        _ = await arrived.holdsThroughout(window) { extra().isEmpty }
        return extra()
    }
}

extension NetworkManagerEvent {
    var accessPoints: (ObjectPath, [AccessPoint])? {
        if case .accessPointsChanged(let d, let list) = self { return (d.path, list) }
        return nil
    }
    var activation: (WifiDevice, JoinedNetwork)? {
        if case .deviceActivated(let d, let n) = self { return (d, n) }
        return nil
    }
    var deactivation: (WifiDevice, DeviceState, DeviceStateReason)? {
        if case .deviceDeactivated(let d, let s, let r) = self { return (d, s, r) }
        return nil
    }
    var addedDevice: WifiDevice? {
        if case .wifiDeviceAdded(let d) = self { return d }
        return nil
    }
    var removedDevice: ObjectPath? {
        if case .wifiDeviceRemoved(let d) = self { return d.path }
        return nil
    }
    var availability: Bool? {
        if case .managerAvailable(let a) = self { return a }
        return nil
    }
    var isSnapshotComplete: Bool {
        if case .snapshotComplete = self { return true }
        return false
    }
    var primary: (String?, ObjectPath?, Connectivity)? {
        if case .primaryConnectionChanged(let t, let d, _, let c) = self { return (t, d, c) }
        return nil
    }
    var primaryWifiInterface: String?? {
        if case .primaryConnectionChanged(_, _, let name, _) = self { return .some(name) }
        return nil
    }
    var rename: (WifiDevice, String)? {
        if case .wifiDeviceRenamed(let d, let from) = self { return (d, from) }
        return nil
    }
}

extension Error {
    /// The D-Bus error name of a failed call, however it is wrapped.
    var nmErrorName: String? {
        if case .callFailed(_, _, let e)? = self as? NetworkManagerError { return e.name }
        return dbusName
    }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
