// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Synchronization
import Testing

/// Network namespaces the test makes itself: a "client" namespace with a Wi-Fi-like veth to a
/// "portal" namespace (simulator in click-through mode, DNS answering every name) and an uplink
/// veth to an "internet" namespace (simulator in open mode). The client's default route goes
/// through the uplink; the Wi-Fi link has only a higher-metric default route, as NetworkManager
/// gives a link without connectivity. Both sides serve the same address 192.0.2.80, so only the
/// interface a probe leaves through decides what it sees. Nothing outside these namespaces is
/// touched, and they are removed even when the test fails.
@Suite(.serialized, .enabled(if: NamespaceLab.canRun, "needs root and iproute2 (ip netns); skipped"))
struct NamespaceTests {
    @Test func probesBoundToTheWifiLinkSeeThePortalWhileTheDefaultRouteIsOnline() async throws {
        let lab = try await NamespaceLab.create()
        do {
            try await lab.startSimulators()
            let wifi = try await lab.probe(interface: "wifi0", dns: NamespaceLab.portalIP)
            #expect(wifi["state"] as? String == "portal", "\(wifi)")
            #expect((wifi["signInURL"] as? String)?.contains("/portal?orig=") == true)

            let uplink = try await lab.probe(interface: "up0", dns: NamespaceLab.internetIP)
            #expect(uplink["state"] as? String == "online", "\(uplink)")

            let defaultRoute = try await lab.probe(interface: nil, dns: NamespaceLab.internetIP)
            #expect(defaultRoute["state"] as? String == "online", "the default route says online: \(defaultRoute)")

            let unboundWithWifiDNS = try await lab.probe(interface: nil, dns: NamespaceLab.portalIP)
            #expect(unboundWithWifiDNS["state"] as? String == "online",
                    "without binding, the same names and DNS lead out through the default route: \(unboundWithWifiDNS)")

            let events = try await lab.portalEvents()
            #expect(events.contains("probe-portal"), "the portal saw the bound probes")
        } catch {
            await lab.destroy()
            throw error
        }
        await lab.destroy()
    }
}

/// The namespaces, links and simulators of one test.
final class NamespaceLab: Sendable {
    static let portalIP = "10.231.7.1"
    static let internetIP = "198.51.100.1"
    static let sharedIP = "192.0.2.80"

    static var canRun: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") }

    let client: String, portal: String, internet: String
    let simulators = Mutex<[ManagedProcess]>([])

    private init(suffix: String) {
        client = "hhpt\(suffix)c"
        portal = "hhpt\(suffix)p"
        internet = "hhpt\(suffix)i"
    }

    static var simulatorPath: String? {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("hotspot-portal-sim").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    static func create() async throws -> NamespaceLab {
        let lab = NamespaceLab(suffix: String(UInt32.random(in: 0..<0xFFFF), radix: 16))
        do {
            try await lab.setUp()
        } catch {
            await lab.destroy()
            throw error
        }
        return lab
    }

    func ip(_ args: String...) async throws {
        let r = try await ManagedProcess.run("/usr/sbin/ip", args, timeout: .seconds(20))
        guard r.status == 0 else { throw LabError(message: "ip \(args.joined(separator: " ")) failed: \(r.stderr)") }
    }

    private func setUp() async throws {
        for ns in [client, portal, internet] {
            try await ip("netns", "add", ns)
            try await ip("-n", ns, "link", "set", "lo", "up")
        }
        try await ip("link", "add", "wifi0", "netns", client, "type", "veth", "peer", "name", "wifi1", "netns", portal)
        try await ip("link", "add", "up0", "netns", client, "type", "veth", "peer", "name", "up1", "netns", internet)
        try await ip("-n", client, "addr", "add", "10.231.7.2/24", "dev", "wifi0")
        try await ip("-n", portal, "addr", "add", "\(Self.portalIP)/24", "dev", "wifi1")
        try await ip("-n", client, "addr", "add", "198.51.100.2/24", "dev", "up0")
        try await ip("-n", internet, "addr", "add", "\(Self.internetIP)/24", "dev", "up1")
        try await ip("-n", portal, "addr", "add", "\(Self.sharedIP)/32", "dev", "lo")
        try await ip("-n", internet, "addr", "add", "\(Self.sharedIP)/32", "dev", "lo")
        for (ns, dev) in [(client, "wifi0"), (client, "up0"), (portal, "wifi1"), (internet, "up1")] {
            try await ip("-n", ns, "link", "set", dev, "up")
        }
        try await ip("-n", client, "route", "add", "default", "via", Self.internetIP, "dev", "up0", "metric", "100")
        try await ip("-n", client, "route", "add", "default", "via", Self.portalIP, "dev", "wifi0", "metric", "20100")
    }

    func startSimulators() async throws {
        guard let sim = Self.simulatorPath else { throw LabError(message: "hotspot-portal-sim is not built next to the test bundle") }
        for (ns, mode, dnsIP) in [(portal, "click-through", Self.portalIP), (internet, "open", Self.internetIP)] {
            let p = try ManagedProcess.launch("/usr/sbin/ip", ["netns", "exec", ns, sim, "serve", "--mode", mode, "--listen", "0.0.0.0:80",
                                                               "--dns-listen", "\(dnsIP):53", "--dns-answer", Self.sharedIP], name: "sim-\(mode)")
            simulators.withLock { $0.append(p) }
            guard await p.waitForOutput(containing: "dns on", timeout: .seconds(10)) else {
                throw LabError(message: "simulator in \(ns) did not start: \(p.output)")
            }
        }
    }

    func probe(interface: String?, dns: String) async throws -> [String: Any] {
        guard let sim = Self.simulatorPath else { throw LabError(message: "hotspot-portal-sim missing") }
        var args = ["netns", "exec", client, sim, "probe", "--dns", dns, "--timeout-ms", "3000",
                    "--url", "204@http://connectivitycheck.gstatic.com/generate_204",
                    "--url", "contains:Success@http://captive.apple.com/hotspot-detect.html",
                    "--url", "equals:Microsoft Connect Test@http://www.msftconnecttest.com/connecttest.txt",
                    "--url", "header:X-NetworkManager-Status:online@http://nmcheck.gnome.org/check_network_status.txt"]
        if let interface { args += ["--interface", interface] }
        let r = try await ManagedProcess.run("/usr/sbin/ip", args, timeout: .seconds(30))
        guard r.status == 0, let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw LabError(message: "probe failed (\(r.status)): \(r.stdout) \(r.stderr)")
        }
        return object
    }

    func portalEvents() async throws -> String {
        let r = try await ManagedProcess.run("/usr/sbin/ip", ["netns", "exec", portal, "curl", "-s", "--max-time", "5",
                                                              "http://\(Self.portalIP)/__sim/events"], timeout: .seconds(10))
        return r.stdout
    }

    /// Stops the simulators, then removes the namespaces (their veths go with them).
    func destroy() async {
        let procs = simulators.withLock { $0 }
        for p in procs {
            p.stop(grace: 0.5)
            _ = await p.waitForExit(timeout: .seconds(3))
        }
        for ns in [client, portal, internet] {
            _ = try? await ManagedProcess.run("/usr/sbin/ip", ["netns", "del", ns], timeout: .seconds(20))
        }
    }
}

struct LabError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
