// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import Testing

/// A probe as the policy sees it: its URL, and whether it is NetworkManager's.
struct TestProbe: ProbeEndpoint {
    var url: String
    var isNetworkManagers = false

    static let builtInSet = [TestProbe(url: "http://vendor-a.example/generate_204"), TestProbe(url: "https://vendor-b.example/hotspot")]
    static func networkManagerProbe(uri: String) -> TestProbe { TestProbe(url: uri, isNetworkManagers: true) }
}

/// The pure probe policy: which endpoints, and whether periodically, for each
/// combination of `[connectivity] probes=` and NetworkManager's connectivity-check settings.
@Suite("Probe privacy policy")
struct ProbePolicyTests {
    typealias ProbePolicy = HotspotCore.ProbePolicy<TestProbe>
    static let mine = [TestProbe(url: "http://check.example.org/generate_204")]
    static let nmURI = "http://nm.example.net/check_network_status.txt"
    typealias NM = NetworkManagerCheck

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
        #expect(p.probes == [TestProbe(url: Self.nmURI, isNetworkManagers: true)])
        #expect(!p.periodic)
        #expect(p.source == .networkManager)
        #expect(!p.probes.contains { TestProbe.builtInSet.map(\.url).contains($0.url) }, "no third party")
    }

    @Test func optedOutWithNothingConfiguredFallsBackToTheBuiltInSetOnlyWhileSigningIn() {
        let p = ProbePolicy.decide(configured: nil, networkManager: NM(enabled: false, uri: ""))
        #expect(p.probes == TestProbe.builtInSet)
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
            #expect(p.probes == TestProbe.builtInSet)
            #expect(p.periodic)
            #expect(p.source == .builtIn)
        }
    }

    @Test func networkManagerSilentKeepsTheOldBehaviour() {
        #expect(ProbePolicy.decide(configured: nil, networkManager: nil) == ProbePolicy(probes: TestProbe.builtInSet, periodic: true,
                                                                                         source: .builtIn, networkManager: nil))
        #expect(ProbePolicy.decide(configured: Self.mine, networkManager: nil).periodic)
        #expect(ProbePolicy.decide(configured: nil, networkManager: nil).explanation.contains("NetworkManager does not say"))
        // An empty probes= list is refused by the loader; as a value it means "not configured".
        #expect(ProbePolicy.decide(configured: [], networkManager: nil).source == .builtIn)
    }
}
