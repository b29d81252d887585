// SPDX-License-Identifier: Apache-2.0
import HotspotCore
@testable import HotspotDaemon
import HotspotProtocol
import Testing

/// The words the daemon publishes for the core's typed values, made beside the published
/// interface (what scripts, the Shell extension and hotspotctl read): `Reason`'s text
/// (``InterfaceReason/wireText``, the explanation mark, its bounds), `CommandCompleted`'s result
/// (``CommandCompletion/wireName``), `Status`, and SettleJoin's answers.
@Suite struct PublishedWordsTests {
    @Test func anExplanationStartsWithTheMarkAndKeepsTheHelpersLastReasonAfterIt() {
        let said = InterfaceReason(helperSaid: "the portal wants a room number")
        #expect(said.wireText == "the portal wants a room number")
        let explained = said.explaining("sign-in failed; autoconnect is off")
        #expect(explained.wireText == "hotspot-helperd: sign-in failed; autoconnect is off; its last answer: the portal wants a room number")
        #expect(explained.explaining("again").wireText == "hotspot-helperd: again")
        #expect(InterfaceReason.none.explaining("no helper").wireText == "hotspot-helperd: no helper")
        #expect(InterfaceReason(helperSaid: nil).wireText == "")
        #expect(HotspotContract.explanationMark == "hotspot-helperd: ")
    }

    @Test func aHelperCannotPassItsWordsOffAsTheDaemonsExplanation() {
        // Told apart by its case, not by the text: the helper's reason stays quoted after the next explanation.
        let forged = InterfaceReason(helperSaid: "hotspot-helperd: all is well")
        #expect(forged.explaining("failed").wireText == "hotspot-helperd: failed; its last answer: hotspot-helperd: all is well")
    }

    @Test func aReasonIsBoundedAfterEscaping() {
        // What the wire decoder publishes for 4,096 bytes of U+202E: 300 scalars, each escaped.
        let escaped = UntrustedText.forLog(String(repeating: "\u{202E}", count: 1365), limit: 300)
        #expect(escaped.unicodeScalars.count > 2000)
        let helper = InterfaceReason(helperSaid: escaped).wireText
        #expect(helper.unicodeScalars.count <= InterfaceReason.maximumHelperWords, "\(helper.unicodeScalars.count)")
        #expect(helper.hasSuffix("\\u{202E}…"), "cut after a whole escape, not inside one: \(helper.suffix(20))")
        let explained = InterfaceReason(helperSaid: escaped).explaining(String(repeating: "x", count: 2000)).wireText
        #expect(explained.unicodeScalars.count <= InterfaceReason.maximumPublished)
        #expect(explained.hasPrefix(HotspotContract.explanationMark))
        // Short reasons are as they were.
        #expect(InterfaceReason(helperSaid: "signed in").wireText == "signed in")
    }

    @Test func commandCompletionsKeepTheirWireWords() {
        #expect(CommandCompletion.cancelled.wireName == "cancelled")
        #expect(CommandCompletion.timedOut.wireName == "timed-out")
        #expect(CommandCompletion.helperLeft.wireName == "helper-left")
        #expect(CommandCompletion.answered(.uiRequired).wireName == CommandResult.uiRequired.rawValue)
    }

    @Test func managerStatusHasItsWords() {
        #expect(BusPublisher.wire(ManagerStatus.Value.determining) == "determining")
        #expect(BusPublisher.wire(ManagerStatus.Value.notConnected) == "not-connected")
        #expect(BusPublisher.wire(ManagerStatus.Value.connected) == "connected")
        #expect(BusPublisher.wire(ManagerStatus.Value.connectedVia(.wifi, internet: true)) == "connected-via-wifi")
        #expect(BusPublisher.wire(ManagerStatus.Value.connectedVia(.ethernet, internet: false)) == "connected-via-ethernet-without-internet")
        #expect(BusPublisher.wire(ManagerStatus.Value.connectedVia(.cellular, internet: true)) == "connected-via-cellular")
    }

    /// NetworkManager's pre-up dispatcher script and the journal read these.
    @Test func settleJoinOutcomesKeepTheirWords() {
        #expect(JoinHoldOutcome.allCases.map(\.wireWord) == ["signed-in", "no-helper", "needs-user", "failed", "left", "timed-out", "not-joining"])
    }
}
