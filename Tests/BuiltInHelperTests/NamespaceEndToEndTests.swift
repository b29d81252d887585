// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
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
    @Suite(.serialized, .enabled(if: NamespaceLab.canRun && TestEnvironment.hasDBusMock, "needs root, iproute2 and python3-dbusmock; skipped"))
    struct NamespaceEndToEndTests {
        @Test func theDaemonSeesThePortalOnTheWifiLinkAndSignsInThroughIt() async throws {
            try await NamespaceLab.run(prefix: "hhbt") { lab in try await Self.signIn(lab) }
        }
    }
}

extension DaemonEndToEnd.NamespaceEndToEndTests {
    static func signIn(_ lab: NamespaceLab) async throws {
        try await lab.startSimulators()
        let bus = try await PrivateBus()
        lab.keep(bus.process)
        let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        lab.keep(nm.process)
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
            .varDict(["AddressData": .varDicts([["address": .string(NamespaceLab.clientWiFiIP), "prefix": .uint32(24)]]),
                      "NameserverData": .varDicts([["address": .string(NamespaceLab.portalIP)]]), "Gateway": .string(NamespaceLab.portalIP)]),
            .array(element: .structure([.string, .string, .string, .string]), []),
        ])
        _ = try await nm.mockCall(c, path: device, "AddProperty", [.string("org.freedesktop.NetworkManager.Device"), .string("Ip4Config"),
                                                                   .variant(.objectPath(try ObjectPath(configPath)))])
        let profiles = try ProfilesDirectory()
        defer { profiles.remove() }
        try profiles.write("city.conf", "[CityFree]\nssid=CityFree\nsign-in=click-through\n")
        let daemon = try await DaemonProcess.start(on: bus, settings: ["command-timeout": "10", "profiles-dir": profiles.path],
                                                   connectivity: ["probes": SimulatedPortal.probes(port: nil), "probe-timeout": "3"],
                                                   prefix: lab.exec(in: lab.client))
        lab.keep(daemon.process)
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
        try await waiter.until("State authenticated, Connectivity full", context: { "\(last)\n\(daemon.log.suffix(5000))" }) {
            last = "\(await property("State")) \(await property("Connectivity"))"
            return last == "authenticated full"
        }
        #expect(daemon.log.contains("connectivity portal"), "the bound probes saw the portal although the default route is online")
        let events = try await lab.portalEvents()
        #expect(events.contains("\"accepted\""), "the sign-in went over the Wi-Fi link: \(events)")
        #expect(events.contains("probe-portal"))
    }
}
