// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import PortalSimulator
import Testing

/// A slow answer is an answer: the low-speed cut (64 B/s for 2 s, against slow-loris) counts
/// from the first byte of the answer, so a gateway that takes seconds to start answering is
/// bounded by the transfer's own timeout alone; and a join without a verdict backs off to 30 s
/// at most.
@Suite struct SlowAnswerTests {
    /// libcurl's own low-speed limit counted the wait for the first byte: an answer 4 s late
    /// ended as "timeout" after 2 s whatever the transfer's timeout.
    @Test func anAnswerLaterThanTheLowSpeedWindowIsAnAnswer() async throws {
        let h = try await LoopbackHotspot.start(PortalSimulatorConfiguration(mode: .slow, slowDelay: .seconds(4)))
        defer { Task { await h.stop() } }
        var o = TransferOptions(timeout: SafetyNet.wait, connectTimeout: SafetyNet.wait)
        o.lowSpeedTime = .seconds(2)
        let answer = try await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(h.port)/generate_204"), options: o).get()
        #expect(answer.status == 302, "the gateway's redirect, 4 s late")
    }

    /// What the low-speed cut is for still works: a body trickling at 1 byte/s is cut.
    @Test func aTrickleAfterTheAnswerStartedIsStillCut() async throws {
        let h = try await LoopbackHotspot.start(PortalSimulatorConfiguration(mode: .hostile, hostile: .slowLoris))
        defer { Task { await h.stop() } }
        var o = TransferOptions(timeout: SafetyNet.wait, connectTimeout: SafetyNet.wait)
        o.lowSpeedTime = .seconds(2)
        let result = await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(h.port)/"), options: o)
        guard case .failure(let e) = result else { Issue.record("a 1 byte/s body was not cut: \(result)"); return }
        #expect(e.kind == .timeout)
    }

    @Test func anUnsettledJoinBacksOffTo30SecondsAtMost() {
        var schedule = ConnectivitySchedule(configuration: .init(interval: .seconds(300)))
        var now: Duration = .zero
        var longest: Duration = .zero
        for _ in 0..<12 {
            schedule.record(.none, at: now, unsettled: true)
            longest = max(longest, schedule.nextCheck - now)
            now = schedule.nextCheck
        }
        #expect(longest == .seconds(30))
        // Settled, the same verdicts back off to the interval.
        var settled = ConnectivitySchedule(configuration: .init(interval: .seconds(300)))
        now = .zero
        for _ in 0..<12 {
            settled.record(.none, at: now)
            now = settled.nextCheck
        }
        #expect(settled.currentDelay == .seconds(300))
    }

    @Test func checkAgainBringsTheNextCheckForwardOnly() {
        var schedule = ConnectivitySchedule()
        schedule.record(.none, at: .seconds(10), unsettled: true)
        schedule.checkAgain(after: .milliseconds(500), at: .seconds(10))
        #expect(schedule.nextCheck == .seconds(10) + .milliseconds(500))
        schedule.checkAgain(after: .seconds(60), at: .seconds(10))
        #expect(schedule.nextCheck == .seconds(10) + .milliseconds(500))
    }
}
