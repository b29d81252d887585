// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
import HotspotProtocol

/// What every end-to-end scenario is made of (one scenario type for every suite): a private bus,
/// python-dbusmock's NetworkManager with one Wi-Fi device and its access points, the daemon (a
/// subprocess, or in this process: ``DaemonMode``), a client connection, and a ``BusWaiter`` woken by the daemon's and the mock's
/// signals. Suites add what they need beside it (helpers in this process, a portal simulator)
/// and get its operations through ``DaemonScenarioParts``.
public struct DaemonScenario: Sendable, DaemonScenarioParts, TestWorld {
    public static let nmPath = "/org/freedesktop/NetworkManager"
    public let bus: PrivateBus
    public let nm: DBusMock
    public let client: Connection
    /// The Wi-Fi device's object path.
    public let device: String
    public let daemon: DaemonProcess
    public let waiter: BusWaiter
    /// Whether the scenario started the bus (and so stops it), or was given one.
    private let ownsBus: Bool

    public var core: DaemonScenario { self }

    /// Starts the bus (or uses `existing`), NetworkManager with `accessPoints`, runs
    /// `beforeDaemon` (e.g. to add what the template lacks), starts the daemon with `settings`
    /// (`[daemon]` keys) and `connectivity` (`[connectivity]` keys; nil turns checks and the
    /// built-in helpers off), logging at `logLevel`, and waits until it publishes wlan0.
    /// `environment` adds variables to the daemon's (a subprocess's).
    public init(accessPoints: [MockAccessPoint], settings: [String: String] = [:], connectivity: [String: String]? = nil,
                stateDirectory: URL? = nil, prefix: [String] = [], bus existing: PrivateBus? = nil, mode: DaemonMode = .subprocess,
                environment: [String: String] = [:], logLevel: String = "debug",
                beforeDaemon: (DBusMock, Connection) async throws -> Void = { _, _ in }) async throws {
        if let existing { bus = existing } else { bus = try await PrivateBus() }
        ownsBus = existing == nil
        nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        client = try bus.connect()
        waiter = try await BusWaiter.daemonAndNetworkManager(client)
        try await beforeDaemon(nm, client)
        device = try await nm.setUpWiFi(client, accessPoints: accessPoints)
        daemon = try await DaemonProcess.start(on: bus, settings: settings, connectivity: connectivity, stateDirectory: stateDirectory, logLevel: logLevel,
                                               prefix: prefix, mode: mode, environment: environment)
        // Conditions on the daemon's log are woken by its lines.
        waiter.follow(daemon.changes)
        try await waitForInterface()
    }

    /// Starts a scenario (the parameters are ``init(accessPoints:settings:connectivity:stateDirectory:prefix:bus:mode:environment:logLevel:beforeDaemon:)``'s),
    /// runs `body` in it and stops it, waiting until it has stopped, also when `body` throws.
    public static func run<Result>(accessPoints: [MockAccessPoint], settings: [String: String] = [:], connectivity: [String: String]? = nil,
                                   stateDirectory: URL? = nil, prefix: [String] = [], bus existing: PrivateBus? = nil,
                                   mode: DaemonMode = .subprocess, environment: [String: String] = [:], logLevel: String = "debug",
                                   beforeDaemon: (DBusMock, Connection) async throws -> Void = { _, _ in },
                                   _ body: (DaemonScenario) async throws -> Result) async throws -> Result {
        try await DaemonScenario(accessPoints: accessPoints, settings: settings, connectivity: connectivity, stateDirectory: stateDirectory,
                                 prefix: prefix, bus: existing, mode: mode, environment: environment, logLevel: logLevel,
                                 beforeDaemon: beforeDaemon).run(body)
    }

    /// Stops the daemon as SIGTERM does and waits until it has exited (SIGKILL if it has not
    /// within 10 s), then NetworkManager's mock and the bus (a bus the scenario was given stays).
    public func stop() async {
        if await daemon.stop() == nil {
            daemon.process.stop(grace: 0)
            _ = await daemon.process.waitForExit()
        }
        nm.stop()
        if ownsBus { bus.stop() }
        _ = await nm.process.waitForExit()
        if ownsBus { _ = await bus.process.waitForExit() }
    }
}

