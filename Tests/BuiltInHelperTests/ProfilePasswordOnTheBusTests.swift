// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Synchronization
import Testing

/// The built-in helpers run in the daemon, so a password a profile holds leaves
/// the daemon only towards NetworkManager (its secret-agent call, and the in-memory profile when
/// provisioning is on). Watched with dbus-monitor on the test's own bus: every message that
/// carries the password must go from the daemon to NetworkManager (or be the mock relaying
/// NetworkManager's answer to the test). Before, the built-in helper answered filter-scan-list
/// from a connection of its own, so each scan put the password on the bus.
@Suite(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.hasTool("/usr/bin/dbus-monitor"),
                "needs python3-dbusmock and dbus-monitor (apt-get install python3-dbusmock dbus-bin)"))
struct ProfilePasswordOnTheBusTests {
    static let password = "profile-psk-7Qx2-never-on-the-bus"

    @Test func aProfilesPasswordTravelsOnlyFromTheDaemonToNetworkManager() async throws {
        let monitorBox = MonitorBox()
        try await PortalScenario.run(PortalSimulatorConfiguration(),
                                     profile: "[Office]\nssid=Office\npassword=\(Self.password)\n",
                                     beforeDaemon: { nm, client, _ in
            monitorBox.monitor = try await BusMonitor.start(on: nm.bus)
            monitorBox.nmName = try await client.nameOwner("org.freedesktop.NetworkManager")
        }) { s in
            let monitor = try #require(monitorBox.monitor)
            defer { monitor.stop() }
            let nmName = try #require(monitorBox.nmName)
            let daemonName = try #require(try await s.client.nameOwner(HotspotContract.busName))

            // filter-scan-list has run when the scan list shows the profile's password.
            try await s.waitUntil("Office annotated with a password") {
                let list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface,
                                                   member: "GetScanList").first?.arrayItems?.compactMap { $0.varDict } ?? []
                return list.contains { $0["ssid"] == .bytes(Array("Office".utf8)) && $0["has-password"] == .bool(true) }
            }
            // NetworkManager asks the secret agent, as it does when joining.
            var secrets: [DBusValue] = []
            try await s.waitUntil("the secret agent answers") {
                secrets = (try? await s.nm.callGetSecrets(s.client, agent: HotspotContract.busName.rawValue, ssid: Array("Office".utf8))) ?? []
                return !secrets.isEmpty
            }
            let psk = secrets.first?.dictEntries?.first { $0.key == .string("802-11-wireless-security") }?.value.varDict?["psk"]
            #expect(psk == .string(Self.password))
            // Another scan result: a second access point of the same network, claimed in a new
            // filter-scan-list round with the password again; then read what the bus carried.
            _ = try await s.mock("AddAccessPoint", [.string(s.device), "ap3", "Office", "0A:00:00:00:00:03", .uint32(2), .uint32(2412),
                                                    .uint32(54000), .byte(60), .uint32(0x100)])
            try await s.waiter.until("both Office access points are annotated", context: { s.diagnostics }) {
                let list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface,
                                                   member: "GetScanList").first?.arrayItems?.compactMap { $0.varDict } ?? []
                return list.filter { $0["ssid"] == .bytes(Array("Office".utf8)) && $0["has-password"] == .bool(true) }.count == 2
            }
            try await monitor.catchUp(s.client)

            let carriers = monitor.messages.filter { $0.text.contains(Self.password) }
            #expect(!carriers.isEmpty)
            for m in carriers {
                let fromDaemonToNM = m.sender == daemonName && m.destination == nmName
                let nmToTest = m.sender == nmName && m.kind == "method return"  // the mock relaying GetSecrets' answer to the test
                #expect(fromDaemonToNM || nmToTest, "the password crossed the bus from \(m.sender) to \(m.destination): \(m.header)")
            }
        }
    }
}

/// What the scenario's set-up closure hands back: the monitor started before the daemon.
final class MonitorBox: Sendable {
    private let state = Mutex<(BusMonitor?, String?)>((nil, nil))
    var monitor: BusMonitor? {
        get { state.withLock { $0.0 } }
        set { state.withLock { $0.0 = newValue } }
    }
    var nmName: String? {
        get { state.withLock { $0.1 } }
        set { state.withLock { $0.1 = newValue } }
    }
}
