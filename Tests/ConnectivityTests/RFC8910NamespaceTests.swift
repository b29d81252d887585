// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import Testing

/// RFC 8910's DHCPINFORM across a real link: two network namespaces the test makes (a client with
/// `dh0` 10.231.9.2/24, a server with `dh1` 10.231.9.1/24, a veth between them). The stand-in
/// server's socket is made on a thread moved into the server namespace (listening on 0.0.0.0, so it
/// also gets broadcasts); the exchange runs on a thread moved into the client namespace, bound to
/// `dh0`. Broadcast (no server identifier) and unicast both learn the URI.
@Suite(.serialized, .enabled(if: NamespaceLab.canRun, "needs root and iproute2 (ip netns); skipped"))
struct RFC8910NamespaceTests {
    @Test func broadcastAndUnicastInformsOverAVethLearnTheURI() async throws {
        let suffix = String(getpid() % 10000)
        let client = "hhdi\(suffix)c", server = "hhdi\(suffix)s"
        defer {
            for ns in [client, server] { _ = try? Process.run(URL(fileURLWithPath: "/usr/sbin/ip"), arguments: ["netns", "del", ns]).waitUntilExit() }
        }
        for ns in [client, server] { try await NamespaceLab.ip("netns", "add", ns) }
        try await NamespaceLab.ip("link", "add", "dh0", "netns", client, "type", "veth", "peer", "name", "dh1", "netns", server)
        try await NamespaceLab.ip("-n", client, "addr", "add", "10.231.9.2/24", "dev", "dh0")
        try await NamespaceLab.ip("-n", server, "addr", "add", "10.231.9.1/24", "dev", "dh1")
        try await NamespaceLab.ip("-n", client, "link", "set", "dh0", "up")
        try await NamespaceLab.ip("-n", server, "link", "set", "dh1", "up")

        let standIn = try await NamespaceLab.inNamespace(server) { try DHCPStandIn(host: "0.0.0.0", uri: "https://portal.lab.test/api") }
        defer { standIn.stop() }
        for target in [nil, "10.231.9.1"] as [String?] {
            var q = DHCPInformQuery(interface: "dh0", clientAddress: "10.231.9.2", server: target)
            q.serverPort = standIn.port
            let query = q
            let answer = try await NamespaceLab.inNamespace(client) { DHCPInform.exchange(query) }
            #expect((try? answer.get()) == .api("https://portal.lab.test/api"), "to \(target ?? "broadcast"): \(answer)")
        }
        #expect(standIn.requests.count >= 2)
        #expect(standIn.requests.allSatisfy { $0.ciaddr == "10.231.9.2" && $0.requested.contains(114) })

        // Bound to a link without the lease address: a clear error, not a hang.
        let wrong = DHCPInformQuery(interface: "dh0", clientAddress: "10.231.9.77", server: "10.231.9.1")
        let refused = try await NamespaceLab.inNamespace(client) { DHCPInform.exchange(wrong) }
        guard case .failure(let e) = refused else { Issue.record("bound to an address the namespace lacks"); return }
        #expect(e.description.contains("lease address 10.231.9.77"), "\(e)")
    }
}
