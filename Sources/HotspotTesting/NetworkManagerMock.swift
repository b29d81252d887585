// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation

/// Additions to python-dbusmock's `networkmanager` template that the product needs: an
/// AgentManager (the template has none), a Disconnect method on devices, and a way to make
/// NetworkManager's own connection call a secret agent, as NetworkManager does.
extension DBusMock {
    public static let networkManagerPath = "/org/freedesktop/NetworkManager"
    public static let agentManagerPath = "/org/freedesktop/NetworkManager/AgentManager"

    /// Adds AgentManager (Register, RegisterWithCapabilities, Unregister) and `CallGetSecrets`
    /// (test-only: the mock's connection calls the agent at `args[0]` and returns its answer).
    public func addAgentManager(_ c: Connection) async throws {
        let call = """
            agent = self.connection.get_object(args[0], '/org/freedesktop/NetworkManager/SecretAgent', introspect=False)
            ret = agent.GetSecrets(args[1], args[2], args[3], args[4], args[5],
                                   dbus_interface='org.freedesktop.NetworkManager.SecretAgent', signature='a{sa{sv}}osasu')
            """
        try await mockCall(c, path: Self.networkManagerPath, "AddObject", [
            .string(Self.agentManagerPath), "org.freedesktop.NetworkManager.AgentManager", .varDict([:]),
            .array(element: .structure([.string, .string, .string, .string]), [
                .structure(["Register", "s", "", ""]), .structure(["RegisterWithCapabilities", "su", "", ""]),
                .structure(["Unregister", "", "", ""]),
                .structure(["CallGetSecrets", "sa{sa{sv}}osasu", "a{sa{sv}}", .string(call)]),
            ]),
        ])
    }

    /// Adds Device.Disconnect to `device`: recorded, and the device goes to DISCONNECTED.
    public func addDisconnect(_ c: Connection, device: String) async throws {
        try await addMethod(c, path: device, interface: "org.freedesktop.NetworkManager.Device", name: "Disconnect", inSignature: "", outSignature: "",
                            code: "get_object('\(Self.networkManagerPath)').SetDeviceDisconnected('\(device)')")
    }

    /// Makes NetworkManager (the mock's connection) ask the agent on `agent` for the Wi-Fi
    /// password of a WPA-PSK profile for `ssid`; returns the secrets, or throws the agent's error.
    public func callGetSecrets(_ c: Connection, agent: String, ssid: [UInt8]) async throws -> [DBusValue] {
        let settings: [(String, [String: DBusValue])] = [
            ("802-11-wireless", ["ssid": .bytes(ssid), "security": "802-11-wireless-security"]),
            ("802-11-wireless-security", ["key-mgmt": "wpa-psk"]),
            ("connection", ["id": .string(String(decoding: ssid, as: UTF8.self)), "type": "802-11-wireless", "uuid": "6f1b0c52-0000-4000-8000-00000000c0de"]),
        ]
        let profile = DBusValue.dictionary(key: .string, value: .dictionary(key: .string, value: .variant),
                                           settings.map { DictEntry(.string($0.0), .varDict($0.1)) })
        // dbus-python wants the agent's unique name here.
        let owner = agent.hasPrefix(":") ? agent : (try await c.nameOwner(BusName(agent)) ?? agent)
        return try await c.call(busName, Self.agentManagerPath, "org.freedesktop.NetworkManager.AgentManager", "CallGetSecrets",
                                [.string(owner), profile, .objectPath("/org/freedesktop/NetworkManager/Settings/1"),
                                   "802-11-wireless-security", .strings([]), .uint32(1)])
    }
}

/// An access point to put in the mock NetworkManager.
public struct MockAccessPoint: Sendable {
    public var name: String
    public var ssid: String
    public var bssid: String
    public var strength: UInt8
    /// WPA-PSK (the template accepts only PSK or open for saved profiles).
    public var secure: Bool

    public init(name: String, ssid: String, bssid: String, strength: UInt8 = 70, secure: Bool = false) {
        self.name = name
        self.ssid = ssid
        self.bssid = bssid
        self.strength = strength
        self.secure = secure
    }
}

extension DBusMock {
    /// A Wi-Fi device with `accessPoints`, Device.Disconnect, and an AgentManager; returns the
    /// device's path.
    public func setUpWiFi(_ c: Connection, interface: String = "wlan0", accessPoints: [MockAccessPoint]) async throws -> String {
        let device = try await addWiFiDevice(c, interface: interface, accessPoints: accessPoints)
        try await addAgentManager(c)
        return device
    }

