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
