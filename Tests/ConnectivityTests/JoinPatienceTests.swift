// SPDX-License-Identifier: Apache-2.0
import Connectivity
import Testing

/// A join's verdict is not decided by probes refused or timed out in its first seconds, and a
/// portal once seen is not turned into "none" by a timeout.
@Suite struct JoinPatienceTests {
    static let refused = ProbeVerdict(state: .none, reason: .refused)
    static let timedOut = ProbeVerdict(state: .none, reason: .timeout)
    static let portal = ProbeVerdict(state: .portal, reason: .redirect(status: 307), signInURL: "http://192.168.1.1:2050/splash?token=abc")
    static let online = ProbeVerdict(state: .online, reason: .expected)

    @Test func refusedChecksInTheJoinsFirstSecondsAreRepeatedWithDoublingWaits() {
        var p = JoinPatience(bound: .seconds(20))
        var waits: [Duration] = []
        var t = Duration.zero
        while let d = p.retryDelay(after: Self.refused, sinceJoin: t) {
            waits.append(d)
            t += d + .seconds(1)  // each check takes a second
        }
        #expect(waits == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4)])
        #expect(t <= .seconds(20) + .seconds(5))
    }

    @Test func definiteAnswersAreBelievedAtOnce() {
        var p = JoinPatience()
        #expect(p.retryDelay(after: Self.portal, sinceJoin: .zero) == nil)
        #expect(p.retryDelay(after: Self.online, sinceJoin: .zero) == nil)
        #expect(p.retryDelay(after: ProbeVerdict(state: .partial, reason: .timeout), sinceJoin: .zero) == nil)
    }

    @Test func noneIsBelievedPastTheBound() {
        var p = JoinPatience(bound: .seconds(20))
        #expect(p.retryDelay(after: Self.timedOut, sinceJoin: .seconds(19)) == .milliseconds(500))
        #expect(p.retryDelay(after: Self.timedOut, sinceJoin: .seconds(20)) == nil)
    }

    @Test func aTimeoutAfterAPortalKeepsThePortal() {
        var p = JoinPatience()
        #expect(p.settle(Self.portal).state == .portal)
        let after = p.settle(Self.timedOut)
        #expect(after.state == .portal)
        #expect(after.signInURL == Self.portal.signInURL)
        // And it is not repeated: the portal is the answer.
        #expect(p.retryDelay(after: Self.timedOut, sinceJoin: .seconds(1)) == nil)
    }

    @Test func onlineReplacesTheRememberedPortal() {
        var p = JoinPatience()
        _ = p.settle(Self.portal)
        #expect(p.settle(Self.online).state == .online)
        #expect(p.settle(Self.timedOut).state == .none)
    }
}