    /// A Wi-Fi device with `accessPoints` and Device.Disconnect (a further device beside
    /// ``setUpWiFi(_:interface:accessPoints:)``'s); returns the device's path.
    public func addWiFiDevice(_ c: Connection, interface: String, accessPoints: [MockAccessPoint]) async throws -> String {
        let device = try await mockCall(c, path: Self.networkManagerPath, "AddWiFiDevice", [.string(interface), .string(interface), .int32(30)])
            .first?.string ?? ""
        for ap in accessPoints {
            _ = try await mockCall(c, path: Self.networkManagerPath, "AddAccessPoint", [
                .string(device), .string(ap.name), .string(ap.ssid), .string(ap.bssid), .uint32(2), .uint32(2412), .uint32(54000),
                .byte(ap.strength), .uint32(ap.secure ? 0x100 : 0),
            ])
        }
        try await addDisconnect(c, device: device)
        return device
    }

    /// Joins `ssid` through `accessPoint` (a saved profile named `profile`, the SSID lower-cased by
    /// default, is created the first time); returns the profile's path.
    @discardableResult
    public func joinWiFi(_ c: Connection, device: String, ssid: String, accessPoint: String, profile: String? = nil,
                         active: String = "active\(Int.random(in: 0..<1_000_000))") async throws -> String {
        let name = profile ?? ssid.lowercased()
        let settingsPath = "/org/freedesktop/NetworkManager/Settings/\(name)"
        let existing = try await c.call(busName, "/org/freedesktop/NetworkManager/Settings", "org.freedesktop.NetworkManager.Settings",
                                        "ListConnections").first?.objectPaths ?? []
        if !existing.contains(where: { $0.rawValue == settingsPath }) {
            _ = try await mockCall(c, path: Self.networkManagerPath, "AddWiFiConnection", [.string(device), .string(name), .string(ssid), ""])
        }
        try await activate(c, device: device, profile: settingsPath, accessPoint: "/org/freedesktop/NetworkManager/AccessPoint/\(accessPoint)",
                           name: active)
        return settingsPath
    }

    /// Activates `profile` on `device` in the order real NetworkManager announces it: the active
    /// connection is exported (`InterfacesAdded`) and becomes the device's `ActiveConnection`
    /// before the device reaches ACTIVATED. (The template's `AddActiveConnection` announces the
    /// active connection only after the device's StateChanged.) Returns the active connection.
    @discardableResult
    public func activate(_ c: Connection, device: String, profile: String, accessPoint: String, name: String) async throws -> String {
        try await callAddingFirst("ActivateInOrder", code: Self.activateInOrder, c,
                                  [.string(device), .string(profile), .string(accessPoint), .string(name)])
    }

    /// Calls the mock's method `name` (signature `ssss` → `s`), adding it with `code` the first time.
    private func callAddingFirst(_ name: String, code: String, _ c: Connection, _ args: [DBusValue]) async throws -> String {
        do {
            return try await mockCall(c, path: Self.networkManagerPath, name, args).first?.string ?? ""
        } catch where error.dbusName == DBusErrorName.unknownMethod {
            try await addMethod(c, path: Self.networkManagerPath, interface: "org.freedesktop.DBus.Mock", name: name,
                                inSignature: "ssss", outSignature: "s", code: code)
            return try await mockCall(c, path: Self.networkManagerPath, name, args).first?.string ?? ""
        }
    }

    /// Starts activating `profile` on `device` as real NetworkManager does up to its pre-up
    /// dispatcher scripts: the active connection is exported (ACTIVATING) and becomes the device's,
    /// and the device reaches IP_CHECK (its addresses configured), where NetworkManager waits for
    /// the scripts. ``finishActivation(_:device:)`` then announces ACTIVATED. Returns the active
    /// connection.
    @discardableResult
    public func activateHeld(_ c: Connection, device: String, profile: String, accessPoint: String, name: String) async throws -> String {
        try await callAddingFirst("ActivateHeld", code: Self.activateHeld, c,
                                  [.string(device), .string(profile), .string(accessPoint), .string(name)])
    }

