// SPDX-License-Identifier: Apache-2.0
import Connectivity
import Foundation
import HotspotCore
@testable import HotspotDaemon
import Testing

/// The daemon's probes under the core's ``ProbePolicy``: NetworkManager's endpoint judged as
/// NetworkManager judges it, the built-in set when nothing names one.
@Suite struct ProbePrivacyTests {
    static let nmURI = "http://nm.example.net/check_network_status.txt"

    @Test func withNothingNamedTheDaemonProbesItsBuiltInSet() {
        #expect(ConnectivityProbePolicy.decide(configured: nil, networkManager: nil).probes == ConnectivityProbe.defaultSet)
    }

    /// NetworkManager's URI is judged as NetworkManager judges it.
    @Test func networkManagersProbeAcceptsWhatNetworkManagerAccepts() {
        let probe = ConnectivityProbePolicy.probe(networkManagerURI: Self.nmURI)
        #expect(probe.expectation.isMet(by: HTTPAnswer(status: 200, headers: [HTTPField("X-NetworkManager-Status", "online")], body: Data("x".utf8), url: Self.nmURI)))
        #expect(probe.expectation.isMet(by: HTTPAnswer(status: 200, headers: [], body: Data("NetworkManager is online\n".utf8), url: Self.nmURI)))
        #expect(probe.expectation.isMet(by: HTTPAnswer(status: 204, headers: [], body: Data(), url: Self.nmURI)))
        #expect(!probe.expectation.isMet(by: HTTPAnswer(status: 200, headers: [], body: Data("<html>Sign in</html>".utf8), url: Self.nmURI)))
        #expect(!probe.expectation.isMet(by: HTTPAnswer(status: 302, headers: [HTTPField("Location", "http://portal/")], body: Data(), url: Self.nmURI)))
    }
}
