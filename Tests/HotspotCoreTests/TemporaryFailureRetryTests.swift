// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// Temporary failure means "try again": an authenticate answered temporary-failure is sent again
/// after a doubling backoff, without disconnecting, bounded in count and in time.
@Suite struct TemporaryFailureRetryTests {
    static func authenticating(_ configuration: HotspotConfiguration = HotspotConfiguration()) -> Harness {
        var h = Harness(configuration)
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, confidence: .high)
        return h
    }

    static func explanations(_ h: Harness) -> [String] {
        h.log.compactMap { if case .explain(_, let text) = $0 { text } else { nil } }
    }

    @Test func temporaryFailureAuthenticatesAgainAfterABackoffWithoutDisconnecting() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .temporaryFailure)
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "alpha")
        #expect(!h.logContains(.disconnect("wlan0")))
        #expect(h.request("alpha", .authenticate) == nil)
        let due: [Instant] = [.epoch + .seconds(2)]
        #expect(h.armedTimers(.retryAuthenticate) == due)
        h.advance(by: .milliseconds(1999))
        #expect(h.request("alpha", .authenticate) == nil)
        h.advance(by: .milliseconds(1))
        let again = h.request("alpha", .authenticate)
        #expect(again != nil)
        #expect(again?.network?.didJustJoin == true)
        h.answer("alpha", .authenticate)
        #expect(h.state() == .authenticated)
        #expect(h.maintainTimerArmed())
        #expect(!h.logContains(.disconnect("wlan0")))
        #expect(Self.explanations(h).first?.contains("trying again in 2 s (retry 1 of 4)") == true)
    }

    @Test func backoffDoublesBetweenRetries() {
        var h = Self.authenticating(HotspotConfiguration(authenticateRetryWindow: .seconds(600)))
        for _ in 0..<4 {
            h.answer("alpha", .authenticate, .temporaryFailure)
            h.advance(by: .seconds(20))
        }
        // The answers came at 0, 20, 40 and 60 s; each retry 2, 4, 8 and 16 s after its failure.
        let due: [Duration] = h.log.compactMap { effect -> Duration? in
            if case .armTimer(let t, let at) = effect, t.kind == .retryAuthenticate { at.sinceEpoch } else { nil }
        }
        let expected: [Duration] = [.seconds(2), .seconds(24), .seconds(48), .seconds(76)]
        #expect(due == expected)
        #expect(h.state() == .authenticating)
        #expect(!h.logContains(.disconnect("wlan0")))
    }

    @Test func retriesPastTheCountDisconnectKeepingAutoconnectAndSayWhy() {
        var h = Self.authenticating(HotspotConfiguration(authenticateRetries: 2, authenticateRetryWindow: .seconds(600)))
        h.answer("alpha", .authenticate, .temporaryFailure)
        h.advance(by: .seconds(2))
        h.answer("alpha", .authenticate, .temporaryFailure)
        h.advance(by: .seconds(4))
        #expect(h.state() == .authenticating)
        #expect(!h.logContains(.disconnect("wlan0")))
        h.answer("alpha", .authenticate, .temporaryFailure)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
        #expect(!h.log.contains { if case .disableAutoconnect = $0 { true } else { false } })
        #expect(h.timers.isEmpty)
        let why = Self.explanations(h).last ?? ""
        #expect(why.contains("failed temporarily 3 times (retries=2)"), "\(why)")
        #expect(why.contains("disconnected"))
    }

    @Test func retriesPastTheWindowDisconnectEvenBeforeTheCount() {
        var h = Self.authenticating(HotspotConfiguration(authenticateRetries: 10, authenticateRetryDelay: .seconds(2), authenticateRetryWindow: .seconds(10)))
        h.answer("alpha", .authenticate, .temporaryFailure)  // t=0, retry at 2
        h.advance(by: .seconds(2))
        h.answer("alpha", .authenticate, .temporaryFailure)  // t=2, retry at 6
        h.advance(by: .seconds(4))
        #expect(h.state() == .authenticating)
        h.answer("alpha", .authenticate, .temporaryFailure)  // t=6, a retry at 14 is past 0+10
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
        #expect(Self.explanations(h).last?.contains("window 10 s") == true)
    }

    @Test func failureIsNotRetried() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .failure)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
        #expect(h.armedTimers(.retryAuthenticate).isEmpty)
    }

    @Test func leavingTheNetworkDuringTheBackoffCancelsTheRetry() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .temporaryFailure)
        h.send(.connectivityLost("wlan0"))
        #expect(h.timers.isEmpty)
        h.advance(by: .seconds(10))
        #expect(h.pendingCommands().isEmpty)
        #expect(h.state() == .inactive)
    }

    @Test func theChosenHelperLeavingDuringTheBackoffReevaluatesAmongTheRest() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        h.answer("alpha", .evaluate, confidence: .high)
        h.answer("alpha", .authenticate, .temporaryFailure)
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        #expect(h.armedTimers(.retryAuthenticate).isEmpty)
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
    }

    @Test func countRestartsAfterASuccessfulSignIn() {
        var h = Self.authenticating(HotspotConfiguration(authenticateRetries: 1, authenticateRetryWindow: .seconds(600)))
        h.answer("alpha", .authenticate, .temporaryFailure)
        h.advance(by: .seconds(2))
        h.answer("alpha", .authenticate)
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain, .authenticationRequired)
        h.answer("alpha", .authenticate, .temporaryFailure)
        #expect(h.state() == .authenticating)
        #expect(!h.logContains(.disconnect("wlan0")))
    }
}
