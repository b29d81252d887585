// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import NetworkManager
import Testing

/// Roaming as real NetworkManager 1.42 shows it (found by the lab, docs/LAB.md): the device stays
/// ACTIVATED and only `Device.Wireless.ActiveAccessPoint` moves to the other BSSID.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct RoamingTests {
    @Test func movingToAnotherAccessPointWhileActivatedIsReportedAgainWithTheNewBSSID() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let first = try await nm.addAccessPoint(wlan, "ap1", ssid: "RoamNet", bssid: "02:00:00:00:04:00", strength: 60)
        let second = try await nm.addAccessPoint(wlan, "ap2", ssid: "RoamNet", bssid: "02:00:00:00:05:00", strength: 50)
        try await nm.addProperty(wlan, interface: ClientTests.wireless, "ActiveAccessPoint", .objectPath(first))
        let test = ClientTests()
        let (client, log) = try await test.startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        let profile = try await nm.addWiFiConnection(wlan, "roam", ssid: "RoamNet")
        _ = try await nm.addActiveConnection(wlan, connection: profile, accessPoint: first, name: "0")
        let (_, joined) = try await log.next("deviceActivated") { $0.activation }
        #expect(joined.bssid == "02:00:00:00:04:00")

        // As NetworkManager announces it (python-dbusmock's UpdateProperties cannot carry a path).
        _ = try await nm.nm("SetProperty", [.string(wlan.rawValue), .string(ClientTests.wireless), .string("ActiveAccessPoint"),
                                            .variant(.objectPath(second))])
        _ = try await nm.nm("EmitSignal", [.string("org.freedesktop.DBus.Properties"), .string("PropertiesChanged"), .string("sa{sv}as"),
                                           .array(element: .variant, [.variant(.string(ClientTests.wireless)),
                                                                      .variant(.varDict(["ActiveAccessPoint": .objectPath(second)])),
                                                                      .variant(.strings([]))])],
                            path: wlan.rawValue)
        let (device, roamed) = try await log.next("deviceActivated after the roam") { $0.activation }
        #expect(device.path == wlan)
        #expect(roamed.bssid == "02:00:00:00:05:00")
        #expect(roamed.accessPoint == second)
        #expect(roamed.ssid == joined.ssid)
        #expect(roamed.settingsConnection == joined.settingsConnection)
        let losses = await log.unmatched { $0.deactivation != nil }
        #expect(losses.isEmpty, "a roam is not a loss of connectivity: \(losses)")
        await client.stop()
    }
}
