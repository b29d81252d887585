// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: helpers leaving in every state.
@Suite struct HelperDepartureDecisionTests {
    // A helper that leaves mid-command fails that command at once and is excluded; the machine
    // re-evaluates among the rest.
    @Test func chosenHelperLeavingMidAuthenticateIsExcludedAndTheRestReevaluate() {
        var h = TransitionTableTests.authenticating()
        let token = h.request("alpha", .authenticate)!.token
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        #expect(h.last.contains(.cancelCommand(token)))
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers == ["alpha"])
        #expect(!h.last.contains(.disconnect("wlan0")))
    }

    @Test func chosenHelperLeavingMidMaintainIsExcludedAndTheRestReevaluate() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers == ["alpha"])
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
    }

    @Test func helperLeavingMidEvaluateCountsAsNoneAtOnce() {
        var h = TransitionTableTests.evaluating()
        h.answer("beta", .evaluate, confidence: .low)
        h.send(.helperUnregistered("alpha"))
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "beta")
        #expect(h.now == .epoch)
    }

    @Test func helperThatClaimedAndLeftBeforeTheVerdictIsNotChosen() {
        var h = TransitionTableTests.evaluating()
        h.answer("alpha", .evaluate, confidence: .low)
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        h.answer("beta", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
    }

    @Test func chosenHelperLeavingWhileTheUserIsAwaitedReevaluatesTheRest() {
        var h = TransitionTableTests.presentingUI()
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
    }

    @Test func chosenHelperLeavingWhileAuthenticatedStopsMaintainingButKeepsTheSession() {
        var h = TransitionTableTests.authenticated()
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
        #expect(!h.maintainTimerArmed())
    }

    @Test func chosenHelperReturningWhileAuthenticatedResumesMaintaining() {
        var h = TransitionTableTests.authenticated()
        h.send(.helperLeft("alpha"))
        h.register("alpha")
        #expect(h.chosen() == "alpha")
        #expect(h.maintainTimerArmed())
    }

    @Test func chosenHelperLeavingMidLogoffDisconnectsAtOnce() {
        var h = TransitionTableTests.authenticated()
        h.send(.logoffRequested("wlan0", by: .user))
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
    }
}
