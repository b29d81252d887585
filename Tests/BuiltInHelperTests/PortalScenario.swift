// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Synchronization
import Testing

/// An end-to-end scenario for the built-in helpers: a private bus, python-dbusmock's
/// NetworkManager with a Wi-Fi device, the portal simulator (in process, on loopback) with its DNS
/// answering every name with 127.0.0.1, a profiles directory, and the daemon configured with probes
/// at the simulator (so nothing leaves loopback), `bind-interface=false`, plain-http logins allowed.
/// Optionally TLS in front of the simulator (socat, a test CA) for RFC 8908.
struct PortalScenario {
    static let nmPath = "/org/freedesktop/NetworkManager"
    let bus: PrivateBus
    let nm: DBusMock
    let client: Connection
    let device: String
    let daemon: DaemonProcess
    let sim: PortalSimulator
    let simPort: UInt16
    let dns: SimulatorDNS
    let profiles: ProfilesDirectory
    let tls: TLSFront?
    /// Wakes ``waitFor(state:connectivity:timeout:)`` and ``waitForDisconnect()`` on every signal
    /// of the daemon and of the mock.
    let waiter: BusWaiter

    typealias AP = MockAccessPoint

    /// Probes of four vendors at the simulator, resolved through its DNS.
    static func probes(port: UInt16) -> String {
        [
            "http://connectivitycheck.gstatic.com:\(port)/generate_204 status=204",
            "http://captive.apple.com:\(port)/hotspot-detect.html contains=Success",
            "http://www.msftconnecttest.com:\(port)/connecttest.txt equals=Microsoft Connect Test",
            "http://nmcheck.gnome.org:\(port)/check_network_status.txt header=X-NetworkManager-Status:online",
        ].joined(separator: ";")
    }

