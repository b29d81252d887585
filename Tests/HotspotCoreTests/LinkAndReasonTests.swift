// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// Interface and link numbers (``LinkNumbering``), how `Reason` is composed (``InterfaceReason``)
/// and how a command's end is named (``CommandCompletion``).
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
        #expect(said.text == "the portal wants a room number")
        let explained = said.explaining("sign-in failed; autoconnect is off")
        #expect(explained.text == "hotspot-helperd: sign-in failed; autoconnect is off; its last answer: the portal wants a room number")
        #expect(explained.explaining("again").text == "hotspot-helperd: again")
        #expect(InterfaceReason.none.explaining("no helper").text == "hotspot-helperd: no helper")
        #expect(InterfaceReason(helperSaid: "") == .none)
        #expect(InterfaceReason(helperSaid: nil).text == "")
    }

    @Test func aHelperCannotPassItsWordsOffAsTheDaemonsExplanation() {
        // Told apart by its case, not by the text: the helper's reason stays quoted after the next explanation.
        let forged = InterfaceReason(helperSaid: "hotspot-helperd: all is well")
        #expect(forged.explaining("failed").text == "hotspot-helperd: failed; its last answer: hotspot-helperd: all is well")
    }

    @Test func commandCompletionsKeepTheirWireWords() {
        #expect(CommandCompletion.cancelled.wireName == "cancelled")
        #expect(CommandCompletion.timedOut.wireName == "timed-out")
        #expect(CommandCompletion.helperLeft.wireName == "helper-left")
        #expect(CommandCompletion.answered(.uiRequired).wireName == CommandResult.uiRequired.rawValue)
    }
}
