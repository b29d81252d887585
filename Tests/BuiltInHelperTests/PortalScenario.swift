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
/// at the simulator (so nothing leaves loopback), `bind-interface=false`; profiles that send
/// credentials to the plain-http simulator say `plain-http-login=true`.
/// Optionally TLS in front of the simulator (socat, a test CA) for RFC 8908.
struct PortalScenario: DaemonScenarioParts, TestWorld {
    static let nmPath = DaemonScenario.nmPath
    let core: DaemonScenario
    let sim: PortalSimulator
    let simPort: UInt16
    let dns: SimulatorDNS
    let profiles: ProfilesDirectory
    let tls: TLSFront?

    typealias AP = MockAccessPoint

    /// Probes of four vendors at the simulator, resolved through its DNS.
    static func probes(port: UInt16) -> String { SimulatedPortal.probes(port: port) }

    /// Starts everything, runs `body` in it and stops it, waiting until it has stopped, also when
    /// `body` throws. `profile` is the text of one profile file (mode 0600); `{TLS}` in it is
    /// replaced by the TLS front's port.
    static func run<Result>(_ config: PortalSimulatorConfiguration, profile: String = "", tls useTLS: Bool = false,
                            accessPoints: [AP] = [AP(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01"),
                                                  AP(name: "ap2", ssid: "Office", bssid: "0A:00:00:00:00:02", secure: true)],
                            connectivity extra: [String: String] = [:], settings: [String: String] = [:],
                            probes probeSet: ((UInt16) -> String)? = nil,
                            beforeDaemon: (DBusMock, Connection, UInt16) async throws -> Void = { _, _, _ in },
                            _ body: (PortalScenario) async throws -> Result) async throws -> Result {
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
        var c = ["probes": probeSet?(port) ?? probes(port: port), "dns-servers": "127.0.0.1:\(dns.port)", "bind-interface": "false",
                 "probe-timeout": "3", "interval": "30"]
        if let tls { c["ca-file"] = tls.caFile }
        for (k, v) in extra { c[k] = v }
        c = c.filter { !$0.value.isEmpty }  // "" leaves the key out
        var s = ["command-timeout": "10", "filter-interval": "0.2", "maintain-interval": "300", "profiles-dir": profiles.path]
        for (k, v) in settings { s[k] = v }
        let core = try await DaemonScenario(accessPoints: accessPoints, settings: s, connectivity: c) { nm, client in
            try await beforeDaemon(nm, client, port)
        }
        // Conditions on what clients did at the simulator are woken by its events.
        sim.onEvent { [waiter = core.waiter] in waiter.bump() }
        return try await PortalScenario(core: core, sim: sim, simPort: port, dns: dns, profiles: profiles, tls: tls).run(body)
    }

    /// Stops the daemon and waits until it has exited, then everything else.
    func stop() async {
        await core.stop()
        dns.stop()
        await sim.stop()
        tls?.stop()
        profiles.remove()
    }

    /// What a failed wait shows: the simulator's events and the daemon's log.
    var diagnostics: String {
        "--- simulator ---\n\(sim.events().map { "\($0.kind) \($0.method) \($0.path) \($0.detail)" }.joined(separator: "\n"))\n--- daemon log ---\n\(daemon.log.suffix(6000))"
    }

    /// The kinds of what clients did at the simulator.
    var events: [String] { sim.events().map(\.kind) }

    /// With no profile, the built-in portal helper alone signs into `config`'s portal: State
    /// authenticated, Connectivity full, Helper "Portal", and the simulator recorded `event`.
    static func expectThePortalHelperAloneSignsIn(_ config: PortalSimulatorConfiguration, recording event: String,
                                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await run(config) { s in
            try await s.join("CityFree")
            try await s.waitFor(state: "authenticated", connectivity: "full")
            #expect(try await s.string("Helper") == "Portal", sourceLocation: sourceLocation)
            #expect(s.events.contains(event), "\(s.diagnostics)", sourceLocation: sourceLocation)
        }
    }

    func checkConnectivity() async throws -> [String: DBusValue] {
        try await client.call(destination: HotspotContract.busName, path: interfacePath, interface: HotspotContract.interfaceInterface,
                              member: "CheckConnectivity").first?.varDict ?? [:]
    }
}

/// The end-to-end suites of this target, in two chains of one test at a time: each test runs a
/// bus, a mock NetworkManager, a daemon and a simulator, and the timing-sensitive suites elsewhere
/// must stay honest on 2 cores. The gateways' suites (slow, refusing and one-at-a-time gateways,
/// sessions that expire, the RFC 8908 API's sessions) mostly wait on the simulator's delays, so
/// they are a chain of their own beside the others rather than minutes added to one chain.
@Suite(.serialized) struct DaemonEndToEnd {}
@Suite(.serialized) struct GatewayEndToEnd {}
