// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import NetworkManager
import Testing

/// The client keeps NetworkManager's live state from its signals
/// (InterfacesAdded, PropertiesChanged, Updated), so a join needs no reads before it is reported.
/// The bus itself is watched (dbus-monitor): every GetAll, GetSettings or ListConnections the
/// client sends is counted.
@Suite(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.hasTool("/usr/bin/dbus-monitor"),
                "needs python3-dbusmock and dbus-monitor (apt-get install python3-dbusmock dbus-bin)"))
struct JoinWithoutReadsTests {
    static let reads: Set<String> = ["GetAll", "Get", "GetSettings", "ListConnections", "GetManagedObjects"]

    @Test func aJoinAnnouncedAsNetworkManagerDoesIsReportedWithoutReads() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let ap = try await nm.addAccessPoint(wlan, "ap1", ssid: "Hotel WiFi", bssid: "12:34:56:78:9A:BC", strength: 55, security: 0x100)
        let profile = try await nm.addWiFiConnection(wlan, "hotel", ssid: "Hotel WiFi")
        let monitor = try await BusMonitor.start(on: nm.bus)
        defer { monitor.stop() }
        let (client, log) = try await ClientTests().startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        let me = client.connection.uniqueName
        func reads() -> [String] { monitor.calls(from: me).map(\.member).filter { Self.reads.contains($0) } }

        // The first join of a profile reads its settings once (they are not properties).
        // dbus-monitor's output may lag the snapshot: caught up first, as after the join below.
        try await monitor.catchUp(nm.control)
        let snapshotReads = reads()
        #expect(snapshotReads.contains("GetManagedObjects"), "\(snapshotReads)")
        try await nm.mock.activate(nm.control, device: wlan.rawValue, profile: profile.rawValue, accessPoint: ap.rawValue, name: "1")
        let (_, first) = try await log.next("first deviceActivated") { $0.activation }
        #expect(first.ssid == bytes("Hotel WiFi"))
        #expect(first.bssid == "12:34:56:78:9A:BC")
        #expect(first.settingsConnection == profile)
        #expect(first.connectionID == "Hotel WiFi")
        #expect(first.autoconnect)
        try await nm.nm("SetDeviceDisconnected", [.string(wlan.rawValue)])
        _ = try await log.next("deactivated") { $0.deactivation }
        try await monitor.catchUp(nm.control)
        let afterFirst = reads()
        #expect(Array(afterFirst.dropFirst(snapshotReads.count)) == ["GetSettings"], "first join and leave: \(afterFirst.dropFirst(snapshotReads.count))")

        // Joining the same profile again, and leaving: nothing is read.
        try await nm.mock.activate(nm.control, device: wlan.rawValue, profile: profile.rawValue, accessPoint: ap.rawValue, name: "2")
        let (device, second) = try await log.next("second deviceActivated") { $0.activation }
        #expect(device.activeConnection == ObjectPath("/org/freedesktop/NetworkManager/ActiveConnection/2"))
        #expect(second.activeConnection == ObjectPath("/org/freedesktop/NetworkManager/ActiveConnection/2"))
        #expect(second.ssid == bytes("Hotel WiFi"))
        #expect(second.didAutoJoin, "the profile existed when the device last went down")
        try await nm.nm("SetDeviceDisconnected", [.string(wlan.rawValue)])
        _ = try await log.next("second deactivated") { $0.deactivation }
        try await monitor.catchUp(nm.control)
        #expect(reads() == afterFirst, "the second join read \(reads().dropFirst(afterFirst.count))")

