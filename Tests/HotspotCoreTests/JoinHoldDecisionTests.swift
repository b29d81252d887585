// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// The join-hold outcome table (``JoinHoldOutcome/settled(by:networkManagerRechecked:)``), driven
/// through the state machine on the virtual clock: which state releases a held join, with which
/// outcome, and which states keep holding it.
@Suite struct JoinHoldDecisionTests {
    func settled(_ h: Harness, rechecked: Bool = true) -> JoinHoldOutcome? {
        JoinHoldOutcome.settled(by: h.core.status(of: "wlan0"), networkManagerRechecked: rechecked)
    }

    @Test func evaluatingAndAuthenticatingKeepHolding() {
        var h = TransitionTableTests.evaluating()
        #expect(settled(h) == nil)
        h.answer("alpha", .evaluate, confidence: .high)
        #expect(h.state() == .authenticating)
        #expect(settled(h) == nil)
    }

    @Test func aSignInReleasesOnlyOnceNetworkManagerHasRechecked() {
        let h = TransitionTableTests.authenticated()
        #expect(h.state() == .authenticated)
        #expect(settled(h, rechecked: false) == nil)
        #expect(settled(h, rechecked: true) == .signedIn)
    }

    /// A hold that comes when the join is already signed in (a maintain that found the session
    /// alive asks NetworkManager for no check) asks for the re-check it waits for, once.
    @Test func aSignedInJoinThatNetworkManagerWasNotAskedToRecheckNeedsTheRecheck() {
        let h = TransitionTableTests.authenticated()
        let status = h.core.status(of: "wlan0")
        #expect(JoinHoldOutcome.needsRecheck(by: status, rechecked: false, asked: false))
        #expect(!JoinHoldOutcome.needsRecheck(by: status, rechecked: false, asked: true))
        #expect(!JoinHoldOutcome.needsRecheck(by: status, rechecked: true, asked: false))
        #expect(!JoinHoldOutcome.needsRecheck(by: TransitionTableTests.authenticating().core.status(of: "wlan0"), rechecked: false, asked: false))
        #expect(!JoinHoldOutcome.needsRecheck(by: nil, rechecked: false, asked: false))
    }

    @Test func noHelperClaimingTheNetworkReleasesAtOnceWithoutARecheck() {
        var h = TransitionTableTests.evaluating()
        h.answer("alpha", .evaluate, confidence: Confidence.none)
        h.answer("beta", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        #expect(settled(h, rechecked: false) == .noHelper)
        #expect(!JoinHoldOutcome.needsRecheck(by: h.core.status(of: "wlan0"), rechecked: false, asked: false))
    }

    @Test func theUserBeingNeededReleasesAtOnce() {
        let h = TransitionTableTests.presentingUI()
        #expect(settled(h, rechecked: false) == .needsUser)
    }

    @Test func aHelperThatDoesNotAnswerKeepsTheJoinHeldUntilItsRetriesEnd() {
        var h = TransitionTableTests.authenticating()
        // No answer within the deadline counts as a temporary failure, retried: still held.
        h.advance(by: h.core.configuration.commandDeadline + .seconds(1))
        #expect(settled(h) == nil, "\(String(describing: h.state()))")
    }

    @Test func aFailedSignInReleasesAsFailedOnlyWhileTheFailureStateIsPublished() {
        var h = TransitionTableTests.authenticating()
        let effects = h.answer("alpha", .authenticate, .failure)
        // The machine passes through failure to inactive in one step: the failure is what the
        // engine sees published first.
        let published = effects.compactMap { if case .publishState(let s) = $0 { s } else { nil } }
        #expect(published.map(\.state) == [.failure, .inactive])
        #expect(published.map { JoinHoldOutcome.settled(by: $0, networkManagerRechecked: false) } == [.failed, nil])
    }

    @Test func nothingJoinedHoldsNothing() {
        #expect(JoinHoldOutcome.settled(by: nil, networkManagerRechecked: true) == nil)
    }
}
