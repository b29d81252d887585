// SPDX-License-Identifier: Apache-2.0
import DBus
@testable import NetworkManager
import Testing

/// The pure model of NetworkManager's objects: what signals do to it, with no bus.
@Suite struct NetworkManagerObjectsTests {
    let device: ObjectPath = "/org/freedesktop/NetworkManager/Devices/1"
    let active: ObjectPath = "/org/freedesktop/NetworkManager/ActiveConnection/7"
    let profile: ObjectPath = "/org/freedesktop/NetworkManager/Settings/3"
    let deviceInterface = NetworkManagerNames.device.rawValue
    let activeInterface = NetworkManagerNames.activeConnection.rawValue

    @Test func propertiesFollowAddedChangedAndRemoved() {
        var objects = NetworkManagerObjects()
        objects.added(device, [deviceInterface: ["State": .uint32(30), "Interface": "wlan0"],
                               "org.freedesktop.NetworkManager.Device.Statistics": ["RxBytes": .uint64(1)]])
        #expect(objects.properties(device, NetworkManagerNames.device)?["State"] == .uint32(30))
        // Interfaces the client does not follow are not kept.
        #expect(objects.properties(device, "org.freedesktop.NetworkManager.Device.Statistics") == nil)
        objects.changed(device, deviceInterface, ["State": .uint32(100), "ActiveConnection": .objectPath(active)], invalidated: [])
        #expect(objects.properties(device, NetworkManagerNames.device)?["State"] == .uint32(100))
        #expect(objects.properties(device, NetworkManagerNames.device)?["Interface"] == .string("wlan0"))
        objects.removed(device, [deviceInterface])
        #expect(objects.properties(device, NetworkManagerNames.device) == nil)
    }

    @Test func anInvalidatingChangeOrOneForAnUnknownObjectIsNotGuessed() {
        var objects = NetworkManagerObjects()
        objects.added(active, [activeInterface: ["State": .uint32(1), "Connection": .objectPath(profile)]])
        objects.changed(active, activeInterface, [:], invalidated: ["State"])
        #expect(objects.properties(active, NetworkManagerNames.activeConnection) == nil, "read afresh when needed")
        // A change to an object never announced would leave the rest of its properties unknown.
        objects.changed(device, deviceInterface, ["State": .uint32(100)], invalidated: [])
        #expect(objects.properties(device, NetworkManagerNames.device) == nil)
    }

    @Test func profilesAreTheObjectsWithTheSettingsConnectionInterface() {
        var objects = NetworkManagerObjects()
        objects.added(profile, [NetworkManagerNames.settingsConnection.rawValue: ["Unsaved": .bool(false)]])
        objects.added(active, [activeInterface: [:]])
        #expect(objects.profiles == [profile])
        objects.removed(profile, [NetworkManagerNames.settingsConnection.rawValue])
        #expect(objects.profiles.isEmpty)
    }
}

/// Profiles are named by UUID, else by settings path; the text form the core keeps is read back
/// the same way.
@Suite struct ConnectionReferenceTests {
    @Test func uuidsAndPathsRoundTripThroughTheirText() {
        let uuid = ConnectionReference.uuid(ConnectionUUID("6f1b0c52-0000-4000-8000-00000000c0de"))
        let path = ConnectionReference.settings("/org/freedesktop/NetworkManager/Settings/7")
        #expect(ConnectionReference(text: uuid.text) == uuid)
        #expect(ConnectionReference(text: path.text) == path)
        #expect(ConnectionReference(text: "") == nil)
        #expect(ConnectionReference(text: "/not a path") == nil)
    }

    @Test func aJoinIsNamedByItsUUIDBeforeItsPath() {
        var joined = JoinedNetwork(ssid: Array("A".utf8), bssid: nil, strength: nil, security: .open, accessPoint: nil, activeConnection: nil,
                                   settingsConnection: "/org/freedesktop/NetworkManager/Settings/3", connectionID: "A",
                                   connectionUUID: ConnectionUUID("u-1"), autoconnect: true, didAutoJoin: false)
        #expect(ConnectionReference(joined) == .uuid(ConnectionUUID("u-1")))
        joined.connectionUUID = nil
        #expect(ConnectionReference(joined) == .settings("/org/freedesktop/NetworkManager/Settings/3"))
        joined.settingsConnection = nil
        #expect(ConnectionReference(joined) == nil)
    }
}
