// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import Testing

/// A link with IPv4 and IPv6 is checked once per family: a portal that
/// intercepts one family only is partial, never online.
@Suite struct DualStackTests {
    static let online = ProbeVerdict(state: .online, reason: .expected, successes: 2, total: 2)
    static func portal(_ url: String) -> ProbeVerdict { ProbeVerdict(state: .portal, reason: .redirect(status: 302), signInURL: url, total: 2) }
    static let none = ProbeVerdict(state: .none, reason: .refused, total: 2)

    @Test func aPortalOnOneFamilyIsPartialWithThatFamilysSignInURL() {
        let v6only = ProbeVerdict.combining(ipv4: Self.online, ipv6: Self.portal("http://p/6"))
        #expect(v6only.state == .partial && v6only.reason == .oneFamilyIntercepted("IPv6") && v6only.signInURL == "http://p/6")
        let v4only = ProbeVerdict.combining(ipv4: Self.portal("http://p/4"), ipv6: Self.online)
        #expect(v4only.state == .partial && v4only.reason == .oneFamilyIntercepted("IPv4") && v4only.signInURL == "http://p/4")
    }

    @Test func bothTheSameOrOneFamilyDeadLetsTheOtherDecide() {
        #expect(ProbeVerdict.combining(ipv4: Self.online, ipv6: Self.online).state == .online)
        #expect(ProbeVerdict.combining(ipv4: Self.portal("http://p/4"), ipv6: Self.portal("http://p/6")).signInURL == "http://p/4")
        #expect(ProbeVerdict.combining(ipv4: Self.online, ipv6: Self.none).state == .online, "no IPv6 route says nothing about a portal")
        #expect(ProbeVerdict.combining(ipv4: Self.none, ipv6: Self.portal("http://p/6")).state == .portal)
        #expect(ProbeVerdict.combining(ipv4: Self.none, ipv6: Self.none).state == .none)
    }

    /// Real HTTP over both loopback families: names resolve (through the link DNS, c-ares) to
    /// 127.0.0.1 and ::1, where one port answers 204 over IPv4 and redirects over IPv6.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func aPortalInterceptingOnlyIPv6OverRealSocketsIsPartial() async throws {
        let root = TestKitPaths.repositoryRoot.appendingPathComponent("Tests/helpers").path
        let dns = try ManagedProcess.launch("/usr/bin/python3", [root + "/dns-standin.py", "loopback"])
        let web = try ManagedProcess.launch("/usr/bin/python3", [root + "/dual-stack-portal.py", "online", "portal"])
        defer { dns.stop(); web.stop() }
        func port(_ p: ManagedProcess) async throws -> Int {
            // The whole first line ("port N"), not just its start: its number may not be there yet.
            guard let line = await p.waitForFirstStdoutLine(timeout: .seconds(20)), line.hasPrefix("port "), let n = Int(line.dropFirst(5)) else {
                throw TestKitError.timeout("stand-in: \(p.output)")
            }
            return n
        }
        let dnsPort = try await port(dns), webPort = try await port(web)
        let checker = ConnectivityChecker(configuration: ConnectivityConfiguration(
            probes: [ConnectivityProbe(url: "http://probe.test:\(webPort)/generate_204", expectation: .status(204))]))
        let verdict = await checker.checkBothFamilies(interface: nil, dnsServers: ["127.0.0.1:\(dnsPort)"])
        #expect(verdict.state == .partial, "\(verdict)")
        #expect(verdict.reason == .oneFamilyIntercepted("IPv6"))
        #expect(verdict.signInURL == "http://portal.test/login?family=ipv6")
        let askedV4 = await web.waitForOutput(containing: "ipv4 /generate_204")
        let askedV6 = await web.waitForOutput(containing: "ipv6 /generate_204")
        #expect(askedV4 && askedV6, "each family asked: \(web.output)")
        // The same link checked without families would have taken one address and missed it.
        let single = await checker.check(interface: nil, dnsServers: ["127.0.0.1:\(dnsPort)"])
        #expect(single.state != .partial)
    }
}