    /// Ends a held activation (``activateHeld(_:device:profile:accessPoint:name:)``): the device
    /// and its active connection are ACTIVATED.
    public func finishActivation(_ c: Connection, device: String) async throws {
        let ac = try await c.call(busName, device, "org.freedesktop.DBus.Properties", "Get",
                                  [.string("org.freedesktop.NetworkManager.Device"), .string("ActiveConnection")]).first?.unwrapped.objectPath
        _ = try await mockCall(c, path: Self.networkManagerPath, "SetDeviceActive", [.string(device), .objectPath(ac ?? ObjectPath("/"))])
    }

    static let activateHeld = exportActiveConnection(isDefault: false) + """
        dev = get_object(dev_path)
        dev.Set('org.freedesktop.NetworkManager.Device', 'ActiveConnection', dbus.ObjectPath(ac))
        old = dev.Get('org.freedesktop.NetworkManager.Device', 'State')
        dev.Set('org.freedesktop.NetworkManager.Device', 'State', dbus.UInt32(80))
        dev.Set('org.freedesktop.NetworkManager.Device', 'StateReason', (dbus.UInt32(80), dbus.UInt32(0)))
        dev.EmitSignal('org.freedesktop.NetworkManager.Device', 'StateChanged', 'uuu', [dbus.UInt32(80), old, dbus.UInt32(0)])
        ret = ac
        """

    /// Disconnects `device` as real NetworkManager does: the device drops to DISCONNECTED, and its
    /// active connection leaves the manager's `ActiveConnections` and the bus (`InterfacesRemoved`).
    /// (The template's `SetDeviceDisconnected` keeps every active connection ever made listed, so a
    /// client that looks through them does more work with every join.)
    public func deactivate(_ c: Connection, device: String) async throws {
        do {
            _ = try await mockCall(c, path: Self.networkManagerPath, "DeactivateInOrder", [.string(device)])
        } catch where error.dbusName == DBusErrorName.unknownMethod {
            try await addMethod(c, path: Self.networkManagerPath, interface: "org.freedesktop.DBus.Mock", name: "DeactivateInOrder",
                                inSignature: "s", outSignature: "", code: Self.deactivateInOrder)
            _ = try await mockCall(c, path: Self.networkManagerPath, "DeactivateInOrder", [.string(device)])
        }
    }

    static let deactivateInOrder = """
        dev_path, = args
        nm = get_object('/org/freedesktop/NetworkManager')
        ac = get_object(dev_path).Get('org.freedesktop.NetworkManager.Device', 'ActiveConnection')
        nm.SetDeviceDisconnected(dev_path)
        if ac != '/':
            acs = dbus.Array([], signature='o')
            for p in nm.Get('org.freedesktop.NetworkManager', 'ActiveConnections'):
                if p != ac:
                    acs.append(p)
            nm.SetProperty('/org/freedesktop/NetworkManager', 'org.freedesktop.NetworkManager', 'ActiveConnections', acs)
            if ac in objects:
                nm.object_manager_emit_removed(ac)
                nm.RemoveObject(ac)
        """

    static let activateInOrder = exportActiveConnection(isDefault: true) + """
        nm.SetDeviceActive(dev_path, ac)
        ret = ac
        """

    /// The first half of an activation in the mock (python-dbusmock method code, args: device,
    /// profile, access point, name): the active connection exported (ACTIVATING) and listed in the
    /// manager's `ActiveConnections`; the method's code goes on with `dev_path` and `ac`.
    static func exportActiveConnection(isDefault: Bool) -> String {
        """
        dev_path, conn_path, ap_path, name = args
        nm = get_object('/org/freedesktop/NetworkManager')
        s = get_object(conn_path).settings
        ac = '/org/freedesktop/NetworkManager/ActiveConnection/' + name
        nm.AddObject(ac, 'org.freedesktop.NetworkManager.Connection.Active', {
            'Devices': dbus.Array([dbus.ObjectPath(dev_path)], signature='o'), 'Default6': False, 'Default': \(isDefault ? "True" : "False"),
            'Type': s['connection']['type'], 'Vpn': False, 'Connection': dbus.ObjectPath(conn_path),
            'Master': dbus.ObjectPath('/'), 'SpecificObject': dbus.ObjectPath(ap_path), 'Uuid': s['connection']['uuid'],
            'State': dbus.UInt32(1), 'Id': s['connection']['id']}, [])
        nm.object_manager_emit_added(ac)
        acs = nm.Get('org.freedesktop.NetworkManager', 'ActiveConnections')
        acs.append(dbus.ObjectPath(ac))
        nm.SetProperty('/org/freedesktop/NetworkManager', 'org.freedesktop.NetworkManager', 'ActiveConnections', acs)

        """
    }
}
