// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import Synchronization
import Testing

/// The daemon inside a client network namespace the test makes: a veth named `wlan0` (like the
/// mock's Wi-Fi device) to a portal namespace (simulator in click-through mode and its DNS), and an
/// uplink `up0` to an "internet" namespace (simulator in open mode) that carries the default route.
/// The daemon's probes are bound to `wlan0` and resolve through the DNS server NetworkManager
/// reports for it (an IP4Config object added to the mock), so they see the portal although the
/// default route is online, and the profile helper signs in over the Wi-Fi link. The bus has a
/// path-based socket (abstract sockets do not cross namespaces). Only addresses inside the test's
/// namespaces are used; they are removed always.
extension DaemonEndToEnd {
    @Suite(.serialized, .enabled(if: DaemonLab.canRun && TestEnvironment.hasDBusMock, "needs root, iproute2 and python3-dbusmock; skipped"))
    struct NamespaceEndToEndTests {
        @Test func theDaemonSeesThePortalOnTheWifiLinkAndSignsInThroughIt() async throws {
            let lab = try await DaemonLab.create()
            do {
                try await lab.run()
            } catch {
                await lab.destroy()
                throw error
            }
            await lab.destroy()
        }
    }
}

final class DaemonLab: Sendable {
    static let portalIP = "10.231.8.1"
    static let internetIP = "198.51.100.1"
    static let sharedIP = "192.0.2.80"
    static var canRun: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") }

    let client: String, portal: String, internet: String
    let processes = Mutex<[ManagedProcess]>([])

    private init(suffix: String) {
        client = "hhbt\(suffix)c"
        portal = "hhbt\(suffix)p"
        internet = "hhbt\(suffix)i"
    }

    static func create() async throws -> DaemonLab {
        let lab = DaemonLab(suffix: String(UInt32.random(in: 0..<0xFFFF), radix: 16))
        do { try await lab.setUp() } catch {
            await lab.destroy()
            throw error
        }
        return lab
    }

    func ip(_ args: String...) async throws {
        let r = try await ManagedProcess.run("/usr/sbin/ip", args, timeout: .seconds(20))
        guard r.status == 0 else { throw LabFailure(message: "ip \(args.joined(separator: " ")) failed: \(r.stderr)") }
    }

    private func setUp() async throws {
        for ns in [client, portal, internet] {
            try await ip("netns", "add", ns)
            try await ip("-n", ns, "link", "set", "lo", "up")
        }
        try await ip("link", "add", "wlan0", "netns", client, "type", "veth", "peer", "name", "wlan1", "netns", portal)
        try await ip("link", "add", "up0", "netns", client, "type", "veth", "peer", "name", "up1", "netns", internet)
        try await ip("-n", client, "addr", "add", "10.231.8.2/24", "dev", "wlan0")
        try await ip("-n", portal, "addr", "add", "\(Self.portalIP)/24", "dev", "wlan1")
        try await ip("-n", client, "addr", "add", "198.51.100.2/24", "dev", "up0")
        try await ip("-n", internet, "addr", "add", "\(Self.internetIP)/24", "dev", "up1")
        try await ip("-n", portal, "addr", "add", "\(Self.sharedIP)/32", "dev", "lo")
        try await ip("-n", internet, "addr", "add", "\(Self.sharedIP)/32", "dev", "lo")
        for (ns, dev) in [(client, "wlan0"), (client, "up0"), (portal, "wlan1"), (internet, "up1")] {
            try await ip("-n", ns, "link", "set", dev, "up")
        }
        try await ip("-n", client, "route", "add", "default", "via", Self.internetIP, "dev", "up0", "metric", "100")
        try await ip("-n", client, "route", "add", "default", "via", Self.portalIP, "dev", "wlan0", "metric", "20100")
    }

    func keep(_ p: ManagedProcess) { processes.withLock { $0.append(p) } }