        // A changed profile (Updated) is read again at the next join, and the change is seen.
        _ = try await nm.control.call(destination: BusName(MockNetworkManager.busName), path: profile,
                                      interface: "org.freedesktop.NetworkManager.Settings.Connection", member: "Update",
                                      body: [.dictionary(key: .string, value: .dictionary(key: .string, value: .variant), [
                                          DictEntry(.string("connection"), .varDict(["id": "Hotel WiFi", "autoconnect": .bool(false),
                                                                                     "type": "802-11-wireless", "uuid": .string(first.connectionUUID?.rawValue ?? "")])),
                                          DictEntry(.string("802-11-wireless"), .varDict(["ssid": .bytes(bytes("Hotel WiFi"))])),
                                      ])])
        try await nm.mock.activate(nm.control, device: wlan.rawValue, profile: profile.rawValue, accessPoint: ap.rawValue, name: "3")
        let (_, third) = try await log.next("third deviceActivated") { $0.activation }
        #expect(!third.autoconnect, "the update switched autoconnect off")
        await client.stop()
    }

    /// An access point's properties go with its object, not with a device's list: one that leaves
    /// the list and comes back (an AccessPointRemoved/Added pair, as in a signal storm) is listed
    /// again without a read. (A read in the middle of a burst holds up every signal queued before
    /// its reply; hotspot-stress's storm overflowed the client's intake that way.)
    @Test func anAccessPointListedAgainIsNotReadAgain() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let ap = try await nm.addAccessPoint(wlan, "ap1", ssid: "Hotel WiFi", bssid: "12:34:56:78:9A:BC", strength: 55, security: 0x100)
        let monitor = try await BusMonitor.start(on: nm.bus)
        defer { monitor.stop() }
        let (client, log) = try await ClientTests().startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        try await monitor.catchUp(nm.control)
        let me = client.connection.uniqueName
        func reads() -> [String] { monitor.calls(from: me).filter { Self.reads.contains($0.member) }.map { "\($0.member) \($0.field("path"))" } }
        let before = reads()

        let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
        func emit(_ member: String) async throws {
            try await nm.nm("EmitSignal", [.string(wireless), .string(member), .string("o"), .array(element: .variant, [.variant(.objectPath(ap))])],
                            path: wlan.rawValue)
        }
        // One after the other: each list is reported.
        try await emit("AccessPointRemoved")
        _ = try await log.next("the list without ap1") { $0.accessPoints?.1.isEmpty == true ? true : nil }
        try await emit("AccessPointAdded")
        let (_, again) = try await log.next("the list with ap1 again") { $0.accessPoints.flatMap { $0.1.map(\.path) == [ap] ? $0 : nil } }
        #expect(again.first?.ssid == bytes("Hotel WiFi"), "the properties kept are the access point's")
        // In one burst, as in a signal storm: the client may report the list once, at the end
        // (it reports a device's list when it has changed since the last report), so the burst
        // ends with a change of strength that makes the final list differ.
        try await emit("AccessPointRemoved")
        try await emit("AccessPointAdded")
        try await nm.nm("EmitSignal", [.string("org.freedesktop.DBus.Properties"), .string("PropertiesChanged"), .string("sa{sv}as"),
                                       .array(element: .variant, [.variant(.string("org.freedesktop.NetworkManager.AccessPoint")),
                                                                  .variant(.varDict(["Strength": .byte(77)])), .variant(.strings([]))])],
                        path: ap.rawValue)
        let (_, afterBurst) = try await log.next("the list with ap1 at 77 %") {
            $0.accessPoints.flatMap { $0.1.map(\.path) == [ap] && $0.1.first?.strength == 77 ? $0 : nil }
        }
        #expect(afterBurst.first?.ssid == bytes("Hotel WiFi"))
        try await monitor.catchUp(nm.control)
        #expect(reads() == before, "listing the access point again read \(reads().dropFirst(before.count))")
        await client.stop()
    }

    /// A connectivity check's DNS servers come from the model too: the device's `Ip4Config` and
    /// the IP4Config object are followed through PropertiesChanged, so a changed server list is
    /// seen without reading it again.
    @Test func dnsServersComeFromTheModelAndFollowItsChanges() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0", state: 100)
        let config: ObjectPath = "/org/freedesktop/NetworkManager/IP4Config/1"
        let ip4 = "org.freedesktop.NetworkManager.IP4Config"
        try await nm.nm("AddObject", [
            .string(config.rawValue), .string(ip4),
            .varDict(["AddressData": .varDicts([["address": .string("192.168.7.23"), "prefix": .uint32(24)]]),
                      "NameserverData": .varDicts([["address": .string("192.168.7.1")]])]),
            .array(element: .structure([.string, .string, .string, .string]), []),
        ])
        try await nm.addProperty(wlan, interface: "org.freedesktop.NetworkManager.Device", "Ip4Config", .objectPath(config))
        let monitor = try await BusMonitor.start(on: nm.bus)
        defer { monitor.stop() }
        let (client, log) = try await ClientTests().startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        let me = client.connection.uniqueName
        #expect(try await client.dnsServers(device: wlan) == ["192.168.7.1"])
        try await monitor.catchUp(nm.control)
        let before = monitor.calls(from: me).map(\.member).filter { Self.reads.contains($0) }

        // The change reaches the client's model through its signal queue: the wait is woken by the
        // same PropertiesChanged on this test's connection (and checks again if the client is behind).
        let waiter = try await BusWaiter(nm.control, wakingOn: [MatchRule(path: config, interface: "org.freedesktop.DBus.Properties")])
        try await nm.updateProperties(config, interface: ip4, ["NameserverData": .varDicts([["address": .string("10.0.0.53")]])])
        var servers: [String] = []
        try await waiter.until("the client sees the changed NameserverData", context: { "\(servers)" }) {
            servers = try await client.dnsServers(device: wlan)
            return servers == ["10.0.0.53"]
        }
        try await monitor.catchUp(nm.control)
        let after = monitor.calls(from: me).map(\.member).filter { Self.reads.contains($0) }
        #expect(after == before, "reading DNS servers read NetworkManager again: \(after.dropFirst(before.count))")
        await client.stop()
    }
}

