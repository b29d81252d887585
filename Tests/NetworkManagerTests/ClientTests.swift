// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import NetworkManager
import Testing

/// The client against python-dbusmock's NetworkManager template on a private bus.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ClientTests {
    static let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPoint = "org.freedesktop.NetworkManager.AccessPoint"

    func startClient(_ nm: MockNetworkManager) async throws -> (NetworkManagerClient, EventLog) {
        let client = NetworkManagerClient(connection: try nm.bus.connect())
        let log = EventLog(try await client.start())
        return (client, log)
    }

    @Test func snapshotReportsDevicesAccessPointsTheJoinAndThePrimaryConnection() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let ap1 = try await nm.addAccessPoint(wlan, "ap1", ssid: "CoffeeShop", bssid: "00:11:22:33:44:55", strength: 80, security: 0x100)
        let ap2 = try await nm.addAccessPoint(wlan, "ap2", ssid: "Airport", bssid: "66:77:88:99:AA:BB", strength: 40)
        let profile = try await nm.addWiFiConnection(wlan, "coffee", ssid: "CoffeeShop")
        let active = try await nm.addActiveConnection(wlan, connection: profile, accessPoint: ap1, name: "0")

        let (client, log) = try await startClient(nm)
        #expect(try await log.next("managerAvailable(true)") { $0.availability } == true)
        let device = try await log.next("wifiDeviceAdded") { $0.addedDevice }
        #expect(device.path == wlan)
        #expect(device.interfaceName == "wlan0")
        #expect(device.hwAddress == "11:22:33:44:55:66")
        #expect(device.state == .activated)
        let (listDevice, list) = try await log.next("accessPointsChanged") { $0.accessPoints }
        #expect(listDevice == wlan)
        #expect(list.map(\.path) == [ap1, ap2])
        #expect(list.map(\.security) == [.personal, .open])
        #expect(list.map(\.strength) == [80, 40])
        let (activatedDevice, network) = try await log.next("deviceActivated") { $0.activation }
        #expect(activatedDevice.path == wlan)
        #expect(activatedDevice.activeConnection == active)
        #expect(network.ssid == bytes("CoffeeShop"))
        #expect(network.bssid == "00:11:22:33:44:55")
        #expect(network.security == .personal)
        #expect(network.strength == 80)
        #expect(network.accessPoint == ap1, "the mock has no ActiveAccessPoint: the active connection's SpecificObject is used")
        #expect(network.settingsConnection == profile)
        #expect(network.connectionID == "CoffeeShop", "the template names profiles after their SSID")
        #expect(network.autoconnect)
        #expect(network.didAutoJoin, "the profile existed before the client saw the activation, and autoconnect is on")
        let (type, primaryDevice, connectivity) = try await log.next("primaryConnectionChanged") { $0.primary }
        #expect(type == "802-11-wireless")
        #expect(primaryDevice == wlan)
        #expect(connectivity == .full)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        await client.stop()
    }

    /// The client owns device ↔ name: a renamed interface is an event, later events carry the new
    /// name, and the primary connection is reported again with it.
    @Test func aRenamedInterfaceIsReportedAndLaterEventsCarryTheNewName() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let ap = try await nm.addAccessPoint(wlan, "ap1", ssid: "Cafe", bssid: "00:11:22:33:44:01", strength: 60)
        let profile = try await nm.addWiFiConnection(wlan, "cafe", ssid: "Cafe")
        _ = try await nm.addActiveConnection(wlan, connection: profile, accessPoint: ap, name: "0")
        let (client, log) = try await startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        #expect(log.all.compactMap(\.primaryWifiInterface).last == .some("wlan0"))

        try await nm.updateProperties(wlan, interface: "org.freedesktop.NetworkManager.Device", ["Interface": .string("wlp2s0")])
        let (renamed, from) = try await log.next("wifiDeviceRenamed") { $0.rename }
        #expect(renamed.path == wlan && renamed.interfaceName == "wlp2s0" && from == "wlan0")
        #expect(try await log.next("primary with the new name") { $0.primaryWifiInterface } == .some("wlp2s0"))
        #expect(await client.devicePath(interface: "wlp2s0") == wlan)
        #expect(await client.devicePath(interface: "wlan0") == nil)

        // The same name again is no rename.
        try await nm.updateProperties(wlan, interface: "org.freedesktop.NetworkManager.Device", ["Interface": .string("wlp2s0")])
        let again = await log.unmatched { $0.rename != nil }
        #expect(again.isEmpty, "a change that keeps the name is no rename: \(again)")
        await client.stop()
    }

    @Test func wifiDevicesAppearAndDisappearAndOtherDevicesAreIgnored() async throws {
        let nm = try await MockNetworkManager()
        let (client, log) = try await startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        #expect(log.all.compactMap(\.addedDevice).isEmpty)

        _ = try await nm.nm("AddEthernetDevice", [.string("eth0"), .string("eth0"), .int32(100)])
        let wlan = try await nm.addWiFiDevice("wlan1", state: 30)
        let added = try await log.next("wifiDeviceAdded") { $0.addedDevice }
        #expect(added.path == wlan)
        #expect(added.interfaceName == "wlan1")
        #expect(added.state == .disconnected)
        let (d, list) = try await log.next("empty accessPointsChanged") { $0.accessPoints }
        #expect(d == wlan && list.isEmpty)

        try await nm.removeDevice(wlan)
        #expect(try await log.next("wifiDeviceRemoved") { $0.removedDevice } == wlan)
        let stray = await log.unmatched { $0.addedDevice != nil || $0.removedDevice != nil }
        #expect(stray.isEmpty, "the Ethernet device must not be reported, nor the Wi-Fi device twice: \(stray)")
        await client.stop()
    }

    @Test func activationReportsTheJoinedNetworkAndDeactivationFollows() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        let ap = try await nm.addAccessPoint(wlan, "ap1", ssid: "Hotel WiFi", bssid: "12:34:56:78:9A:BC", strength: 55, security: 0x100)
        let (client, log) = try await startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }

        // A profile created for this join (as `nmcli dev wifi connect` does) is not an auto-join.
        let profile = try await nm.addWiFiConnection(wlan, "hotel", ssid: "Hotel WiFi")
        let active = try await nm.addActiveConnection(wlan, connection: profile, accessPoint: ap, name: "0")
        let (device, network) = try await log.next("deviceActivated") { $0.activation }
        #expect(device.path == wlan)
        #expect(device.state == .activated)
        #expect(device.activeConnection == active)
        #expect(network.ssid == bytes("Hotel WiFi"))
        #expect(network.bssid == "12:34:56:78:9A:BC")
        #expect(network.security == .personal)
        #expect(network.settingsConnection == profile)
        #expect(!network.didAutoJoin)

        try await nm.nm("SetDeviceDisconnected", [.string(wlan.rawValue)])
        let (off, state, reason) = try await log.next("deviceDeactivated") { $0.deactivation }
        #expect(off.path == wlan)
        #expect(state == .disconnected)
        #expect(reason == .unknown)

        // Joining the same profile again: it is known now, so this reads as an auto-join.
        try await nm.nm("SetDeviceActive", [.string(wlan.rawValue), .string(active.rawValue)])
        let (_, again) = try await log.next("second deviceActivated") { $0.activation }
        #expect(again.didAutoJoin)

        // Failing from ACTIVATED is a loss too, with NetworkManager's reason.
        try await nm.setDeviceState(wlan, 120, old: 100, reason: 7)
        let (_, failed, why) = try await log.next("deviceDeactivated on FAILED") { $0.deactivation }
        #expect(failed == .failed)
        #expect(why == .noSecrets)
        // DEACTIVATING after FAILED is not a second loss.
        try await nm.setDeviceState(wlan, 30, old: 120, reason: 0)
        let extra = await log.unmatched { $0.deactivation != nil }
        #expect(extra.isEmpty)
        await client.stop()
    }

    @Test func scanListFollowsAddsRemovesStrengthAndLastScan() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        // The template lacks LastScan: add it, as NetworkManager ≥ 1.12 has it.
        try await nm.addProperty(wlan, interface: Self.wireless, "LastScan", .int64(-1))
        let (client, log) = try await startClient(nm)
        let (_, initial) = try await log.next("initial list") { $0.accessPoints }
        #expect(initial.isEmpty)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }

        let ap1 = try await nm.addAccessPoint(wlan, "ap1", ssid: "Library", bssid: "02:00:00:00:00:01", strength: 60)
        #expect(try await log.next("list with ap1") { $0.accessPoints?.1.map(\.path) == [ap1] ? true : nil })
        let ap2 = try await nm.addAccessPoint(wlan, "ap2", ssid: "Campus", bssid: "02:00:00:00:00:02", strength: 20, security: 0x200)
        let (_, two) = try await log.next("list with ap1, ap2") { $0.accessPoints.flatMap { $0.1.count == 2 ? $0 : nil } }
        #expect(two.map(\.path) == [ap1, ap2])
        #expect(two.map(\.security) == [.open, .enterprise])

        try await nm.updateProperties(ap1, interface: Self.accessPoint, ["Strength": .byte(31)])
        let (_, weaker) = try await log.next("list after Strength change") { e in
            e.accessPoints.flatMap { $0.1.first?.strength == 31 ? $0 : nil }
        }
        #expect(weaker.map(\.path) == [ap1, ap2])

        try await nm.nm("RemoveAccessPoint", [.string(wlan.rawValue), .string(ap1.rawValue)])
        let (_, one) = try await log.next("list without ap1") { $0.accessPoints.flatMap { $0.1.count == 1 ? $0 : nil } }
        #expect(one.map(\.path) == [ap2])

        // A finished scan reports the list even when it did not change.
        try await nm.updateProperties(wlan, interface: Self.wireless, ["LastScan": .int64(123_456)])
        let (_, afterScan) = try await log.next("list after LastScan") { $0.accessPoints }
        #expect(afterScan.map(\.path) == [ap2])
        await client.stop()
    }

    /// Access-point changes are reported in batches (hotspot-stress load): nothing is lost, the
    /// last list holds the latest values, and a signal after the burst is reported after them.
    @Test func aBurstOfStrengthChangesEndsWithTheLatestValuesBeforeTheNextEvent() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        var aps: [ObjectPath] = []
        for i in 0..<20 {
            aps.append(try await nm.addAccessPoint(wlan, "ap\(i)", ssid: "Net\(i)", bssid: String(format: "02:00:00:00:00:%02X", i), strength: 50))
        }
        let (client, log) = try await startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        // From NetworkManager's own connection, back to back: 2,000 Strength changes (the last
        // 20 set ap0…ap19 to 1…20), then the device's StateChanged to PREPARE.
        try await nm.mock.addMethod(nm.control, path: MockNetworkManager.managerPath, interface: "net.hotspothelper.Test", name: "Burst",
                                    inSignature: "", outSignature: "", code: """
            import dbus, dbus.lowlevel
            AP = 'org.freedesktop.NetworkManager.AccessPoint'
            for i in range(2000):
                ap = '/org/freedesktop/NetworkManager/AccessPoint/ap%d' % (i % 20)
                s = 21 + i % 79 if i < 1980 else 1 + i % 20
                objects[ap].props[AP]['Strength'] = dbus.Byte(s)
                m = dbus.lowlevel.SignalMessage(ap, 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
                m.append(AP, {'Strength': dbus.Byte(s, variant_level=1)}, dbus.Array([], signature='s'), signature='sa{sv}as')
                self.connection.send_message(m)
            m = dbus.lowlevel.SignalMessage('\(wlan.rawValue)', 'org.freedesktop.NetworkManager.Device', 'StateChanged')
            m.append(dbus.UInt32(40), dbus.UInt32(30), dbus.UInt32(0), signature='uuu')
            self.connection.send_message(m)
            self.connection.flush()
            """)
        _ = try await nm.control.call(MockNetworkManager.busName, MockNetworkManager.managerPath, "net.hotspothelper.Test", "Burst")
        let final = (1...20).map { UInt8($0) }
        let (_, last) = try await log.next("the final strengths") { e in
            e.accessPoints.flatMap { $0.1.map(\.strength) == final ? $0 : nil }
        }
        #expect(last.map(\.path) == aps)
        _ = try await log.next("deviceStateChanged") { e in
            if case .deviceStateChanged(_, .prepare, _, _) = e { return true }
            return nil
        }
        let events = log.all
        let stateIndex = try #require(events.firstIndex { if case .deviceStateChanged = $0 { return true }; return false })
        let before = events[..<stateIndex].last { $0.accessPoints != nil }?.accessPoints?.1.map(\.strength)
        #expect(before == final, "the list reported before the state change is not the latest")
        #expect(events[stateIndex...].allSatisfy { $0.accessPoints == nil })
        await client.stop()
    }

    @Test func disconnectAndAutoconnectChangesReachNetworkManager() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0")
        _ = try await nm.addAccessPoint(wlan, "ap1", ssid: "Cafe", bssid: "02:00:00:00:00:0A", security: 0x100)
        let profile = try await nm.addWiFiConnection(wlan, "cafe", ssid: "Cafe")
        // The template's devices have no Disconnect: add it.
        try await nm.mock.addMethod(nm.control, path: wlan.rawValue, interface: "org.freedesktop.NetworkManager.Device",
                                    name: "Disconnect", inSignature: "", outSignature: "", code: "")
        let client = NetworkManagerClient(connection: try nm.bus.connect())

        try await client.disconnect(device: wlan)
        #expect(try await nm.calls(wlan).map(\.method).contains("Disconnect"))

        try await client.setAutoconnect(false, connection: profile)
        var updates = try await nm.calls(profile).filter { $0.method == "Update" }
        #expect(updates.count == 1)
        let written = updates.first?.args.first?.dictEntries ?? []
        let settings = Dictionary(uniqueKeysWithValues: written.compactMap { e in e.key.string.map { ($0, e.value.varDict ?? [:]) } })
        #expect(settings["connection"]?["autoconnect"] == .bool(false))
        #expect(settings["connection"]?["id"] == .string("Cafe"), "the rest of the profile is written back unchanged")
        #expect(settings["802-11-wireless"]?["ssid"]?.byteArray == bytes("Cafe"))
        #expect(settings["802-11-wireless-security"]?["key-mgmt"] == .string("wpa-psk"))

        let saved = try await client.connections(ssid: bytes("Cafe"))
        #expect(saved.map(\.path) == [profile])
        #expect(saved.first?.autoconnect == false)
        #expect(try await client.connections(ssid: bytes("Elsewhere")).isEmpty)

        // Already off: nothing is written.
        try await client.setAutoconnect(false, connection: profile)
        #expect(try await nm.calls(profile).filter { $0.method == "Update" }.count == 1)

        try await client.setAutoconnect(true, connection: profile)
        updates = try await nm.calls(profile).filter { $0.method == "Update" }
        #expect(updates.count == 2)
        #expect(try await client.connections(ssid: bytes("Cafe")).first?.autoconnect == true)

        let missing: ObjectPath = "/org/freedesktop/NetworkManager/Settings/nothing"
        await #expect { try await client.setAutoconnect(false, connection: missing) } throws: { error in
            "\(error)".contains("/org/freedesktop/NetworkManager/Settings/nothing")
        }
    }

    @Test func ipv4ConfigurationAndConnectivityForTheProbes() async throws {
        let nm = try await MockNetworkManager()
        let wlan = try await nm.addWiFiDevice("wlan0", state: 100)
        let client = NetworkManagerClient(connection: try nm.bus.connect())
        #expect(try await client.ipv4Configuration(device: wlan) == nil, "no Ip4Config property: no configuration")

        // The template has no IP4Config objects: add one the way NetworkManager publishes it.
        let configPath = "/org/freedesktop/NetworkManager/IP4Config/1"
        try await nm.nm("AddObject", [
            .string(configPath), .string("org.freedesktop.NetworkManager.IP4Config"),
            .varDict([
                "AddressData": .varDicts([["address": .string("192.168.7.23"), "prefix": .uint32(24)]]),
                "NameserverData": .varDicts([["address": .string("192.168.7.1")], ["address": .string("9.9.9.9")]]),
                "Gateway": .string("192.168.7.1"),
            ]),
            .array(element: .structure([.string, .string, .string, .string]), []),
        ])
        try await nm.addProperty(wlan, interface: "org.freedesktop.NetworkManager.Device", "Ip4Config", .objectPath(try ObjectPath(configPath)))
        #expect(try await client.dnsServers(device: wlan) == ["192.168.7.1", "9.9.9.9"])

        // IPv6 servers follow (an IPv6-only link still resolves on the link); link-local ones are left out.
        let v6Path = "/org/freedesktop/NetworkManager/IP6Config/1"
        func v6(_ bytes: [UInt8]) -> DBusValue { .bytes(bytes) }
        try await nm.nm("AddObject", [
            .string(v6Path), .string("org.freedesktop.NetworkManager.IP6Config"),
            .varDict(["Nameservers": .array(element: .array(.byte), [
                v6([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x53]),
                v6([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
                v6([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x35]),
            ])]),
            .array(element: .structure([.string, .string, .string, .string]), []),
        ])
        try await nm.addProperty(wlan, interface: "org.freedesktop.NetworkManager.Device", "Ip6Config", .objectPath(try ObjectPath(v6Path)))
        #expect(try await client.dnsServers(device: wlan) == ["192.168.7.1", "9.9.9.9", "fd00::53", "2001:db8::35"])
        #expect(try await client.ipv4Address(device: wlan) == IPv4Address(address: "192.168.7.23", prefix: 24))
        #expect(try await client.ipv4Configuration(device: wlan)?.gateway == "192.168.7.1")

        #expect(try await client.checkConnectivity() == .full)
        try await nm.nm("SetConnectivity", [.uint32(2)])
        #expect(try await client.checkConnectivity() == .portal)
    }

    @Test func connectivityChangesAreReported() async throws {
        let nm = try await MockNetworkManager()
        let (client, log) = try await startClient(nm)
        let (type, device, connectivity) = try await log.next("initial primaryConnectionChanged") { $0.primary }
        #expect(type == nil && device == nil && connectivity == .full)
        try await nm.nm("SetConnectivity", [.uint32(2)])
        let (_, _, portal) = try await log.next("primaryConnectionChanged to portal") { $0.primary }
        #expect(portal == .portal)
        await client.stop()
    }

    @Test func networkManagerRestartDropsEverythingAndRebuildsOnItsReturn() async throws {
        let nm = try await MockNetworkManager()
        func populate() async throws -> ObjectPath {
            let wlan = try await nm.addWiFiDevice("wlan0")
            _ = try await nm.addAccessPoint(wlan, "ap1", ssid: "Station", bssid: "02:00:00:00:00:10", strength: 50)
            return wlan
        }
        let wlan = try await populate()
        let (client, log) = try await startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }

        try await nm.stopMock()
        #expect(try await log.next("managerAvailable(false)") { $0.availability } == false)

        try await nm.restartMock()
        #expect(try await log.next("managerAvailable(true)") { $0.availability } == true)
        _ = try await populate()
        let device = try await log.next("wifiDeviceAdded after restart") { $0.addedDevice }
        #expect(device.path == wlan)
        let (_, list) = try await log.next("access points after restart") { $0.accessPoints.flatMap { $0.1.isEmpty ? nil : $0 } }
        #expect(list.map(\.ssid) == [bytes("Station")])
        await client.stop()
    }

    @Test func afterARestartBothARunningAndANewClientSeeTheNewInstance() async throws {
        let nm = try await MockNetworkManager()
        let (client, log) = try await startClient(nm)
        _ = try await log.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        try await nm.stopMock()
        #expect(try await log.next("managerAvailable(false)") { $0.availability } == false)
        // The new instance is populated after it took the name: the running client learns it
        // through signals, a client started now through its snapshot.
        try await nm.restartMock()
        let wlan = try await nm.addWiFiDevice("wlan0")
        _ = try await nm.addAccessPoint(wlan, "ap1", ssid: "Ferry", bssid: "02:00:00:00:00:20")
        let (second, secondLog) = try await startClient(nm)
        #expect(try await secondLog.next("snapshot device") { $0.addedDevice }.path == wlan)
        _ = try await secondLog.next("snapshot list") { $0.accessPoints.flatMap { $0.1.count == 1 ? true : nil } }
        _ = try await secondLog.next("snapshotComplete") { $0.isSnapshotComplete ? true : nil }
        #expect(try await log.next("first client rebuilt too") { $0.addedDevice }.path == wlan)
        await client.stop()
        await second.stop()
    }
}
