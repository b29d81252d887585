// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: what counts as the same network: roaming, security class, SSID bytes, new associations.
@Suite struct NetworkIdentityDecisionTests {
    // Cache key: SSID bytes plus security class; roaming between BSSIDs keeps the helper.
    @Test func roamingToAnotherAccessPointOfTheNetworkKeepsTheHelperAndState() {
        var h = TransitionTableTests.authenticated()
        h.join(bssid: "aa:bb:cc:00:00:02")
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == "alpha")
        #expect(h.core.machine(for: "wlan0")?.network?.bssid == "aa:bb:cc:00:00:02")
        #expect(h.maintainTimerArmed())
    }

    @Test func theSameSSIDWithAnotherSecurityClassIsAnotherNetwork() {
        var h = TransitionTableTests.authenticated()
        h.send(.connectivityLost("wlan0"))
        h.join(security: .personal)
        #expect(h.state() == .evaluating)
        h.send(.connectivityLost("wlan0"))
        h.join(security: .open)
        #expect(h.state() == .maintaining)
    }

    @Test func ssidsAreComparedAsBytes() {
        var h = Harness(restoring: PersistentState(cache: NetworkCache(entries: [
            NetworkKey(ssid: SSID(bytes: [0x43, 0x61, 0x66, 0xE9]), securityClass: .open): .helper("alpha")
        ])))
        h.register("alpha")
        h.join("wlan0", "Café")
        #expect(h.state() == .evaluating)
        h.send(.connectivityLost("wlan0"))
        h.send(.connectivityGained("wlan0", network: Network(ssid: SSID(bytes: [0x43, 0x61, 0x66, 0xE9])), connection: "c"))
        #expect(h.state() == .maintaining)
    }

    @Test func joiningAnotherNetworkWithoutLosingConnectivityStartsAFreshAssociation() {
        var h = TransitionTableTests.authenticating()
        h.answer("alpha", .authenticate, .unsupportedNetwork)
        h.join("wlan0", "Library", connection: "conn-library")
        #expect(h.state() == .evaluating)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers.isEmpty == true)
        #expect(h.pendingCommands().map(\.helper) == ["alpha", "beta"])
    }
}
