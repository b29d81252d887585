// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import Testing

/// DNS on the link through c-ares, against a stand-in server on loopback
/// (`Tests/helpers/dns-standin.py`) that answers as told: answers must match their question,
/// a truncated UDP answer is asked again over TCP, and AAAA is asked as well as A.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
struct LinkDNSTests {
    struct StandIn {
        let process: ManagedProcess
        let port: UInt16

        static func start(_ mode: String) async throws -> StandIn {
            let script = TestKitPaths.repositoryRoot.appendingPathComponent("Tests/helpers/dns-standin.py").path
            let p = try ManagedProcess.launch("/usr/bin/python3", [script, mode])
            // The whole first line: waiting for "port " alone could read it before its number
            // arrived, and ask port 0.
            guard let line = await p.waitForFirstStdoutLine(timeout: .seconds(20)), line.hasPrefix("port "),
                  let port = UInt16(line.dropFirst(5)), port != 0 else {
                p.stop()
                throw TestKitError.timeout("dns-standin did not start: \(p.output)")
            }
            return StandIn(process: p, port: port)
        }

        var server: String { "127.0.0.1:\(port)" }
        var questions: [String] { process.output.split(separator: "\n").filter { !$0.hasPrefix("port ") }.map(String.init) }
    }

    @Test func aAndAAAAAreBothAskedAndIPv4ComesFirst() async throws {
        let dns = try await StandIn.start("normal")
        defer { dns.process.stop() }
        let result = LinkDNSResolver.resolve(host: "portal.example", servers: [dns.server], interface: nil, timeout: .seconds(5))
        #expect(try result.get() == ["10.9.8.7", "fd00::7"])
        let askedA = await dns.process.waitForOutput(containing: "udp 1\n")
        let askedAAAA = await dns.process.waitForOutput(containing: "udp 28\n")
        #expect(askedA && askedAAAA, "\(dns.questions)")
    }

    @Test func anAnswerWithAnotherIDIsNotBelieved() async throws {
        let dns = try await StandIn.start("wrong-id")
        defer { dns.process.stop() }
        let result = LinkDNSResolver.resolve(host: "portal.example", servers: [dns.server], interface: nil, timeout: .seconds(2))
        #expect(throws: TransferError.self) { try result.get() }
        if case .failure(let e) = result { #expect(e.kind == .dns && e.detail.contains("no answer for portal.example"), "\(e)") }
    }

    @Test func anAnswerToAnotherQuestionIsNotBelieved() async throws {
        let dns = try await StandIn.start("wrong-name")
        defer { dns.process.stop() }
        let result = LinkDNSResolver.resolve(host: "portal.example", servers: [dns.server], interface: nil, timeout: .seconds(2))
        #expect(throws: TransferError.self) { try result.get() }
        #expect(await dns.process.waitForOutput(containing: "udp "), "the question went out: \(dns.questions)")
    }

    @Test func aTruncatedAnswerIsAskedAgainOverTCP() async throws {
        let dns = try await StandIn.start("truncated")
        defer { dns.process.stop() }
        let result = LinkDNSResolver.resolve(host: "portal.example", servers: [dns.server], interface: nil, timeout: .seconds(5))
        #expect(try result.get() == ["10.9.8.7", "fd00::7"])
        #expect(await dns.process.waitForOutput(containing: "tcp "), "\(dns.questions)")
    }

    /// No query leaves unbound: when the interface cannot be bound (it does not exist), c-ares
    /// drops the socket and nothing reaches the server.
    @Test func aQueryWhoseInterfaceCannotBeBoundDoesNotGoOut() async throws {
        let dns = try await StandIn.start("normal")
        defer { dns.process.stop() }
        let result = LinkDNSResolver.resolve(host: "portal.example", servers: [dns.server], interface: "nosuchif0", timeout: .seconds(2))
        #expect(throws: TransferError.self) { try result.get() }
        if case .failure(let e) = result { #expect(e.detail.contains("cannot bind DNS queries to nosuchif0"), "\(e)") }
        // A stray datagram would be logged within this wait.
        #expect(!(await dns.process.waitForOutput(containing: "udp ", timeout: .seconds(1))), "\(dns.questions)")
    }

    @Test func addressLiteralsAndBadServersNeedNoQuery() throws {
        #expect(try LinkDNSResolver.resolve(host: "192.0.2.1", servers: [], interface: nil, timeout: .seconds(1)).get() == ["192.0.2.1"])
        let bad = LinkDNSResolver.resolve(host: "a.example", servers: ["not-an-address"], interface: nil, timeout: .seconds(1))
        if case .failure(let e) = bad { #expect(e.detail.contains("invalid DNS server")) } else { Issue.record("accepted a bad server") }
    }
}
