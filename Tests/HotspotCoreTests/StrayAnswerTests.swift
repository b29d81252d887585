// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// Answers the core must not act on: twice, late, from a helper that left, to someone else.
@Suite struct StrayAnswerTests {
    @Test func secondAnswerToOneCommandIsIgnoredAndReported() {
        var h = TransitionTableTests.authenticating()
        let token = h.request("alpha", .authenticate)!.token
        h.answer("alpha", .authenticate)
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "alpha", result: .failure)))
        #expect(h.state() == .authenticated)
        #expect(!h.log.contains { if case .disableAutoconnect = $0 { true } else { false } })
        #expect(h.ignoredAnswers == [IgnoredAnswer(helper: "alpha", token: token, reason: .duplicate)])
    }

    @Test func answerAfterTheDeadlineIsIgnoredAndReported() {
        var h = Harness()
        h.register("alpha")
        h.register("late")
        h.join()
        let token = h.request("late", .evaluate)!.token
        h.answer("alpha", .evaluate, confidence: .low)
        h.advance(by: .seconds(45))
        #expect(h.chosen() == "alpha")
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "late", result: .success, confidence: .high)))
        #expect(h.chosen() == "alpha")
        #expect(h.state() == .authenticating)
        #expect(h.ignoredAnswers == [IgnoredAnswer(helper: "late", token: token, reason: .afterDeadline)])
    }

    @Test func answerFromAHelperThatLeftIsIgnoredAndReported() {
        var h = TransitionTableTests.evaluating()
        let token = h.request("alpha", .evaluate)!.token
        h.send(.helperLeft("alpha"))
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "alpha", result: .success, confidence: .high)))
        #expect(h.state() == .evaluating)
        #expect(h.chosen() == nil)
        #expect(h.ignoredAnswers == [IgnoredAnswer(helper: "alpha", token: token, reason: .fromDepartedHelper)])
    }

    @Test func answerToACommandSentBeforeTheHelperReregisteredIsIgnored() {
        var h = TransitionTableTests.evaluating()
        let token = h.request("alpha", .evaluate)!.token
        h.send(.helperLeft("alpha"))
        h.register("alpha")
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "alpha", result: .success, confidence: .high)))
        #expect(h.chosen() == nil)
        #expect(h.ignoredAnswers.map(\.reason) == [.fromDepartedHelper])
    }

    @Test func answerToACancelledCommandIsIgnored() {
        var h = TransitionTableTests.evaluating()
        let token = h.request("beta", .evaluate)!.token
        h.answer("alpha", .evaluate, confidence: .high)
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "beta", result: .success, confidence: .high)))
        #expect(h.chosen() == "alpha")
        #expect(h.ignoredAnswers.map(\.reason) == [.afterCancellation])
    }

    @Test func answerWithAnotherHelpersTokenIsIgnored() {
        var h = TransitionTableTests.evaluating()
        let token = h.request("alpha", .evaluate)!.token
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "beta", result: .success, confidence: .high)))
        #expect(h.state() == .evaluating)
        #expect(h.ignoredAnswers.map(\.reason) == [.notAddressedToHelper])
        h.answer("alpha", .evaluate, confidence: .high)
        #expect(h.chosen() == "alpha")
    }

    @Test func answerToACommandNeverSentIsIgnored() {
        var h = TransitionTableTests.evaluating()
        h.send(.helperAnswered(HelperAnswer(token: CommandToken(rawValue: 9999), helper: "alpha", result: .success)))
        #expect(h.state() == .evaluating)
        #expect(h.ignoredAnswers.map(\.reason) == [.unknownCommand])
    }
}