/// NetworkManager's own connectivity-check setting comes from the manager properties the client
/// keeps anyway: reported after the snapshot and when it changes, with no subscription or read
/// of its own.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ConnectivityCheckEventTests {
    @Test func theSettingIsReportedAfterTheSnapshotAndWhenItChanges() async throws {
        let nm = try await MockNetworkManager()
        let manager = try ObjectPath(MockNetworkManager.managerPath)
        try await nm.addProperty(manager, interface: "org.freedesktop.NetworkManager", "ConnectivityCheckEnabled", .bool(true))
        try await nm.addProperty(manager, interface: "org.freedesktop.NetworkManager", "ConnectivityCheckUri", .string("http://check.test/"))
        let (client, log) = try await ClientTests().startClient(nm)
        let first = try await log.next("the setting after the snapshot") { e -> ConnectivityCheckSettings?? in
            if case .connectivityCheckChanged(let c) = e { return .some(c) }
            return nil
        }
        #expect(first == ConnectivityCheckSettings(enabled: true, uri: "http://check.test/"))
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        // An unrelated manager property: nothing; the check switched off: reported.
        try await nm.updateProperties(manager, interface: "org.freedesktop.NetworkManager", ["Connectivity": .uint32(4)])
        try await nm.updateProperties(manager, interface: "org.freedesktop.NetworkManager", ["ConnectivityCheckEnabled": .bool(false)])
        let next = try await log.next("the setting after the change") { e -> ConnectivityCheckSettings?? in
            if case .connectivityCheckChanged(let c) = e { return .some(c) }
            return nil
        }
        #expect(next == ConnectivityCheckSettings(enabled: false, uri: "http://check.test/"))
        let extra = await log.unmatched { if case .connectivityCheckChanged = $0 { return true } else { return false } }
        #expect(extra.isEmpty, "\(extra)")
        await client.stop()
    }
}
