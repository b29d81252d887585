// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import Testing

/// The manager's `Status`: one pure function of NetworkManager's primary connection and the
/// daemon's Wi-Fi verdicts.
@Suite struct ManagerStatusTests {
    let wlan = InterfaceID("wlan0")
    let eth = InterfaceID("eth0")

    func status(_ type: String?, _ interface: InterfaceID?, _ nm: ManagerStatus.Connectivity,
                verdicts: [InterfaceID: ManagerStatus.Connectivity] = [:]) -> ManagerStatus.Value {
        ManagerStatus.compute(primary: ManagerStatus.Primary(type: type, interface: interface, connectivity: nm)) { verdicts[$0] }
    }

    @Test func withoutNetworkManagerItIsDetermining() {
        #expect(ManagerStatus.compute(primary: nil) { _ in .full } == .determining)
    }

    @Test func theDaemonsVerdictDecidesForWiFi() {
        // NetworkManager says full, but the daemon found a portal: the daemon's verdict wins.
        #expect(status("802-11-wireless", wlan, .full, verdicts: [wlan: .portal]) == .connectedVia(.wifi, internet: false))
        #expect(status("802-11-wireless", wlan, .portal, verdicts: [wlan: .full]) == .connectedVia(.wifi, internet: true))
        #expect(status("802-11-wireless", wlan, .limited, verdicts: [wlan: .limited]) == .connectedVia(.wifi, internet: false))
        // Not checked yet, or the verdict is for another interface: NetworkManager's view.
        #expect(status("802-11-wireless", wlan, .full, verdicts: [wlan: .unknown]) == .connectedVia(.wifi, internet: true))
        #expect(status("802-11-wireless", wlan, .portal, verdicts: [eth: .full]) == .connectedVia(.wifi, internet: false))
    }

    @Test func otherMediaFollowNetworkManager() {
        #expect(status("802-3-ethernet", eth, .full, verdicts: [eth: .none]) == .connectedVia(.ethernet, internet: true))
        #expect(status("802-3-ethernet", eth, .limited) == .connectedVia(.ethernet, internet: false))
        #expect(status("gsm", nil, .full) == .connectedVia(.cellular, internet: true))
        #expect(status("vpn", nil, .full) == .connected)
        #expect(status("vpn", nil, .none) == .notConnected)
        #expect(status(nil, nil, .full) == .notConnected)
        #expect(status("802-3-ethernet", eth, .unknown) == .determining)
    }
}
