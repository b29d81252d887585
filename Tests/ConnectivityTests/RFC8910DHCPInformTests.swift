// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import Testing

/// RFC 8910 over DHCPv4: the DHCPINFORM the daemon sends, the validation of the DHCPACK, and one
/// real exchange on loopback with a stand-in server that answers like dnsmasq.
@Suite struct RFC8910DHCPInformTests {
    static let xid: UInt32 = 0x1234_5678

    /// A DHCPACK to `xid` with `options` (code, value) in order, then end.
    static func ack(xid: UInt32 = xid, op: UInt8 = 2, type: UInt8? = 5, options: [(UInt8, [UInt8])] = []) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 236)
        p[0] = op
        p[4] = UInt8(xid >> 24); p[5] = UInt8(xid >> 16 & 0xff); p[6] = UInt8(xid >> 8 & 0xff); p[7] = UInt8(xid & 0xff)
        p += [99, 130, 83, 99]
        if let type { p += [53, 1, type] }
        for (code, value) in options { p += [code, UInt8(value.count)] + value }
        return p + [255]
    }

    @Test func theInformCarriesCiaddrTheMessageTypeAndAsksFor114() {
        let mac: [UInt8] = [2, 0, 0, 0, 0, 9]
        let p = DHCPInform.request(xid: Self.xid, clientAddress: [10, 0, 0, 7], hardwareAddress: mac)
        #expect(p.count >= 300)
        #expect(p[0] == 1 && p[1] == 1 && p[2] == 6)
        #expect(Array(p[4..<8]) == [0x12, 0x34, 0x56, 0x78])
        #expect(Array(p[10..<12]) == [0, 0], "flags: no broadcast bit, the reply is unicast to ciaddr")
        #expect(Array(p[12..<16]) == [10, 0, 0, 7], "ciaddr is the lease address (RFC 2131 §4.4.3)")
        #expect(Array(p[16..<20]) == [0, 0, 0, 0], "yiaddr is zero")
        #expect(Array(p[28..<34]) == mac)
        #expect(Array(p[236..<243]) == [99, 130, 83, 99, 53, 1, 8])
        #expect(Array(p[243..<249]) == [55, 4, 1, 3, 6, 114])
    }

    @Test func anAckWithAnHTTPSURIGivesTheAPI() {
        let uri = "https://capport.example/api?x=1"
        #expect(DHCPInform.parseReply(Self.ack(options: [(54, [10, 0, 0, 1]), (114, Array(uri.utf8))]), xid: Self.xid) == .success(.api(uri)))
        // Pad options and option 114 split in two (RFC 3396 concatenation).
        var p = Self.ack(options: [(114, Array("https://cap".utf8)), (114, Array("port.example/".utf8))])
        p.insert(0, at: 243)
        #expect(DHCPInform.parseReply(p, xid: Self.xid) == .success(.api("https://capport.example/")))
        #expect(DHCPInform.parseReply(Self.ack(options: [(114, Array("HTTPS://A.example/".utf8))]), xid: Self.xid) == .success(.api("https://A.example/")),
                "the scheme is normalized")
    }

    @Test func theUnrestrictedURNAndAnAckWithout114() {
        #expect(DHCPInform.parseReply(Self.ack(options: [(114, Array(DHCPInform.unrestricted.utf8))]), xid: Self.xid) == .success(.unrestricted))
        #expect(DHCPInform.parseReply(Self.ack(options: [(1, [255, 255, 255, 0])]), xid: Self.xid) == .success(.none))
    }

    @Test(arguments: [
        ("http://portal.example/api", "is not https"),
        ("ftp://x", "is not https"),
        ("https://", "has no host"),
        ("https:///path", "has no host"),
        ("https://user@evil.example/", "user information"),
        ("https://a b/", "printable ASCII"),
        ("https://a\u{7}b/", "printable ASCII"),
        ("https://ä.example/", "printable ASCII"),
        ("", "empty"),
    ])
    func option114OtherThanAnHTTPSURIIsRejectedWithAReason(uri: String, reason: String) {
        guard case .failure(let p) = DHCPInform.parseReply(Self.ack(options: [(114, Array(uri.utf8))]), xid: Self.xid) else {
            Issue.record("'\(uri)' was accepted"); return
        }
        #expect(p.description.contains(reason), "\(p)")
        #expect(!p.description.contains("\u{7}"), "control bytes are not echoed")
    }

    @Test func headerProblemsAreRejected() {
        #expect(DHCPInform.parseReply(Self.ack(xid: 1), xid: Self.xid) == .failure(.otherTransaction))
        #expect(DHCPInform.parseReply(Self.ack(op: 1), xid: Self.xid) == .failure(.notAReply(1)))
        #expect(DHCPInform.parseReply(Self.ack(type: 6), xid: Self.xid) == .failure(.notAnAck(6)), "a DHCPNAK")
        #expect(DHCPInform.parseReply(Self.ack(type: nil), xid: Self.xid) == .failure(.notAnAck(nil)))
        var cookie = Self.ack(); cookie[237] = 0
        #expect(DHCPInform.parseReply(cookie, xid: Self.xid) == .failure(.noMagicCookie))
        #expect(DHCPInform.parseReply(Array(Self.ack().prefix(200)), xid: Self.xid) == .failure(.tooShort(200)))
        #expect(DHCPInform.parseReply(Self.ack() + [UInt8](repeating: 0, count: 1500), xid: Self.xid) == .failure(.tooLong(Self.ack().count + 1500)))
        var overrun = Self.ack(options: [(114, Array("https://a/".utf8))])
        overrun.removeLast(3)  // the option claims more than is left, and there is no end
        guard case .failure(.malformedOptions) = DHCPInform.parseReply(overrun, xid: Self.xid) else { Issue.record("overrun accepted"); return }
        var noEnd = Self.ack(); noEnd.removeLast()
        #expect(DHCPInform.parseReply(noEnd, xid: Self.xid) == .failure(.malformedOptions("no end option")))
    }

    /// Fuzz-style: truncations, random byte flips and random garbage never crash and never yield
    /// a URI that is not a bounded https URI.
    @Test func malformedPacketsNeverCrashOrYieldAnythingButAnHTTPSURI() {
        var rng = SystemRandomNumberGenerator()
        let good = Self.ack(options: [(54, [10, 0, 0, 1]), (114, Array("https://capport.example/api".utf8))])
        var accepted = 0
        for round in 0..<20_000 {
            var p: [UInt8]
            switch round % 3 {
            case 0: p = Array(good.prefix(Int.random(in: 0...good.count, using: &rng)))
            case 1:
                p = good
                for _ in 0..<Int.random(in: 1...6, using: &rng) { p[Int.random(in: 236..<p.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            default:
                p = Self.ack() .prefix(240) + (0..<Int.random(in: 0...400, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            if case .success(.api(let uri)) = DHCPInform.parseReply(p, xid: Self.xid) {
                accepted += 1
                #expect(uri.hasPrefix("https://") && uri.utf8.count <= DHCPInform.maxURIBytes && uri.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f })
            }
        }
        #expect(accepted > 0, "some flips leave a valid packet")
    }

    /// The daemon-side exchange on loopback: an ephemeral source port (not 68), unicast to the
    /// server, bound to `lo`; the stand-in answers at the source address and port like dnsmasq.
    @Test func anExchangeWithAStandInServerLearnsTheURI() async throws {
        let server = try DHCPStandIn(uri: "https://capport.test:8443/api/captive")
        defer { server.stop() }
        var q = DHCPInformQuery(interface: "lo", clientAddress: "127.0.0.1", server: "127.0.0.1")
        q.serverPort = server.port
        let answer = await DHCPInform.ask(q)
        #expect((try? answer.get()) == .api("https://capport.test:8443/api/captive"), "\(answer)")
        let seen = try #require(server.requests.first)
        #expect(seen.ciaddr == "127.0.0.1")
        #expect(seen.requested.contains(114))
        #expect(seen.sourcePort != 68 && seen.sourcePort != 0)
    }

    @Test func anExchangeWithAServerThatSendsNo114OrNothing() async throws {
        let server = try DHCPStandIn(uri: nil)
        var q = DHCPInformQuery(interface: "lo", clientAddress: "127.0.0.1", server: "127.0.0.1")
        q.serverPort = server.port
        #expect((try? await DHCPInform.ask(q).get()) == DHCPInform.Answer.none)
        server.stop()
        q.timeout = .milliseconds(600)
        // It ends (the 600 ms timeout), rather than waiting for an answer that never comes.
        let silent = q
        guard case .failure(let e) = try await within("the exchange with a stopped server ends at its 600 ms timeout", { await DHCPInform.ask(silent) }) else {
            Issue.record("a stopped server answered"); return
        }
        #expect(e.description.contains("no DHCPACK"), "\(e)")
        let http = try DHCPStandIn(uri: "http://portal.test/api")
        defer { http.stop() }
        q.serverPort = http.port
        // Waiting for a better answer would take the whole timeout, far past the safety net.
        q.timeout = .seconds(600)
        let bad = q
        guard case .failure(let e2) = try await within("a valid DHCPACK with a bad URI ends the exchange at once (its timeout is 600 s)", {
            await DHCPInform.ask(bad)
        }) else { Issue.record("an http URI was accepted"); return }
        #expect(e2.description.contains("not https"), "\(e2)")
    }
}