/// The operations of a scenario, written once for ``DaemonScenario`` and every suite's scenario
/// that holds one (`core`). Waits are woken by signals (``BusWaiter``), never by a fixed sleep;
/// a failed wait says what it waited for, with ``diagnostics``.
public protocol DaemonScenarioParts: Sendable {
    var core: DaemonScenario { get }
    /// What a failed wait shows (by default the daemon's log).
    var diagnostics: String { get }
    /// How long a wait may take before it fails (by default ``SafetyNet/wait``).
    var patience: Duration { get }
}

extension DaemonScenarioParts {
    public var diagnostics: String { "--- daemon log ---\n\(core.daemon.log.suffix(4000))" }
    public var patience: Duration { SafetyNet.wait }

    public var bus: PrivateBus { core.bus }
    public var nm: DBusMock { core.nm }
    public var client: Connection { core.client }
    public var device: String { core.device }
    public var daemon: DaemonProcess { core.daemon }
    public var waiter: BusWaiter { core.waiter }

    /// The daemon's object for wlan0.
    public var interfacePath: ObjectPath { HotspotContract.interfacePath(1) }

    /// Calls one of the mock's control methods (on NetworkManager's object unless `path` says).
    @discardableResult
    public func mock(_ member: String, _ body: [DBusValue], path: String = DaemonScenario.nmPath) async throws -> [DBusValue] {
        try await core.nm.mockCall(core.client, path: path, member, body)
    }

    /// Joins `ssid` through `accessPoint` as NetworkManager does (a saved profile is created the
    /// first time) and returns the profile's path.
    @discardableResult
    public func join(_ ssid: String, accessPoint: String = "ap1", profile: String? = nil,
                     active: String = "active\(Int.random(in: 0..<1_000_000))") async throws -> String {
        try await core.nm.joinWiFi(core.client, device: core.device, ssid: ssid, accessPoint: accessPoint, profile: profile, active: active)
    }

    /// Starts joining `ssid` and stops where NetworkManager runs its pre-up dispatcher scripts
    /// (IP_CHECK); ``finishJoin()`` announces ACTIVATED. Returns the profile's path.
    @discardableResult
    public func joinHeld(_ ssid: String, accessPoint: String = "ap1", active: String = "active\(Int.random(in: 0..<1_000_000))") async throws -> String {
        let name = ssid.lowercased()
        let settingsPath = "/org/freedesktop/NetworkManager/Settings/\(name)"
        let existing = try await core.client.call(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager/Settings",
                                                  interface: "org.freedesktop.NetworkManager.Settings", member: "ListConnections").first?.objectPaths ?? []
        if !existing.contains(where: { $0.rawValue == settingsPath }) {
            try await mock("AddWiFiConnection", [.string(core.device), .string(name), .string(ssid), ""])
        }
        try await core.nm.activateHeld(core.client, device: core.device, profile: settingsPath,
                                       accessPoint: "/org/freedesktop/NetworkManager/AccessPoint/\(accessPoint)", name: active)
        return settingsPath
    }

    /// NetworkManager announces the held join (``joinHeld(_:accessPoint:active:)``) as ACTIVATED.
    public func finishJoin() async throws { try await core.nm.finishActivation(core.client, device: core.device) }

    /// What NetworkManager's pre-up dispatcher script asks the daemon (`SettleJoin`, as root).
    public func settleJoin(_ interface: String = "wlan0", timeout: Duration = .seconds(70)) async throws -> String {
        try await manager(HotspotContract.Manager.settleJoin.name, [.string(interface)], timeout: timeout).first?.string ?? ""
    }

    /// How many times the daemon asked NetworkManager to check connectivity.
    public func networkManagerChecks() async throws -> Int {
        try await calls(DaemonScenario.nmPath).filter { $0.method == "CheckConnectivity" }.count
    }

    /// The device leaves its network.
    public func leave() async throws { try await mock("SetDeviceDisconnected", [.string(core.device)]) }