    /// Starts everything. `profile` is the text of one profile file (mode 0600); `{TLS}` in it is
    /// replaced by the TLS front's port.
    static func start(_ config: PortalSimulatorConfiguration, profile: String = "", tls useTLS: Bool = false,
                      accessPoints: [AP] = [AP(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01"),
                                            AP(name: "ap2", ssid: "Office", bssid: "0A:00:00:00:00:02", secure: true)],
                      connectivity extra: [String: String] = [:], settings: [String: String] = [:],
                      probes probeSet: ((UInt16) -> String)? = nil,
                      beforeDaemon: (DBusMock, Connection, UInt16) async throws -> Void = { _, _, _ in }) async throws -> PortalScenario {
        var config = config
        // The simulator must know its TLS port before it starts (user-portal-url).
        var tls: TLSFront?
        let sim: PortalSimulator
        let port: UInt16
        if useTLS {
            let placeholder = PortalSimulator(configuration: config)
            let p = try await placeholder.start()
            await placeholder.stop()
            let front = try await TLSFront.start(forwardingTo: p)
            config.httpsBase = "https://capport.test:\(front.port)"
            sim = PortalSimulator(configuration: config)
            port = try await sim.start(port: p)
            tls = front
        } else {
            sim = PortalSimulator(configuration: config)
            port = try await sim.start()
        }
        let dns = try SimulatorDNS(host: "127.0.0.1", port: 0, answer: "127.0.0.1")
        let profiles = try ProfilesDirectory()
        if !profile.isEmpty {
            try profiles.write("test.conf", profile.replacingOccurrences(of: "{TLS}", with: "\(tls?.port ?? 0)"))
        }
        let bus = try await PrivateBus()
        let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        let client = try bus.connect()
        try await beforeDaemon(nm, client, port)
        let device = try await nm.setUpWiFi(client, accessPoints: accessPoints)
        var c = ["probes": probeSet?(port) ?? probes(port: port), "dns-servers": "127.0.0.1:\(dns.port)", "bind-interface": "false",
                 "allow-plain-http-login": "true", "probe-timeout": "3", "interval": "30"]
        if let tls { c["ca-file"] = tls.caFile }
        for (k, v) in extra { c[k] = v }
        c = c.filter { !$0.value.isEmpty }  // "" leaves the key out
        var s = ["command-timeout": "10", "filter-interval": "0.2", "maintain-interval": "300", "profiles-dir": profiles.path]
        for (k, v) in settings { s[k] = v }
        let daemon = try await DaemonProcess.start(on: bus, settings: s, connectivity: c)
        let waiter = try await BusWaiter.daemonAndNetworkManager(client)
        let scenario = PortalScenario(bus: bus, nm: nm, client: client, device: device, daemon: daemon, sim: sim, simPort: port, dns: dns,
                                      profiles: profiles, tls: tls, waiter: waiter)
        try await scenario.waitUntil("the daemon publishes wlan0") {
            try await scenario.managerProperty("Interfaces")?.objectPaths?.contains(scenario.interfacePath) == true
        }
        return scenario
    }

    func stop() async {
        daemon.process.stop()
        dns.stop()
        await sim.stop()
        tls?.stop()
        profiles.remove()
        nm.stop()
        bus.stop()
    }

    var interfacePath: ObjectPath { HotspotContract.interfacePath(1) }

    func mock(_ member: String, _ body: [DBusValue]) async throws -> [DBusValue] {
        try await nm.mockCall(client, path: Self.nmPath, member, body)
    }

    /// Joins `ssid` through access point `accessPoint` (a saved profile is created).
    func join(_ ssid: String, accessPoint: String = "ap1") async throws {
        try await nm.joinWiFi(client, device: device, ssid: ssid, accessPoint: accessPoint)
    }

    func property(_ name: String) async throws -> DBusValue? {
        try await client.call(destination: HotspotContract.busName, path: interfacePath, interface: "org.freedesktop.DBus.Properties",
                              member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue), .string(name)]).first?.unwrapped
    }

    func managerProperty(_ name: String) async throws -> DBusValue? {
        try await client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                              member: "Get", body: [.string(HotspotContract.managerInterface.rawValue), .string(name)]).first?.unwrapped
    }

    func string(_ name: String) async throws -> String { try await property(name)?.string ?? "" }

    /// What a failed wait shows: the simulator's events and the daemon's log.
    var diagnostics: String {
        "--- simulator ---\n\(sim.events().map { "\($0.kind) \($0.method) \($0.path) \($0.detail)" }.joined(separator: "\n"))\n--- daemon log ---\n\(daemon.log.suffix(6000))"
    }

    /// Polls `condition` until it holds, for what the bus does not announce (the simulator's
    /// events, the daemon's log); fails with the daemon's log and the simulator's events.
    func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestKitError.timeout("\(what): not within \(timeout)\n\(diagnostics)")
    }

    /// Waits until `State` (and `Connectivity`) read as given, woken by PropertiesChanged.
    func waitFor(state: String, connectivity: String? = nil, timeout: Duration = .seconds(20)) async throws {
        try await waiter.until("State \(state)\(connectivity.map { ", Connectivity \($0)" } ?? "")", timeout: timeout, context: { diagnostics }) {
            let s = try await string("State")
            let c = try await string("Connectivity")
            return s == state && (connectivity == nil || c == connectivity)
        }
    }

    /// Waits until NetworkManager was asked to disconnect the device (the mock's MethodCalled).
    func waitForDisconnect(timeout: Duration = .seconds(20)) async throws {
        try await waiter.until("the daemon disconnects", timeout: timeout, context: { diagnostics }) { try await disconnected() }
    }

    /// The kinds of what clients did at the simulator.
    var events: [String] { sim.events().map(\.kind) }

    /// Whether NetworkManager was asked to disconnect the device.
    func disconnected() async throws -> Bool {
        try await nm.calls(client, path: device).contains { $0.method == "Disconnect" }
    }

    func checkConnectivity() async throws -> [String: DBusValue] {
        try await client.call(destination: HotspotContract.busName, path: interfacePath, interface: HotspotContract.interfaceInterface,
                              member: "CheckConnectivity").first?.varDict ?? [:]
    }
}

/// Every end-to-end suite of this target, one test at a time: each runs a bus, a mock
/// NetworkManager, a daemon and a simulator, and the timing-sensitive suites elsewhere must stay
/// honest on 2 cores.
@Suite(.serialized) struct DaemonEndToEnd {}
