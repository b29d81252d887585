// SPDX-License-Identifier: Apache-2.0
import Connectivity
import Foundation
@testable import HotspotDaemon
import Testing

/// The pure probe policy: which endpoints, and whether periodically, for each
/// combination of `[connectivity] probes=` and NetworkManager's connectivity-check settings.
@Suite("Probe privacy policy")
struct ProbePrivacyTests {
    static let mine = [ConnectivityProbe(url: "http://check.example.org/generate_204", expectation: .status(204))]
    static let nmURI = "http://nm.example.net/check_network_status.txt"
    typealias NM = ProbePolicy.NetworkManagerCheck

    @Test func configuredProbesAreUsedAloneAndPeriodicWhenNetworkManagerChecks() {
        let p = ProbePolicy.decide(configured: Self.mine, networkManager: NM(enabled: true, uri: Self.nmURI))
        #expect(p.probes == Self.mine)
        #expect(p.periodic)
        #expect(p.source == .configured)
        #expect(p.explanation == "probes: http://check.example.org/generate_204 ([connectivity] probes=; periodic checks)")
    }

    @Test func optedOutWithConfiguredProbesProbesThemOnlyWhileSigningIn() {
        let p = ProbePolicy.decide(configured: Self.mine, networkManager: NM(enabled: false, uri: Self.nmURI))
        #expect(p.probes == Self.mine, "the administrator's endpoints, not NetworkManager's")
        #expect(!p.periodic)
        #expect(p.explanation.contains("NetworkManager's connectivity check is off: probing only while joining, evaluating or signing in"))
    }

    @Test func optedOutWithoutConfiguredProbesUsesNetworkManagersURIOnlyWhileSigningIn() {
        let p = ProbePolicy.decide(configured: nil, networkManager: NM(enabled: false, uri: Self.nmURI))
        #expect(p.probes.map(\.url) == [Self.nmURI])
        #expect(!p.periodic)
        #expect(p.source == .networkManager)
        #expect(!p.probes.contains { ConnectivityProbe.defaultSet.map(\.url).contains($0.url) }, "no third party")
    }

    @Test func optedOutWithNothingConfiguredFallsBackToTheBuiltInSetOnlyWhileSigningIn() {
        let p = ProbePolicy.decide(configured: nil, networkManager: NM(enabled: false, uri: ""))
        #expect(p.probes == ConnectivityProbe.defaultSet)
        #expect(!p.periodic)
        #expect(p.explanation.contains("NetworkManager has no ConnectivityCheckUri"))
    }

    @Test func optedInWithoutConfiguredProbesUsesOnlyNetworkManagersURIPeriodically() {
        let p = ProbePolicy.decide(configured: nil, networkManager: NM(enabled: true, uri: "  \(Self.nmURI) "))
        #expect(p.probes.map(\.url) == [Self.nmURI])
        #expect(p.periodic)
        #expect(p.explanation == "probes: \(Self.nmURI) (NetworkManager's ConnectivityCheckUri; periodic checks)")
    }

    @Test func optedInWithoutAnyURIUsesTheBuiltInSetPeriodically() {
        for uri in ["", "not a url", "ftp://x/"] {
            let p = ProbePolicy.decide(configured: nil, networkManager: NM(enabled: true, uri: uri))
            #expect(p.probes == ConnectivityProbe.defaultSet)
            #expect(p.periodic)
            #expect(p.source == .builtIn)
        }
    }

    @Test func networkManagerSilentKeepsTheOldBehaviour() {
        #expect(ProbePolicy.decide(configured: nil, networkManager: nil) == ProbePolicy(probes: ConnectivityProbe.defaultSet, periodic: true,
                                                                                         source: .builtIn, networkManager: nil))
        #expect(ProbePolicy.decide(configured: Self.mine, networkManager: nil).periodic)
        #expect(ProbePolicy.decide(configured: nil, networkManager: nil).explanation.contains("NetworkManager does not say"))
        // An empty probes= list is refused by the loader; as a value it means "not configured".
        #expect(ProbePolicy.decide(configured: [], networkManager: nil).source == .builtIn)
    }

    /// NetworkManager's URI is judged as NetworkManager judges it.
    @Test func networkManagersProbeAcceptsWhatNetworkManagerAccepts() {
        let probe = ProbePolicy.probe(networkManagerURI: Self.nmURI)
        #expect(probe.expectation.isMet(by: HTTPAnswer(status: 200, headers: [HTTPField("X-NetworkManager-Status", "online")], body: Data("x".utf8), url: Self.nmURI)))
        #expect(probe.expectation.isMet(by: HTTPAnswer(status: 200, headers: [], body: Data("NetworkManager is online\n".utf8), url: Self.nmURI)))
        #expect(probe.expectation.isMet(by: HTTPAnswer(status: 204, headers: [], body: Data(), url: Self.nmURI)))
        #expect(!probe.expectation.isMet(by: HTTPAnswer(status: 200, headers: [], body: Data("<html>Sign in</html>".utf8), url: Self.nmURI)))
        #expect(!probe.expectation.isMet(by: HTTPAnswer(status: 302, headers: [HTTPField("Location", "http://portal/")], body: Data(), url: Self.nmURI)))
    }
}
