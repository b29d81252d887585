// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: the unresponsive-helper rule.
@Suite struct UnresponsiveHelperDecisionTests {
    // A helper that misses deadlines repeatedly is marked unresponsive and is given a short
    // deadline until it answers again.
    @Test func helperMissingThreeDeadlinesInARowIsMarkedUnresponsiveAndGetsAShortEvaluateDeadline() {
        var h = Harness()
        h.register("alpha")
        h.register("sluggish")
        for round in 1...3 {
            h.join()
            h.answer("alpha", .evaluate, confidence: Confidence.none)
            #expect(!h.core.isUnresponsive("sluggish"), "marked too early, in round \(round)")
            h.advance(by: .seconds(45))
            h.send(.connectivityLost("wlan0"))
        }
        #expect(h.core.isUnresponsive("sluggish"))
        #expect(h.logContains(.helperResponsivenessChanged("sluggish", isResponsive: false)))
        h.join()
        #expect(h.request("sluggish", .evaluate)?.deadline == .seconds(2))
        #expect(h.request("alpha", .evaluate)?.deadline == .seconds(45))
        h.answer("alpha", .evaluate, confidence: .low)
        h.advance(by: .seconds(2))
        #expect(h.state() == .authenticating)
    }

    @Test func answeringInBetweenResetsTheCountOfMissedDeadlines() {
        var h = Harness()
        h.register("flaky")
        for _ in 1...2 {
            h.join()
            h.advance(by: .seconds(45))
            h.send(.connectivityLost("wlan0"))
        }
        h.join()
        h.answer("flaky", .evaluate, confidence: Confidence.none)
        h.send(.connectivityLost("wlan0"))
        h.join()
        h.advance(by: .seconds(45))
        #expect(!h.core.isUnresponsive("flaky"))
    }

    @Test func unresponsiveHelperRecoversAsSoonAsItAnswersEvenLate() {
        var h = Harness(HotspotConfiguration(unresponsiveThreshold: 1))
        h.register("slow")
        h.join()
        let token = h.request("slow", .evaluate)!.token
        h.advance(by: .seconds(45))
        #expect(h.core.isUnresponsive("slow"))
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "slow", result: .success, confidence: Confidence.none)))
        #expect(!h.core.isUnresponsive("slow"))
        #expect(h.logContains(.helperResponsivenessChanged("slow", isResponsive: true)))
        h.send(.connectivityLost("wlan0"))
        h.join()
        #expect(h.request("slow", .evaluate)?.deadline == .seconds(45))
    }
}
