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
