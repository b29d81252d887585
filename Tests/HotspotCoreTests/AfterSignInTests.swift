// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// The rules that follow what the core publishes (``AfterSignIn``): the re-checks after a
/// sign-in, the interface's `Reason`, a portal detected on the edge of the daemon's checks, the
/// session's end learnt from a check.
@Suite struct AfterSignInTests {
    func rechecks(_ effects: [HotspotEffect]) -> [Bool] {
        effects.compactMap { if case .recheckConnectivity("wlan0", let networkManager) = $0 { networkManager } else { nil } }
    }

    func reasons(_ effects: [HotspotEffect]) -> [InterfaceReason] {
        effects.compactMap { if case .setReason("wlan0", let reason) = $0 { reason } else { nil } }
    }

    // MARK: - Re-checks

    @Test func aSignInByTheChosenHelperRechecksNetworkManagerAndTheMonitorRightAfterItsState() {
        var h = TransitionTableTests.authenticating()
        let effects = h.answer("alpha", .authenticate)
        let published = effects.firstIndex { if case .publishState(let s) = $0 { s.state == .authenticated } else { false } }
        let recheck = effects.firstIndex(of: .recheckConnectivity("wlan0", networkManager: true))
        #expect(published != nil && recheck == published.map { $0 + 1 }, "\(effects)")
        #expect(rechecks(h.log) == [true], "only on entering authenticated")
    }

    @Test func aMaintainThatFoundTheSessionAliveRechecksOnlyTheMonitor() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: h.core.configuration.maintainInterval)
        #expect(h.state() == .maintaining)
        let effects = h.answer("alpha", .maintain)
        #expect(h.state() == .authenticated)
        #expect(rechecks(effects) == [false])
    }

    @Test func aNetworkNoHelperClaimedRechecksOnlyTheMonitor() {
        var h = TransitionTableTests.evaluating()
        h.answer("alpha", .evaluate, confidence: Confidence.none)
        let effects = h.answer("beta", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        #expect(rechecks(effects) == [false])
    }

    // MARK: - Reason

    @Test func theChosenHelpersWordsAreTheReasonAndAJoinClearsThem() {
        var h = TransitionTableTests.evaluating()
        // Evaluate is every helper's: its words are not the joined network's reason.
        #expect(reasons(h.answer("alpha", .evaluate, confidence: .high, reason: "I know this one")).isEmpty)
        let said = h.answer("alpha", .authenticate, reason: "signed in as guest")
        #expect(reasons(said) == [.helper("signed in as guest")])
        #expect(said.first == .setReason("wlan0", .helper("signed in as guest")), "before what the answer leads to")
        // The same words again change nothing published.
        h.advance(by: h.core.configuration.maintainInterval)
        #expect(reasons(h.answer("alpha", .maintain, reason: "signed in as guest")).isEmpty)
        h.send(.connectivityLost("wlan0"))
        #expect(reasons(h.last).isEmpty, "the last network's reason stays after the leave")
        h.join()
        #expect(reasons(h.last) == [.none])
    }

    @Test func anExplanationGoesBeforeTheHelpersLastWords() {
        var h = TransitionTableTests.authenticating()
        h.answer("alpha", .authenticate, .temporaryFailure, reason: "the portal is busy")
        let explained = h.log.compactMap { if case .explain(_, let text) = $0 { text } else { nil } }
        #expect(explained.count == 1)
        #expect(reasons(h.log) == [.helper("the portal is busy"), .explained(explained[0], lastAnswer: "the portal is busy")])
        // Told right after the explanation.
        let at = h.log.firstIndex { if case .explain = $0 { true } else { false } }!
        #expect(h.log[at + 1] == .setReason("wlan0", .explained(explained[0], lastAnswer: "the portal is busy")))
    }

    // MARK: - A check of the link

    @Test func aPortalIsDetectedWhenTheCheckTurnsToPortalNotOnEveryCheck() {
        var h = LatePortalTests.authenticatedWithoutHelper()
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: true, settled: true)))
        #expect(h.state() == .evaluating)
        h.answer("portal", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        // Still a portal: not detected again (the helpers are not asked once per check).
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: true, settled: true)))
        #expect(h.state() == .authenticated)
        #expect(h.sentInLastStep.isEmpty)
        // Online, then a portal again: an edge.
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: false, settled: true)))
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: true, settled: true)))
        #expect(h.state() == .evaluating)
    }

    @Test func aLeaveForgetsThePortal() {
        var h = LatePortalTests.authenticatedWithoutHelper()
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: true, settled: true)))
        h.answer("portal", .evaluate, confidence: Confidence.none)
        h.send(.connectivityLost("wlan0"))
        h.join()
        h.answer("portal", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: true, settled: true)))
        #expect(h.state() == .evaluating, "the new join's first portal is an edge")
    }

    @Test func aCheckThatSettlesTheJoinGivesItsVerdict() {
        var configuration = HotspotConfiguration()
        configuration.awaitsConnectivityVerdict = true
        var h = Harness(configuration)
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .evaluating, "no helper claimed it: waiting for the check's verdict")
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: false, settled: false)))
        #expect(h.state() == .evaluating)
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: false, settled: true)))
        #expect(h.state() == .authenticated)
    }

    @Test func aCheckThatLearnsTheSessionsEndMovesMaintainBeforeIt() {
        var h = TransitionTableTests.authenticated()
        h.send(.connectivityChecked("wlan0", LinkCheck(portal: false, settled: true, sessionRemaining: .seconds(20))))
        // lead = max(2 s, 25 % of 20 s) = 5 s before the end.
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(15)])
    }
}
