// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// Evaluation does not wait for a helper that cannot change its outcome: one whose highest
/// confidence (``HelperRegistration/highestConfidence``) can at most tie a claim already made.
/// The built-in portal helper answers low at most, and only once the daemon has a connectivity
/// verdict; on a link whose probes fail that takes the whole join patience.
@Suite struct EvaluationCeilingTests {
    /// "survivor" may answer high; "portal" answers low at most.
    static func registered() -> Harness {
        var h = Harness()
        h.register("doomed")
        h.register("survivor")
        h.send(.helperRegistered(HelperRegistration(identifier: "portal", displayName: "Portal", highestConfidence: .low)))
        return h
    }

    @Test func aClaimEndsEvaluationWhenOnlyHelpersThatCouldAtMostTieItAreAwaited() {
        var h = Self.registered()
        h.send(.helperUnregistered("doomed"))
        h.join()
        let portal = h.request("portal", .evaluate)!.token
        h.answer("survivor", .evaluate, confidence: .low)
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "survivor")
        #expect(h.now == .epoch, "decided without waiting")
        #expect(h.last.contains(.cancelCommand(portal)))
        #expect(h.sentInLastStep.map(\.command) == [.authenticate])
    }

    @Test func aHelperKilledMidAuthenticateIsReplacedWithoutWaitingForThePortalHelper() {
        var h = Self.registered()
        h.join()
        h.answer("doomed", .evaluate, confidence: .high)
        #expect(h.chosen() == "doomed")
        h.advance(by: .milliseconds(200))
        h.send(.helperLeft("doomed"))
        #expect(h.state() == .evaluating)
        #expect(Set(h.sentInLastStep.map(\.helper)) == ["survivor", "portal"])
        // The survivor answers at once; the portal helper is still waiting for connectivity.
        h.answer("survivor", .evaluate, confidence: .low)
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "survivor")
        #expect(h.request("survivor", .authenticate) != nil)
        #expect(h.request("portal", .evaluate) == nil, "the portal helper's evaluate is cancelled")
    }

    @Test func aHelperThatMayAnswerHighIsStillWaitedFor() {
        var h = Self.registered()
        h.send(.helperUnregistered("portal"))
        h.join()
        h.answer("doomed", .evaluate, confidence: .low)
        #expect(h.state() == .evaluating, "survivor could still answer high")
        h.answer("survivor", .evaluate, confidence: .high)
        #expect(h.chosen() == "survivor")
    }

    @Test func noClaimYetWaitsForThePortalHelper() {
        var h = Self.registered()
        h.join()
        h.answer("doomed", .evaluate, confidence: Confidence.none)
        h.answer("survivor", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .evaluating, "only the portal helper can still sign in")
        h.advance(by: .seconds(3))
        h.answer("portal", .evaluate, confidence: .low)
        #expect(h.chosen() == "portal")
    }

    @Test func anEarlierLowClaimFromThePortalHelperStillWaitsForHelpersThatMayAnswerHigh() {
        var h = Self.registered()
        h.join()
        h.answer("portal", .evaluate, confidence: .low)
        #expect(h.state() == .evaluating)
        h.answer("doomed", .evaluate, confidence: Confidence.none)
        h.answer("survivor", .evaluate, confidence: .low)
        #expect(h.chosen() == "portal", "ties go to the earliest answer")
    }

    @Test func theArbiterAloneDecidesOnceNobodyAwaitedCanBeatTheBestClaim() {
        var a = HelperArbiter(asking: ["a", "b", "c"], ceilings: ["b": .low, "c": .none])
        #expect(a.recordAnswer(.none, from: "a") == .undecided)
        #expect(a.recordAnswer(.low, from: "b") == .chosen("b"))
        var plain = HelperArbiter(asking: ["a", "b"])
        #expect(plain.recordAnswer(.low, from: "a") == .undecided)
    }
}
