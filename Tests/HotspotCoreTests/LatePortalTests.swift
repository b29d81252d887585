// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// A portal found after the join is signed into: with no helper signed in, the helpers are asked
/// again (evaluate, then authenticate).
@Suite struct LatePortalTests {
    /// "portal" answered none at the join (its verdict was not in yet): authenticated, no helper.
    static func authenticatedWithoutHelper() -> Harness {
        var h = Harness()
        h.register("portal")
        h.join()
        h.answer("portal", .evaluate, confidence: Confidence.none)
        return h
    }

    @Test func aPortalFoundAfterEveryHelperAnsweredNoneIsEvaluatedAndSignedInto() {
        var h = Self.authenticatedWithoutHelper()
        #expect(h.state() == .authenticated)
        #expect(h.core.persistentState.cache[key("Cafe")] == .notCaptive)
        h.send(.portalDetected("wlan0"))
        #expect(h.state() == .evaluating)
        #expect(h.sentInLastStep.map(\.command) == [.evaluate])
        #expect(h.sentInLastStep.first?.network?.didJustJoin == false)
        // The wrong "not captive" is forgotten.
        #expect(h.core.persistentState.cache[key("Cafe")] == nil)
        h.answer("portal", .evaluate, confidence: .low)
        #expect(h.state() == .authenticating)
        #expect(h.sentInLastStep.map(\.command) == [.authenticate])
        h.answer("portal", .authenticate)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == "portal")
    }

    @Test func aPortalOnANetworkNoHelperWasAskedAboutAsksTheHelpersRegisteredSince() {
        var h = Harness()
        h.join()
        #expect(h.state() == .authenticated)
        h.register("portal")
        h.send(.portalDetected("wlan0"))
        #expect(h.state() == .evaluating)
        #expect(h.sentInLastStep.map(\.helper) == ["portal"])
    }

    @Test func aPortalWhileAHelperIsSignedInChangesNothing() {
        var h = TransitionTableTests.authenticated()
        let before = h.log.count
        h.send(.portalDetected("wlan0"))
        #expect(h.state() == .authenticated)
        #expect(h.log.count == before)
    }

    @Test func aPortalDuringEvaluationChangesNothing() {
        var h = TransitionTableTests.evaluating()
        h.send(.portalDetected("wlan0"))
        #expect(h.last.isEmpty)
        #expect(h.state() == .evaluating)
    }

    @Test func aFlappingPortalStartsAtMostThreeLateEvaluationsPerAssociation() {
        var h = Self.authenticatedWithoutHelper()
        var evaluations = 0
        for _ in 0..<6 {
            h.send(.portalDetected("wlan0"))
            if h.state() == .evaluating {
                evaluations += 1
                h.answer("portal", .evaluate, confidence: Confidence.none)
            }
        }
        #expect(evaluations == 3)
        // A new association starts counting again.
        h.send(.connectivityLost("wlan0"))
        h.join()
        h.answer("portal", .evaluate, confidence: Confidence.none)
        h.send(.portalDetected("wlan0"))
        #expect(h.state() == .evaluating)
    }
}
