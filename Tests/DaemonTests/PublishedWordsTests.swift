// SPDX-License-Identifier: Apache-2.0
import HotspotCore
@testable import HotspotDaemon
import HotspotProtocol
import Testing

/// The words the daemon publishes for the core's typed values: what scripts, the Shell extension
/// and hotspotctl read.
@Suite struct PublishedWordsTests {
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
