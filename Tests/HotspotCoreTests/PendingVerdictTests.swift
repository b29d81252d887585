// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// With connectivity checks (`awaitsConnectivityVerdict`), a network no helper claimed is not
/// called signed in before its join has a verdict: it stays evaluating (no helper asked) until
/// the daemon says the verdict is in, or a portal shows itself and the helpers are asked again.
@Suite struct PendingVerdictTests {
    static func waiting() -> Harness {
        var configuration = HotspotConfiguration()
        configuration.awaitsConnectivityVerdict = true
        var h = Harness(configuration)
        h.register("portal")
        h.join()
        h.answer("portal", .evaluate, confidence: Confidence.none)
        return h
    }

    @Test func noClaimBeforeTheVerdictIsNotAuthenticated() {
        let h = Self.waiting()
        #expect(h.state() == .evaluating)
        #expect(h.chosen() == nil)
        #expect(h.core.machine(for: "wlan0")?.outstandingCommands.isEmpty == true)
    }

    @Test func theVerdictMakesItAuthenticatedWithoutAHelper() {
        var h = Self.waiting()
        h.send(.connectivitySettled("wlan0"))
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
        // A second report changes nothing.
        h.send(.connectivitySettled("wlan0"))
        #expect(h.last.isEmpty)
    }

    @Test func aPortalFoundWhileWaitingIsEvaluatedAndSignedInto() {
        var h = Self.waiting()
        h.send(.portalDetected("wlan0"))
        #expect(h.state() == .evaluating)
        #expect(h.sentInLastStep.map(\.command) == [.evaluate])
        h.answer("portal", .evaluate, confidence: .low)
        h.answer("portal", .authenticate)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == "portal")
    }

    @Test func aVerdictBeforeEvaluationEndsLetsNoClaimAuthenticateAtOnce() {
        var configuration = HotspotConfiguration()
        configuration.awaitsConnectivityVerdict = true
        var h = Harness(configuration)
        h.register("portal")
        h.join()
        h.send(.connectivitySettled("wlan0"))
        #expect(h.state() == .evaluating)
        h.answer("portal", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
    }

    @Test func withoutChecksNoClaimIsAuthenticatedAtOnce() {
        var h = Harness()
        h.register("portal")
        h.join()
        h.answer("portal", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
    }
}
