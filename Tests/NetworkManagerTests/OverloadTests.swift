// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import NetworkManager
import Testing

/// The client's signal intake under a flood (bounded intake, no join lost).
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct OverloadTests {
    /// A flood of 2,000 signals, each of which costs the client a round trip to NetworkManager
    /// (a StateChanged below PREPARE re-lists the profiles), sent by the mock in one go so the
    /// client cannot keep up; the device activates right behind it. With 8 signals allowed to
    /// wait, the intake must drop, and the activation's own signals are among those dropped or
    /// queued behind the flood. The client must say it was overloaded, re-read
    /// NetworkManager's state and still report the join.
    @Test func aSignalFloodCannotHideAJoin() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let ap = try await nm.addAccessPoint(wlan, "ap1", ssid: "Airport Free WiFi", bssid: "02:00:00:00:00:01", strength: 60)
        let profile = try await nm.addWiFiConnection(wlan, "airport", ssid: "Airport Free WiFi")
        try await nm.mock.addMethod(nm.control, path: wlan.rawValue, interface: "org.freedesktop.NetworkManager.Device",
                                    name: "Flood", inSignature: "u", outSignature: "",
                                    code: "for i in range(args[0]): self.EmitSignal('org.freedesktop.NetworkManager.Device', 'StateChanged', 'uuu', [30, 30, 0])")
        let client = NetworkManagerClient(connection: try nm.bus.connect(), signalCapacity: 8)
        #expect(client.signalCapacity == 8)
        let log = EventLog(try await client.start())
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }

        _ = try await nm.control.call(MockNetworkManager.busName, wlan.rawValue, "org.freedesktop.NetworkManager.Device", "Flood", [.uint32(2000)])
        let active = try await nm.addActiveConnection(wlan, connection: profile, accessPoint: ap, name: "0")

        let dropped = try await log.next("overloaded") { e -> Int? in
            if case .overloaded(let n) = e { return n }
            return nil
        }
        #expect(dropped > 0)
        _ = try await log.next("managerAvailable(true) after the overload") { $0.availability == true ? true : nil }
        let (device, network) = try await log.next("deviceActivated after the resync") { $0.activation }
        #expect(device.path == wlan)
        #expect(device.state == .activated)
        #expect(device.activeConnection == active)
        #expect(network.ssid == Array("Airport Free WiFi".utf8))
        #expect(network.settingsConnection == profile)
        await client.stop()
    }

    /// The default bound is the documented one, and a bound below one is raised to one (a zero
    /// bound would resynchronize forever).
    @Test func theBoundIsDocumentedAndNeverZero() async throws {
        let bus = try await PrivateBus()
        let connection = try bus.connect()
        #expect(NetworkManagerClient(connection: connection).signalCapacity == NetworkManagerClient.defaultSignalCapacity)
        #expect(NetworkManagerClient(connection: connection, signalCapacity: 0).signalCapacity == 1)
    }
}
