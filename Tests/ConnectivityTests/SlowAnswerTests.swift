// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import PortalSimulator
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A slow answer is an answer: the low-speed cut (64 B/s for 2 s, against slow-loris) counts
/// from the first byte of the answer, so a gateway that takes seconds to start answering is
/// bounded by the transfer's own timeout alone; and a join without a verdict backs off to 30 s
/// at most.
@Suite struct SlowAnswerTests {
    /// libcurl's own low-speed limit counted the wait for the first byte: an answer 4 s late
    /// ended as "timeout" after 2 s whatever the transfer's timeout.
    @Test func anAnswerLaterThanTheLowSpeedWindowIsAnAnswer() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .slow, slowDelay: .seconds(4))) { h in
            var o = TransferOptions(timeout: SafetyNet.wait, connectTimeout: SafetyNet.wait)
            o.lowSpeedTime = .seconds(2)
            let answer = try await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(h.port)/generate_204"), options: o).get()
            #expect(answer.status == 302, "the gateway's redirect, 4 s late")
        }
    }

    /// What the low-speed cut is for still works: a body trickling at 1 byte/s is cut.
    @Test func aTrickleAfterTheAnswerStartedIsStillCut() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .hostile, hostile: .slowLoris)) { h in
            var o = TransferOptions(timeout: SafetyNet.wait, connectTimeout: SafetyNet.wait)
            o.lowSpeedTime = .seconds(2)
            let result = await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(h.port)/"), options: o)
            guard case .failure(let e) = result else { Issue.record("a 1 byte/s body was not cut: \(result)"); return }
            #expect(e.kind == .timeout)
        }
    }

    /// The link's DNS had a hidden 3 s bound whatever the connect timeout: a gateway's resolver
    /// answering in 4 s made every probe a DNS failure.
    @Test func aResolverSlowerThanThreeSecondsIsWaitedForUpToTheConnectTimeout() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .clickThrough)) { h in
            let relay = try SlowDNSRelay(to: h.dns.port, delay: 4)
            defer { relay.stop() }
            var o = TransferOptions(timeout: SafetyNet.wait, connectTimeout: .seconds(12))
            o.dnsServers = ["127.0.0.1:\(relay.port)"]
            let answer = try await HTTPTransfer.perform(HTTPRequestSpec(url: h.url("connectivitycheck.gstatic.com", "/generate_204")), options: o).get()
            #expect(answer.status == 302)
        }
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

/// A DNS server that answers late: every question is passed to `upstream` on 127.0.0.1 and its
/// answer sent back `delay` seconds after the question came.
final class SlowDNSRelay: Sendable {
    let port: UInt16
    private let fd: Int32

    init(to upstream: UInt16, delay: Double) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: actual.sin_port)
        let listener = fd
        Thread.detachNewThread {
            while true {
                var buffer = [UInt8](repeating: 0, count: 1500)
                var peer = sockaddr_in()
                var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let n = withUnsafeMutablePointer(to: &peer) { p in
                    p.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(listener, &buffer, buffer.count, 0, $0, &peerLength) }
                }
                if n <= 0 { return }
                let question = Array(buffer[..<n])
                let asker = peer
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: delay)
                    guard let answer = Self.ask(upstream, question) else { return }
                    var to = asker
                    _ = withUnsafePointer(to: &to) { p in
                        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(listener, answer, answer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    }
                }
            }
        }
    }

    private static func ask(_ port: UInt16, _ question: [UInt8]) -> [UInt8]? {
        let s = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(s) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var wait = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let sent = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(s, question, question.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard sent == question.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1500)
        let n = recv(s, &buffer, buffer.count, 0)
        return n > 0 ? Array(buffer[..<n]) : nil
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
