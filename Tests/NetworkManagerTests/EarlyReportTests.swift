// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import NetworkManager
import Testing

/// NetworkManager's pre-up dispatcher asks for a join to be reported before ACTIVATED
/// (`reportJoinEarly`). It runs right after NetworkManager announced the activation, often right
/// after a leave (NetworkManager switching networks), and the answer must be about that join: it
/// is handled behind every signal read before the request and comes as an event in order.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct EarlyReportTests {
    @Test func anEarlyReportComesBehindTheLeaveAndTheActivationAnnouncedBeforeIt() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let ap = try await nm.addAccessPoint(wlan, "ap1", ssid: "CityFree", bssid: "12:34:56:78:9A:BC", strength: 55)
        let profile = try await nm.addWiFiConnection(wlan, "cityfree", ssid: "CityFree")
        let (client, log) = try await ClientTests().startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        try await nm.mock.activate(nm.control, device: wlan.rawValue, profile: profile.rawValue, accessPoint: ap.rawValue, name: "1")
        _ = try await log.next("the first join") { $0.activation }

        // NetworkManager leaves the network and starts the next join up to IP_CHECK, then runs
        // the dispatcher, whose request reaches the client's connection behind those signals (a
        // round trip on that connection stands for it: its reply comes behind them).
        try await nm.mock.deactivate(nm.control, device: wlan.rawValue)
        try await nm.mock.activateHeld(nm.control, device: wlan.rawValue, profile: profile.rawValue, accessPoint: ap.rawValue, name: "2")
        try await Self.caughtUp(client)
        #expect(await client.reportJoinEarly(interface: "wlan0", token: 7))

        // In order: the leave, the new join (early, in IP_CHECK), then the answer.
        _ = try await log.next("the leave") { $0.deactivation }
        let (device, joined) = try await log.next("the second join, reported early") { $0.activation }
        #expect(joined.activeConnection == ObjectPath("/org/freedesktop/NetworkManager/ActiveConnection/2"))
        #expect(device.state == .ipCheck)
        let answer = try await log.next("the answer") { $0.earlyReport }
        #expect(answer.interface == "wlan0" && answer.token == 7 && answer.reported)

        // ACTIVATED then reports nothing new.
        try await nm.mock.finishActivation(nm.control, device: wlan.rawValue)
        #expect(await log.unmatched { $0.activation != nil }.isEmpty)

        // Not being activated, or not a Wi-Fi device: answered, not reported.
        try await nm.mock.deactivate(nm.control, device: wlan.rawValue)
        try await Self.caughtUp(client)
        #expect(await client.reportJoinEarly(interface: "wlan0", token: 8))
        #expect(await client.reportJoinEarly(interface: "eth0", token: 9))
        _ = try await log.next("the second leave") { $0.deactivation }
        let idle = try await log.next("the answer for a device in DISCONNECTED") { $0.earlyReport }
        #expect(idle.token == 8 && !idle.reported)
        let unknown = try await log.next("the answer for eth0") { $0.earlyReport }
        #expect(unknown.token == 9 && !unknown.reported)
        #expect(await log.unmatched { $0.activation != nil }.isEmpty)

        // A stopped client cannot be asked: the caller hears so at once.
        await client.stop()
        #expect(await !client.reportJoinEarly(interface: "wlan0", token: 10))
    }

    /// A round trip on the client's connection: its reply comes behind every signal queued to it
    /// before, so the client has read them (into its queue) when this returns.
    static func caughtUp(_ client: NetworkManagerClient) async throws {
        _ = try await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", member: "GetId")
    }
}

extension NetworkManagerEvent {
    var earlyReport: (interface: String, token: UInt64, reported: Bool)? {
        if case .joinReportedEarly(let i, let t, let r) = self { return (i, t, r) }
        return nil
    }
}