    /// A property of wlan0's object.
    public func property(_ name: String) async throws -> DBusValue? {
        try await core.client.call(destination: HotspotContract.busName, path: interfacePath, interface: "org.freedesktop.DBus.Properties",
                                   member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue), .string(name)]).first?.unwrapped
    }

    /// The network the interface is on, SSID and BSSID included (GetNetwork, as root): the
    /// `Network` property has neither (location data).
    public func network() async throws -> [String: DBusValue]? {
        try await core.client.call(destination: HotspotContract.busName, path: interfacePath, interface: HotspotContract.interfaceInterface,
                                   member: "GetNetwork").first?.varDict
    }

    /// Calls a method of the manager object as root (the client connection).
    @discardableResult
    public func manager(_ member: MemberName, _ body: [DBusValue] = [], timeout: Duration = SafetyNet.wait) async throws -> [DBusValue] {
        try await core.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                   interface: HotspotContract.managerInterface, member: member, body: body, timeout: timeout)
    }

    /// Runs a command on this bus as an unprivileged user (nobody, through setpriv), for
    /// authorisation tests (they need root).
    public func runAsNobody(_ arguments: [String]) async throws -> ManagedProcess.Result {
        try await core.bus.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments)
    }

    /// A property of the manager object.
    public func managerProperty(_ name: String) async throws -> DBusValue? {
        try await core.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                                   member: "Get", body: [.string(HotspotContract.managerInterface.rawValue), .string(name)]).first?.unwrapped
    }

    /// A string property of wlan0's object ("" when absent).
    public func string(_ name: String) async throws -> String { try await property(name)?.string ?? "" }

    /// wlan0's `State`.
    public func state() async throws -> String { try await string("State") }

    /// The methods the mock recorded on `path`.
    public func calls(_ path: String) async throws -> [(method: String, args: [DBusValue])] { try await core.nm.calls(core.client, path: path) }

    /// Whether NetworkManager was asked to disconnect the device.
    public func disconnected() async throws -> Bool { try await calls(core.device).contains { $0.method == "Disconnect" } }

    /// Waits until the daemon publishes wlan0 (woken by its `Interfaces` announcements).
    public func waitForInterface() async throws {
        try await core.waiter.until("the daemon publishes wlan0", timeout: patience, context: { diagnostics }) {
            (try? await managerProperty("Interfaces"))?.objectPaths?.contains(interfacePath) == true
        }
    }

    /// Waits until `condition` holds, woken by the daemon's and the mock's signals and the
    /// daemon's log (and whatever else the scenario's waiter follows); fails after `timeout`
    /// (by default ``patience``) with ``diagnostics``.
    public func waitUntil(_ what: String, timeout: Duration? = nil, _ condition: () async throws -> Bool) async throws {
        try await core.waiter.until(what, timeout: timeout ?? patience, context: { diagnostics }, condition)
    }

    /// Whether `condition` held throughout `window`, checked after every change the waiter sees:
    /// for "nothing happens" checks (no Update call, no second profile), whose window no signal
    /// can end sooner.
    public func holdsThroughout(_ window: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        try await core.waiter.holdsThroughout(window, condition)
    }

    /// Waits until wlan0's `State` is `state` (and its `Connectivity` is `connectivity`, when
    /// given), woken by PropertiesChanged.
    public func waitFor(state: String, connectivity: String? = nil, timeout: Duration? = nil) async throws {
        var last = ""
        try await core.waiter.until("State \(state)\(connectivity.map { ", Connectivity \($0)" } ?? "")", timeout: timeout ?? patience,
                                    context: { "State stayed \(last)\n\(diagnostics)" }) {
            let s = try await self.state()
            last = s
            guard s == state else { return false }
            guard let connectivity else { return true }
            return try await string("Connectivity") == connectivity
        }
    }

    /// The same, for the common case: `waitFor("authenticated")`.
    public func waitFor(_ state: String, timeout: Duration? = nil) async throws {
        try await waitFor(state: state, connectivity: nil, timeout: timeout)
    }

    /// Waits until NetworkManager was asked to disconnect the device (the mock's MethodCalled).
    public func waitForDisconnect(timeout: Duration? = nil) async throws {
        try await core.waiter.until("the daemon disconnects the device", timeout: timeout ?? patience, context: { diagnostics }) {
            try await disconnected()
        }
    }

    /// Every value wlan0's string property `name` takes over `window`: the value at the start,
    /// then each one announced by PropertiesChanged. For "it stays so" checks: unlike sampling,
    /// a change that is undone at once is seen too.
    public func values(of name: String, over window: Duration) async throws -> [String] {
        let announced = try await watch(name)
        let first = try await string(name)
        try? await Task.sleep(for: window)
        return [first] + (await announced.stop())
    }

    /// Stops NetworkManager (SIGKILL) and waits until it is off the bus.
    public func stopNetworkManager() async throws {
        core.nm.process.send(SIGKILL)
        _ = await core.nm.process.waitForExit()
        try await core.bus.waitForNameGone("org.freedesktop.NetworkManager")
    }
}
