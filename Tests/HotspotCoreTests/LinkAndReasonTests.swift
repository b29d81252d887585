// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// Interface and link numbers (``LinkNumbering``) and how `Reason` is composed (``InterfaceReason``);
/// the words they are published in are HotspotProtocol's (DaemonTests' `PublishedWordsTests`).
@Suite struct LinkAndReasonTests {
    @Test func anInterfaceKeepsItsNumberForTheDaemonsLife() {
        var n = LinkNumbering()
        #expect(n.number(for: "wlan0") == 1)
        #expect(n.number(for: "wlan1") == 2)
        n.left("wlan0")
        #expect(n.number(for: "wlan0") == 1)
        #expect(n.existingNumber(for: "wlan2") == nil)
    }

    @Test func eachAssociationIsALinkOfItsOwn() {
        var n = LinkNumbering()
        let cafe = SSID("Cafe"), library = SSID("Library")
        let first = n.joined("wlan0", ssid: cafe)
        // NetworkManager announcing the same join again: the same link.
        #expect(n.joined("wlan0", ssid: cafe) == first)
        // Another network without a leave: a new link.
        let second = n.joined("wlan0", ssid: library)
        #expect(second != first)
        n.left("wlan0")
        #expect(n.link("wlan0") == nil)
        // Back to the same network after a leave: a new link, so the old link's reports are stale.
        let third = n.joined("wlan0", ssid: library)
        #expect(third != second && third != first)
        #expect(n.joined("wlan1", ssid: cafe) != third)
    }

    @Test func anExplanationKeepsTheHelpersLastReasonAndReplacesAnEarlierExplanation() {
        let said = InterfaceReason(helperSaid: "the portal wants a room number")
        #expect(said == .helper("the portal wants a room number"))
        let explained = said.explaining("sign-in failed; autoconnect is off")
        #expect(explained == .explained("sign-in failed; autoconnect is off", lastAnswer: "the portal wants a room number"))
        #expect(explained.explaining("again") == .explained("again", lastAnswer: nil))
        #expect(InterfaceReason.none.explaining("no helper") == .explained("no helper", lastAnswer: nil))
        #expect(InterfaceReason(helperSaid: "") == .none)
        #expect(InterfaceReason(helperSaid: nil) == .none)
    }

    @Test func aHelperCannotPassItsWordsOffAsTheDaemonsExplanation() {
        // Told apart by its case, not by the text: the helper's reason stays quoted after the next explanation.
        let forged = InterfaceReason(helperSaid: "hotspot-helperd: all is well")
        #expect(forged == .helper("hotspot-helperd: all is well"))
        #expect(forged.explaining("failed") == .explained("failed", lastAnswer: "hotspot-helperd: all is well"))
    }
}