    func run() async throws {
        let sim = TestKitPaths.product("hotspot-portal-sim").path
        for (ns, mode, dnsIP) in [(portal, "click-through", Self.portalIP), (internet, "open", Self.internetIP)] {
            let p = try ManagedProcess.launch("/usr/sbin/ip", ["netns", "exec", ns, sim, "serve", "--mode", mode, "--listen", "0.0.0.0:80",
                                                               "--dns-listen", "\(dnsIP):53", "--dns-answer", Self.sharedIP], name: "sim-\(mode)")
            keep(p)
            guard await p.waitForOutput(containing: "dns on", timeout: .seconds(10)) else {
                throw LabFailure(message: "simulator in \(ns) did not start: \(p.output)")
            }
        }
        let bus = try await PrivateBus()
        keep(bus.process)
        let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        keep(nm.process)
        let c = try bus.connect()
        let nmPath = "/org/freedesktop/NetworkManager"
        let device = try await nm.mockCall(c, path: nmPath, "AddWiFiDevice", ["wlan0", "wlan0", .int32(30)]).first?.string ?? ""
        _ = try await nm.mockCall(c, path: nmPath, "AddAccessPoint", [.string(device), "ap1", "CityFree", "0A:00:00:00:00:01",
                                                                       .uint32(2), .uint32(2412), .uint32(54000), .byte(70), .uint32(0)])
        try await nm.addDisconnect(c, device: device)
        try await nm.addAgentManager(c)
        // The mock has no IP4Config objects: add the Wi-Fi link's, naming the portal's DNS server.
        let configPath = "/org/freedesktop/NetworkManager/IP4Config/7"
        _ = try await nm.mockCall(c, path: nmPath, "AddObject", [
            .string(configPath), .string("org.freedesktop.NetworkManager.IP4Config"),
            .varDict(["AddressData": .varDicts([["address": .string("10.231.8.2"), "prefix": .uint32(24)]]),
                      "NameserverData": .varDicts([["address": .string(Self.portalIP)]]), "Gateway": .string(Self.portalIP)]),
            .array(element: .structure([.string, .string, .string, .string]), []),
        ])
        _ = try await nm.mockCall(c, path: device, "AddProperty", [.string("org.freedesktop.NetworkManager.Device"), .string("Ip4Config"),
                                                                   .variant(.objectPath(try ObjectPath(configPath)))])
        let profiles = try ProfilesDirectory()
        defer { profiles.remove() }
        try profiles.write("city.conf", "[CityFree]\nssid=CityFree\nsign-in=click-through\n")
        let probes = ["http://connectivitycheck.gstatic.com/generate_204 status=204",
                      "http://captive.apple.com/hotspot-detect.html contains=Success",
                      "http://www.msftconnecttest.com/connecttest.txt equals=Microsoft Connect Test",
                      "http://nmcheck.gnome.org/check_network_status.txt header=X-NetworkManager-Status:online"].joined(separator: ";")
        let daemon = try await DaemonProcess.start(on: bus, settings: ["command-timeout": "10", "profiles-dir": profiles.path],
                                                   connectivity: ["probes": probes, "probe-timeout": "3"],
                                                   prefix: ["/usr/sbin/ip", "netns", "exec", client])
        keep(daemon.process)
        let iface: ObjectPath = "/org/freedesktop/NetworkManager/HotspotHelper/Interface/1"
        func property(_ name: String) async -> String {
            (try? await c.call(destination: "org.freedesktop.NetworkManager.HotspotHelper", path: iface, interface: "org.freedesktop.DBus.Properties",
                               member: "Get", body: [.string("org.freedesktop.NetworkManager.HotspotHelper.Interface"), .string(name)]))?
                .first?.unwrapped.string ?? ""
        }
        let waiter = try await BusWaiter.daemonAndNetworkManager(c)
        _ = try await nm.mockCall(c, path: nmPath, "AddWiFiConnection", [.string(device), "cityfree", "CityFree", ""])
        _ = try await nm.mockCall(c, path: nmPath, "AddActiveConnection", [.strings([device]), "/org/freedesktop/NetworkManager/Settings/cityfree",
                                                                            "/org/freedesktop/NetworkManager/AccessPoint/ap1", "active1", .uint32(2)])
        var last = ""
        try await waiter.until("State authenticated, Connectivity full", timeout: .seconds(30), context: { "\(last)\n\(daemon.log.suffix(5000))" }) {
            last = "\(await property("State")) \(await property("Connectivity"))"
            return last == "authenticated full"
        }
        #expect(daemon.log.contains("connectivity portal"), "the bound probes saw the portal although the default route is online")
        let events = try await ManagedProcess.run("/usr/sbin/ip", ["netns", "exec", portal, "curl", "-s", "--max-time", "5",
                                                                   "http://\(Self.portalIP)/__sim/events"], timeout: .seconds(10)).stdout
        #expect(events.contains("\"accepted\""), "the sign-in went over the Wi-Fi link: \(events)")
        #expect(events.contains("probe-portal"))
    }

    /// Stops every process, then removes the namespaces (their veths go with them).
    func destroy() async {
        for p in processes.withLock({ $0 }).reversed() {
            p.stop(grace: 0.5)
            _ = await p.waitForExit(timeout: .seconds(3))
        }
        for ns in [client, portal, internet] {
            _ = try? await ManagedProcess.run("/usr/sbin/ip", ["netns", "del", ns], timeout: .seconds(20))
        }
    }
}

struct LabFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
