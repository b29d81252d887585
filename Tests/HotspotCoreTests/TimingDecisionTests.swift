// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: deadlines and configurable timings.
@Suite struct TimingDecisionTests {
    // Deadline 45 s for evaluate, authenticate, maintain and logoff; present-ui has none.
    @Test func evaluateAuthenticateMaintainAndLogoffHaveAFortyFiveSecondDeadline() {
        var h = TransitionTableTests.evaluating()
        #expect(h.sentInLastStep.map(\.deadline) == [.seconds(45), .seconds(45)])
        #expect(h.armedTimers(.commandDeadline(h.sentInLastStep[0].token)) == [h.now + .seconds(45)])
        h.answer("alpha", .evaluate, confidence: .high)
        #expect(h.request("alpha", .authenticate)?.deadline == .seconds(45))
        h.answer("alpha", .authenticate)
        h.advance(by: .seconds(300))
        #expect(h.request("alpha", .maintain)?.deadline == .seconds(45))
        h.answer("alpha", .maintain)
        h.send(.logoffRequested("wlan0", by: .user))
        #expect(h.request("alpha", .logoff)?.deadline == .seconds(45))
    }

    @Test func everyTimingIsConfigurable() {
        let configuration = HotspotConfiguration(
            maintainInterval: .seconds(60), commandDeadline: .seconds(10), filterScanListInterval: .seconds(1),
            filterScanListDeadline: .seconds(3), unresponsiveThreshold: 1, unresponsiveEvaluateDeadline: .milliseconds(500))
        var h = Harness(configuration)
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("Cafe")]))
        #expect(h.request("alpha", .filterScanList)?.deadline == .seconds(3))
        h.join()
        #expect(h.request("alpha", .evaluate)?.deadline == .seconds(10))
        h.advance(by: .seconds(10))
        #expect(h.core.isUnresponsive("alpha"))
        h.send(.connectivityLost("wlan0"))
        h.join()
        #expect(h.request("alpha", .evaluate)?.deadline == .milliseconds(500))
        h.answer("alpha", .evaluate, confidence: .high)
        h.answer("alpha", .authenticate)
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(60)])
    }

    @Test func staleTimerFiringIsIgnored() {
        var h = TransitionTableTests.authenticated()
        let stale = h.timers.keys.first { $0.kind == .maintain }!
        h.send(.connectivityLost("wlan0"))
        h.send(.timerFired(stale))
        #expect(h.state() == .inactive)
        #expect(h.sentInLastStep.isEmpty)
    }
}
