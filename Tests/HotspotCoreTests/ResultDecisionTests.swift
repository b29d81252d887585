// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: timeouts, invalid results and malformed replies.
@Suite struct ResultDecisionTests {
    /// The results each command accepts, spelled out as Apple's header gives them (the engine
    /// checks an answer with `accepts`; `validResults` is derived from it).
    @Test func eachCommandAcceptsTheResultsAppleAllowsIt() {
        let universal: Set<CommandResult> = [.success, .failure, .commandNotRecognized]
        let expected: [CommandType: Set<CommandResult>] = [
            .filterScanList: universal, .evaluate: universal, .logoff: universal,
            .authenticate: universal.union([.uiRequired, .unsupportedNetwork, .temporaryFailure]),
            .presentUI: universal.union([.unsupportedNetwork, .temporaryFailure]),
            .maintain: universal.union([.authenticationRequired]),
        ]
        for command in CommandType.allCases {
            for result in CommandResult.allCases {
                #expect(command.accepts(result) == expected[command]!.contains(result), "\(command) \(result)")
            }
            #expect(command.validResults == expected[command]!)
        }
    }

    // No answer to authenticate, present-ui or maintain counts as temporary-failure.
    @Test func authenticateDeadlineCountsAsTemporaryFailureAndKeepsAutoconnect() {
        var h = TransitionTableTests.authenticating()
        h.advance(by: .seconds(45))
        // Retried like a temporary-failure answer, then given up once the window is spent.
        #expect(h.state() == .authenticating)
        #expect(!h.logContains(.disconnect("wlan0")))
        h.advance(by: .seconds(2))
        #expect(h.sentInLastStep.map(\.command) == [.authenticate])
        h.advance(by: .seconds(45))
        h.advance(by: .seconds(4))
        h.advance(by: .seconds(45))
        #expect(h.state() == .inactive)
        #expect(h.logContains(.disconnect("wlan0")))
        #expect(h.core.persistentState.autoconnectDisabled.isEmpty)
        #expect(!h.log.contains { if case .disableAutoconnect = $0 { true } else { false } })
    }

    @Test func maintainDeadlineReevaluatesWithoutTouchingAutoconnect() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.advance(by: .seconds(45))
        #expect(h.state() == .evaluating)
        #expect(h.core.persistentState.autoconnectDisabled.isEmpty)
    }

    @Test func daemonCallTimingOutEndsTheCommandLikeItsDeadline() {
        var h = Harness(HotspotConfiguration(authenticateRetries: 0))
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, confidence: .high)
        let token = h.request("alpha", .authenticate)!.token
        h.send(.helperTimedOut(token))
        #expect(h.state() == .inactive)
        #expect(h.timers.isEmpty)
        #expect(!h.log.contains { if case .disableAutoconnect = $0 { true } else { false } })
    }

    // A result not valid for the command counts as failure and is logged as a protocol error.
    @Test func uiRequiredToMaintainCountsAsFailureAndIsReportedAsProtocolError() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain, .uiRequired)
        #expect(h.state() == .evaluating)
        #expect(h.protocolErrors.map(\.helper) == ["alpha"])
        #expect(h.protocolErrors.first?.command == .maintain)
    }

    @Test func authenticationRequiredToAuthenticateCountsAsFailureAndSwitchesAutoconnectOff() {
        var h = TransitionTableTests.authenticating()
        h.answer("alpha", .authenticate, .authenticationRequired)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
        #expect(h.protocolErrors.count == 1)
    }

    @Test func temporaryFailureToMaintainIsAProtocolErrorNotATemporaryFailure() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain, .temporaryFailure)
        #expect(h.state() == .evaluating)
        #expect(h.protocolErrors.count == 1)
    }

    @Test func invalidResultToEvaluateCountsAsNone() {
        var h = Harness()
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, .uiRequired, confidence: .high)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
        #expect(h.protocolErrors.count == 1)
    }

    @Test func evaluateSuccessWithoutConfidenceCountsAsNoneAndIsReported() {
        var h = Harness()
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, .success, confidence: nil)
        #expect(h.state() == .authenticated)
        #expect(h.protocolErrors.map(\.problem) == ["evaluate answered success without a confidence"])
    }

    @Test func malformedReplyCountsAsFailureAndIsReported() {
        var h = TransitionTableTests.authenticating()
        let token = h.request("alpha", .authenticate)!.token
        h.send(.helperAnswerMalformed(token, helper: "alpha", problem: "unknown result 'ok'"))
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
        #expect(h.protocolErrors.map(\.problem) == ["unknown result 'ok'"])
    }
}
