// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import Testing

/// The engine's timers: deadlines with one sleeper for the earliest.
@Suite struct TimerScheduleTests {
    let t0 = Instant.epoch + .seconds(100)
    func timer(_ serial: UInt64, _ kind: TimerKind = .maintain) -> TimerID { TimerID(interface: InterfaceID("wlan0"), kind: kind, serial: serial) }

    @Test func dueTimersComeEarliestFirstAndOnlyOnce() {
        var s = TimerSchedule()
        s.arm(timer(1), at: t0 + .seconds(3))
        s.arm(timer(2), at: t0 + .seconds(1))
        s.arm(timer(3), at: t0 + .seconds(1))  // same deadline as 2: arming order
        s.arm(timer(4), at: t0 + .seconds(9))
        #expect(s.earliest == t0 + .seconds(1))
        #expect(s.takeDue(now: t0 + .milliseconds(500)).isEmpty)
        #expect(s.takeDue(now: t0 + .seconds(3)) == [timer(2), timer(3), timer(1)])
        #expect(s.takeDue(now: t0 + .seconds(3)).isEmpty, "a timer fires once")
        #expect(s.earliest == t0 + .seconds(9))
    }

    @Test func cancelledAndRearmedTimersKeepOnlyTheirLastDeadline() {
        var s = TimerSchedule()
        s.arm(timer(1), at: t0 + .seconds(1))
        s.cancel(timer(1))
        #expect(s.earliest == nil)
        #expect(s.takeDue(now: t0 + .seconds(5)).isEmpty, "a cancelled timer never fires")
        s.arm(timer(2), at: t0 + .seconds(1))
        s.arm(timer(2), at: t0 + .seconds(4))
        #expect(s.takeDue(now: t0 + .seconds(2)).isEmpty)
        #expect(s.takeDue(now: t0 + .seconds(4)) == [timer(2)])
    }

    @Test func aSleeperIsRenewedOnlyForAnEarlierDeadline() {
        var s = TimerSchedule()
        #expect(s.isCovered(by: nil), "nothing armed: no sleeper needed")
        s.arm(timer(1), at: t0 + .seconds(5))
        #expect(!s.isCovered(by: nil))
        #expect(s.isCovered(by: t0 + .seconds(5)))
        s.arm(timer(2), at: t0 + .seconds(300))
        #expect(s.isCovered(by: t0 + .seconds(5)), "a later deadline needs no new sleeper")
        s.arm(timer(3), at: t0 + .seconds(2))
        #expect(!s.isCovered(by: t0 + .seconds(5)), "an earlier one does")
    }
}
