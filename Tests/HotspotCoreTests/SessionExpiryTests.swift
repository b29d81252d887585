// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// `sessionExpiryLearned`: maintain is moved before the end of an RFC 8908 session.
@Suite struct SessionExpiryTests {
    @Test func aShortSessionMovesMaintainBeforeItsEnd() {
        var h = TransitionTableTests.authenticated()
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(300)])
        h.send(.sessionExpiryLearned("wlan0", at: h.now + .seconds(20)))
        // lead = max(2 s, 25 % of 20 s) = 5 s before the end.
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(15)])
        #expect(h.core.machine(for: "wlan0")?.maintainDue == h.now + .seconds(15))
        h.advance(by: .seconds(15))
        #expect(h.state() == .maintaining)
        #expect(h.request("alpha", .maintain) != nil)
    }

    @Test func theLeadIsAtMostSixtySecondsAndAtLeastTwo() {
        var h = TransitionTableTests.authenticated()
        h.send(.sessionExpiryLearned("wlan0", at: h.now + .seconds(280)))
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(220)])
        var short = TransitionTableTests.authenticated()
        short.send(.sessionExpiryLearned("wlan0", at: short.now + .seconds(4)))
        #expect(short.armedTimers(.maintain) == [short.now + .seconds(2)])
    }

    @Test func anExpiredSessionIsMaintainedAlmostAtOnce() {
        var h = TransitionTableTests.authenticated()
        h.send(.sessionExpiryLearned("wlan0", at: h.now + Duration.seconds(-3)))
        #expect(h.armedTimers(.maintain) == [h.now + .milliseconds(500)])
    }

    @Test func aLaterExpiryNeverDelaysMaintain() {
        var h = TransitionTableTests.authenticated()
        h.send(.sessionExpiryLearned("wlan0", at: h.now + .seconds(20)))
        let effects = h.send(.sessionExpiryLearned("wlan0", at: h.now + .seconds(3600)))
        #expect(effects.isEmpty)
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(15)])
    }

    @Test func outsideAuthenticatedTheEventChangesNothing() {
        var h = Harness()
        h.register("alpha")
        h.join()
        #expect(h.state() == .evaluating)
        #expect(h.send(.sessionExpiryLearned("wlan0", at: h.now + .seconds(10))).isEmpty)
        #expect(h.send(.sessionExpiryLearned("wlan9", at: h.now + .seconds(10))).isEmpty)
        var noHelper = Harness()
        noHelper.join()
        #expect(noHelper.state() == .authenticated)
        #expect(noHelper.send(.sessionExpiryLearned("wlan0", at: noHelper.now + .seconds(10))).isEmpty)
        #expect(!noHelper.maintainTimerArmed())
    }

    @Test func maintainSuccessArmsTheRegularIntervalAgain() {
        var h = TransitionTableTests.authenticated()
        h.send(.sessionExpiryLearned("wlan0", at: h.now + .seconds(10)))
        h.advance(by: .seconds(8))
        h.answer("alpha", .maintain)
        #expect(h.state() == .authenticated)
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(300)])
    }
}
