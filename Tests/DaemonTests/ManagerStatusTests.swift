// SPDX-License-Identifier: Apache-2.0
import HotspotCore
@testable import HotspotDaemon
import NetworkManager
import Testing

/// The manager's `Status`: one pure function of NetworkManager's primary connection and the
/// daemon's Wi-Fi verdicts.
@Suite struct ManagerStatusTests {
    let wlan = InterfaceID("wlan0")
    let eth = InterfaceID("eth0")

    func status(_ type: String?, _ interface: InterfaceID?, _ nm: Connectivity, verdicts: [InterfaceID: LinkConnectivity] = [:]) -> String {
        BusPublisher.wire(ManagerStatus.compute(primary: ManagerStatus.Primary(type: type, interface: interface, connectivity: nm)) { verdicts[$0] })
    }

    @Test func withoutNetworkManagerItIsDetermining() {
        #expect(ManagerStatus.compute(primary: nil) { _ in .full } == .determining)
    }

    @Test func theDaemonsVerdictDecidesForWiFi() {
        // NetworkManager says full, but the daemon found a portal: the daemon's verdict wins.
        #expect(status("802-11-wireless", wlan, .full, verdicts: [wlan: .portal]) == "connected-via-wifi-without-internet")
        #expect(status("802-11-wireless", wlan, .portal, verdicts: [wlan: .full]) == "connected-via-wifi")
        #expect(status("802-11-wireless", wlan, .limited, verdicts: [wlan: .limited]) == "connected-via-wifi-without-internet")
        // Not checked yet, or the verdict is for another interface: NetworkManager's view.
        #expect(status("802-11-wireless", wlan, .full, verdicts: [wlan: .unknown]) == "connected-via-wifi")
        #expect(status("802-11-wireless", wlan, .portal, verdicts: [eth: .full]) == "connected-via-wifi-without-internet")
    }

    @Test func otherMediaFollowNetworkManager() {
        #expect(status("802-3-ethernet", eth, .full, verdicts: [eth: .none]) == "connected-via-ethernet")
        #expect(status("802-3-ethernet", eth, .limited) == "connected-via-ethernet-without-internet")
        #expect(status("gsm", nil, .full) == "connected-via-cellular")
        #expect(status("vpn", nil, .full) == "connected")
        #expect(status("vpn", nil, .none) == "not-connected")
        #expect(status(nil, nil, .full) == "not-connected")
        #expect(status("802-3-ethernet", eth, .unknown) == "determining")
    }
}
