// SPDX-License-Identifier: Apache-2.0
import DBus

/// NetworkManager's objects as NetworkManager last announced them: the properties of the
/// interfaces the client follows (devices, their Wi-Fi side, active connections, IP
/// configurations) and which
/// saved profiles exist. Pure: fed with the snapshot (`GetManagedObjects`), `InterfacesAdded`,
/// `InterfacesRemoved` and `PropertiesChanged`, so a join is read from memory instead of with
/// `GetAll` round trips. Access points are kept by the client's own access-point
/// map, not here, so each fact has one owner.
struct NetworkManagerObjects: Sendable {
    /// The interfaces whose properties are kept.
    static let followed: Set<String> = [
        NetworkManagerNames.device.rawValue, NetworkManagerNames.wireless.rawValue, NetworkManagerNames.activeConnection.rawValue,
        NetworkManagerNames.ip4Config.rawValue, NetworkManagerNames.ip6Config.rawValue,
    ]

    private(set) var properties: [ObjectPath: [String: [String: DBusValue]]] = [:]
    /// Saved connection profiles (objects with the Settings.Connection interface).
    private(set) var profiles: Set<ObjectPath> = []

    /// The known properties of `interface` on `path`, if the store holds them.
    func properties(_ path: ObjectPath, _ interface: InterfaceName) -> [String: DBusValue]? {
        properties[path]?[interface.rawValue]
    }

    /// An object appeared with these interfaces (the snapshot, or `InterfacesAdded`).
    mutating func added(_ path: ObjectPath, _ interfaces: [String: [String: DBusValue]]) {
        if interfaces[NetworkManagerNames.settingsConnection.rawValue] != nil { profiles.insert(path) }
        for (name, props) in interfaces where Self.followed.contains(name) {
            properties[path, default: [:]][name] = props
        }
    }

    /// Interfaces went away (`InterfacesRemoved`).
    mutating func removed(_ path: ObjectPath, _ interfaces: [String]) {
        if interfaces.contains(NetworkManagerNames.settingsConnection.rawValue) { profiles.remove(path) }
        for name in interfaces { properties[path]?[name] = nil }
        if properties[path]?.isEmpty == true { properties[path] = nil }
    }

    /// Properties changed (`PropertiesChanged`). A change that invalidates properties, or one
    /// for an interface not held yet, drops what is held so it is read afresh when needed.
    mutating func changed(_ path: ObjectPath, _ interface: String, _ values: [String: DBusValue], invalidated: [String]) {
        guard Self.followed.contains(interface) else { return }
        guard invalidated.isEmpty, properties[path]?[interface] != nil else {
            forget(path, interface)
            return
        }
        properties[path]?[interface]?.merge(values) { $1 }
    }

    /// Drops what is held for one interface of an object (it is read afresh when needed).
    mutating func forget(_ path: ObjectPath, _ interface: String) {
        properties[path]?[interface] = nil
        if properties[path]?.isEmpty == true { properties[path] = nil }
    }

    /// Stores properties read with `GetAll`.
    mutating func read(_ path: ObjectPath, _ interface: InterfaceName, _ props: [String: DBusValue]) {
        guard Self.followed.contains(interface.rawValue) else { return }
        properties[path, default: [:]][interface.rawValue] = props
    }
}
