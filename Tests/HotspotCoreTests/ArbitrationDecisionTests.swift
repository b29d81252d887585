// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: choosing a helper from parallel evaluate answers.
@Suite struct ArbitrationDecisionTests {
    // A helper that does not answer evaluate counts as none; evaluation ends as soon as a high
    // arrives or every helper has answered.
    @Test func firstHighConfidenceAnswerEndsEvaluationAndCancelsTheOthers() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.register("gamma")
        h.join()
        h.answer("beta", .evaluate, confidence: .low)
        h.answer("gamma", .evaluate, confidence: .high)
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "gamma")
        #expect(h.request("alpha", .evaluate) == nil)
        #expect(h.last.contains { if case .cancelCommand = $0 { true } else { false } })
        #expect(h.pendingCommands().map(\.command) == [.authenticate])
    }

    @Test func highestConfidenceWinsOnceEveryHelperAnswered() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        h.answer("alpha", .evaluate, confidence: .low)
        #expect(h.state() == .evaluating)
        h.answer("beta", .evaluate, confidence: Confidence.none)
        #expect(h.chosen() == "alpha")
    }

    @Test func tiedConfidenceGoesToTheEarliestAnswer() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        h.answer("beta", .evaluate, confidence: .low)
        h.answer("alpha", .evaluate, confidence: .low)
        #expect(h.chosen() == "beta")
    }

    @Test func evaluationEndsAsSoonAsEveryHelperAnsweredWithoutWaitingForTheDeadline() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        h.advance(by: .seconds(1))
        h.answer("alpha", .evaluate, confidence: .low)
        h.answer("beta", .evaluate, confidence: .low)
        #expect(h.state() == .authenticating)
        #expect(h.now == .epoch + .seconds(1))
    }

    @Test func lowClaimIsChosenWhenTheSilentHelperMissesItsDeadline() {
        var h = Harness()
        h.register("alpha")
        h.register("silent")
        h.join()
        h.answer("alpha", .evaluate, confidence: .low)
        h.advance(by: .seconds(45))
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "alpha")
    }

    @Test func joiningWithNoEvaluatingHelperAuthenticatesWithoutCaching() {
        var h = Harness()
        h.register("scanner", commands: [.filterScanList])
        h.join()
        #expect(h.state() == .authenticated)
        #expect(h.core.persistentState.cache.entries.isEmpty)
    }
}
