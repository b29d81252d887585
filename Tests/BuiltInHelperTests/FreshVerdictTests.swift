// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import HotspotCore
import PortalSimulator
import Testing

@testable import HotspotDaemon

/// The verdict a helper asks for after signing in must not be the check that was already under
/// way. Found by the lab against real NetworkManager on an RFC 8908 network: the schedule's
/// check, started before the accept and still waiting for the API, answered "still behind the
/// portal", and a successful sign-in became a failure with autoconnect switched off.
struct FreshVerdictTests {
    @Test func aFreshVerdictComesFromACheckStartedAfterItWasAskedFor() async throws {
        // The probe reaches the click-through portal at once; the RFC 8908 API (over TLS) never
        // answers, so every check stays under way until the transfer timeout.
        let sim = PortalSimulator(configuration: PortalSimulatorConfiguration(mode: .clickThrough, blackholeHosts: ["capport.test"]))
        let port = try await sim.start()
        let tls = try await TLSFront.start(forwardingTo: port)
        defer { tls.stop() }
        let dns = try SimulatorDNS(host: "127.0.0.1", port: 0, answer: "127.0.0.1")
        defer { dns.stop() }
        var settings = ConnectivitySettings()
        // The probe names the simulator by address: a check whose probe failed (a DNS answer that
        // came late on a loaded machine: make test-loaded saw it once) reads "none", and the
        // portal seen since the join stays published over a "none" (JoinPatience), so it would
        // look like the stale verdict this test is about.
        settings.probes = [ConnectivityProbe(url: "http://127.0.0.1:\(port)/generate_204", expectation: .status(204))]
        settings.bindInterface = false
        settings.caFile = tls.caFile
        // Long enough for the fresh check's probe to reach the simulator on a busy machine (at
        // 1.5 s a loaded run timed it out and the verdict stayed "portal"); every check still
        // waits this long for the blackholed API, which is what keeps the first one under way.
        settings.probeTimeout = .seconds(10)
        let dnsServer = "127.0.0.1:\(dns.port)"
        let api = "https://capport.test:\(tls.port)/api/captive"
        let monitor = ConnectivityMonitor(settings: settings, dnsLookup: { _ in [dnsServer] }, capportURL: { _ in api })

        let requests = Changes()
        sim.onEvent { requests.bump() }
        await monitor.joined("lab0", ssid: SSID(bytes: Array("CapNet".utf8)), link: 1)
        // The schedule's first check is under way once the portal has answered its probe.
        try await requests.until("the first check reaches the portal") {
            sim.events().contains { $0.kind == "probe-portal" }
        }
        sim.signIn("127.0.0.1")
        let after = await monitor.verdict(for: "lab0", fresh: true)
        #expect(after.state != .portal, "the fresh verdict is the check started before the sign-in: \(after.reason)")
        #expect(sim.events().contains { $0.kind == "probe-online" }, "no check probed after the sign-in")
        await monitor.left("lab0")
        await sim.stop()
    }
}

/// The WISPr client's starting probe follows the probe policy in force, not the one at start:
/// NetworkManager's connectivity URI may be set (or changed) while the daemon runs, and the
/// sign-in must then start from that endpoint, not from the built-in set's third party.
struct WISPrProbeFollowsThePolicyTests {
    @Test func theWISPrProbeURLFollowsNetworkManagersConnectivityURI() async throws {
        var settings = ConnectivitySettings()
        settings.bindInterface = false
        let monitor = ConnectivityMonitor(settings: settings, dnsLookup: { _ in [] }, capportURL: { _ in nil })
        let environment = DaemonPortalEnvironment(monitor: monitor, settings: settings)
        #expect(await environment.wisprProbeURL == ConnectivityProbe.defaultSet.first { !$0.isHTTPS }?.url)
        _ = await monitor.follow(networkManager: NetworkManagerCheck(enabled: true, uri: "http://nm-check.example/check"))
        #expect(await environment.wisprProbeURL == "http://nm-check.example/check")
        _ = await monitor.follow(networkManager: NetworkManagerCheck(enabled: false, uri: "https://nm-check.example/secure"))
        #expect(await environment.wisprProbeURL == "https://nm-check.example/secure", "no http probe: the policy's own, not a third party's")
    }
}
