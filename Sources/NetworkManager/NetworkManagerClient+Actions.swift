// SPDX-License-Identifier: Apache-2.0
import DBus
#if canImport(Glibc)
import Glibc
#endif

/// Actions on NetworkManager. They address the well-known name (whoever owns it now) and do
/// not touch the event model, so they may run while events are being produced.
extension NetworkManagerClient {
    /// Disconnects a device (`Device.Disconnect`): NetworkManager deactivates it and does not
    /// autoconnect it again until a person or a new profile asks.
    public nonisolated func disconnect(device: ObjectPath) async throws {
        _ = try await nmCall(device, NetworkManagerNames.device, "Disconnect")
    }

    /// Asks for a Wi-Fi scan (`Device.Wireless.RequestScan`); results arrive as
    /// `.accessPointsChanged` when `LastScan` changes.
    public nonisolated func requestScan(device: ObjectPath) async throws {
        _ = try await nmCall(device, NetworkManagerNames.wireless, "RequestScan", [.varDict([:])])
    }

    /// The settings of a profile (`Settings.Connection.GetSettings`; secrets are never included).
    public nonisolated func settings(of connection: ObjectPath) async throws -> ConnectionSettings {
        let reply = try await nmCall(connection, NetworkManagerNames.settingsConnection, "GetSettings")
        guard let settings = reply.first.flatMap(SettingsCoding.decode) else {
            throw NetworkManagerError.malformedReply("GetSettings on \(connection) answered \(reply.map(\.signature).joined()), expected a{sa{sv}}")
        }
        return settings
    }

    /// Switches a profile's `connection.autoconnect`.
    ///
    /// Reads the profile with `GetSettings` and writes it back whole, changing only that key.
    /// `GetSettings` omits secrets, and an update given settings without any secret keeps the
    /// stored and agent-owned secrets (NetworkManager merges its cached secrets into the new
    /// settings in `update_auth_cb`), so the password is not lost.
    ///
    /// A profile saved on disk is written with `Settings.Connection.Update`. An in-memory profile
    /// (`Flags` has UNSAVED, as the daemon's provisioned profiles do) is written with
    /// `Update2(IN_MEMORY)`: `Update` is `Update2(TO_DISK)` in NetworkManager
    /// (`impl_settings_connection_update`), and would write it, secret and all, to
    /// /etc/NetworkManager/system-connections. Does nothing when the value is already set.
    public nonisolated func setAutoconnect(_ enabled: Bool, connection: ObjectPath) async throws {
        var current = try await settings(of: connection)
        if current["connection"]?["autoconnect"]?.bool == enabled { return }
        current["connection", default: [:]]["autoconnect"] = .bool(enabled)
        if try await flags(of: connection).contains(.unsaved) {
            try await updateProfile(connection, current, flags: .inMemory)
        } else {
            _ = try await nmCall(connection, NetworkManagerNames.settingsConnection, "Update", [SettingsCoding.encode(current)])
        }
    }

    /// The settings object of the profile `reference` names (`Settings.GetConnectionByUuid` for a
    /// UUID, whose error says when NetworkManager has no such profile).
    public nonisolated func settingsPath(of reference: ConnectionReference) async throws -> ObjectPath? {
        switch reference {
        case .settings(let path):
            return path
        case .uuid(let uuid):
            return try await nmCall(NetworkManagerNames.settingsPath, NetworkManagerNames.settings, "GetConnectionByUuid",
                                    [.string(uuid.rawValue)]).first?.objectPath
        }
    }

    /// ``setAutoconnect(_:connection:)`` on the profile `reference` names.
    public nonisolated func setAutoconnect(_ enabled: Bool, profile reference: ConnectionReference) async throws {
        guard let path = try await settingsPath(of: reference) else { return }
        try await setAutoconnect(enabled, connection: path)
    }

    /// The saved Wi-Fi profiles whose `802-11-wireless.ssid` is `ssid` (for "forget network").
    public nonisolated func connections(ssid: [UInt8]) async throws -> [SavedConnection] {
        var out: [SavedConnection] = []
        for path in try await connectionPaths() {
            // A profile removed meanwhile is simply not a match.
            guard let s = try? await settings(of: path), SettingsCoding.ssid(s) == ssid else { continue }
            out.append(SavedConnection(path: path, id: s["connection"]?["id"]?.string ?? "",
                                       uuid: s["connection"]?["uuid"]?.string ?? "", ssid: ssid,
                                       autoconnect: SettingsCoding.autoconnect(s), keyManagement: SettingsCoding.keyManagement(s)))
        }
        return out
    }

    /// Asks NetworkManager to re-check connectivity now (`CheckConnectivity`, which needs the
    /// polkit action `org.freedesktop.NetworkManager.network-control`) and returns the verdict.
    public nonisolated func checkConnectivity() async throws -> Connectivity {
        // NetworkManager checks every device for both families before replying: allow for its 20 s timeout.
        let reply = try await nmCall(NetworkManagerNames.managerPath, NetworkManagerNames.manager, "CheckConnectivity", timeout: .seconds(45))
        guard let value = reply.first?.uint32 else {
            throw NetworkManagerError.malformedReply("CheckConnectivity answered \(reply.map(\.signature).joined()), expected u")
        }
        return Connectivity(nmValue: value)
    }

    /// The device's IPv4 configuration (`Device.Ip4Config` → `IP4Config`), nil when it has none.
    public nonisolated func ipv4Configuration(device: ObjectPath) async throws -> IPv4Configuration? {
        try await ipConfigurations(device: device, ipv6: false).v4.map(Self.ipv4Configuration)
    }

    /// The device's DNS servers: IPv4 ones first, then IPv6 ones, so an IPv6-only link still
    /// resolves on the link (empty when it has no IP configuration).
    public nonisolated func dnsServers(device: ObjectPath) async throws -> [String] {
        let (v4, v6) = try await ipConfigurations(device: device, ipv6: true)
        return (v4.map { Self.ipv4Configuration($0).nameservers } ?? []) + (v6.map(Self.ipv6Nameservers) ?? [])
    }

    /// The properties of the device's IP4Config and (with `ipv6`) IP6Config objects, nil for one
    /// it has not. From the live model, which follows the device and its IP configurations through
    /// `InterfacesAdded` and `PropertiesChanged` (a connectivity check needs no reads);
    /// read with GetAll only when the model does not hold them. A device without the property
    /// (old NetworkManager, the mock) reads as "no configuration" instead of failing.
    private func ipConfigurations(device: ObjectPath, ipv6: Bool) async throws -> (v4: [String: DBusValue]?, v6: [String: DBusValue]?) {
        let deviceProperties = try await current(device, NetworkManagerNames.device)
        func read(_ slot: String, _ interface: InterfaceName) async throws -> [String: DBusValue]? {
            guard let path = deviceProperties[slot]?.nonRootPath else { return nil }
            return try await current(path, interface)
        }
        let v4 = try await read("Ip4Config", NetworkManagerNames.ip4Config)
        return (v4, ipv6 ? try await read("Ip6Config", NetworkManagerNames.ip6Config) : nil)
    }

    /// An object's properties from the live model while the client follows NetworkManager; read
    /// directly when it does not (not started, or between owners).
    private func current(_ path: ObjectPath, _ interface: InterfaceName) async throws -> [String: DBusValue] {
        if owner != nil { return try await properties(path, interface) }
        let reply = try await nmCall(path, NetworkManagerNames.properties, "GetAll", [.string(interface.rawValue)])
        guard let props = reply.first?.varDict else {
            throw NetworkManagerError.malformedReply("GetAll(\(interface.rawValue)) on \(path) answered \(reply.map(\.signature).joined())")
        }
        return props
    }

    /// IP6Config's `Nameservers` (aay, 16 bytes each) as text. Link-local servers are left out:
    /// they need a scope (`%wlan0`) that c-ares 1.18 (Debian 12) does not take in a server list.
    static func ipv6Nameservers(_ p: [String: DBusValue]) -> [String] {
        (p["Nameservers"]?.arrayItems ?? []).compactMap { item -> String? in
            guard let bytes = item.byteArray, bytes.count == 16, !(bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80) else { return nil }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, bytes, &text, socklen_t(text.count)) != nil else { return nil }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The device's first IPv4 address, if any.
    public nonisolated func ipv4Address(device: ObjectPath) async throws -> IPv4Address? {
        try await ipv4Configuration(device: device)?.addresses.first
    }

    /// Decodes IP4Config properties: `AddressData` and `NameserverData` (NM ≥ 1.14 for the
    /// latter), falling back to the deprecated `Addresses` (aau) and `Nameservers` (au), whose
    /// numbers hold the address in network byte order.
    static func ipv4Configuration(_ p: [String: DBusValue]) -> IPv4Configuration {
        var addresses: [IPv4Address] = []
        if let data = p["AddressData"]?.arrayItems {
            for item in data {
                guard let d = item.varDict, let address = d["address"]?.string else { continue }
                addresses.append(IPv4Address(address: address, prefix: UInt32(clamping: d["prefix"]?.integer ?? 32)))
            }
        } else if let legacy = p["Addresses"]?.arrayItems {
            for item in legacy {
                guard let numbers = item.arrayItems?.compactMap(\.uint32), numbers.count >= 2 else { continue }
                addresses.append(IPv4Address(address: dottedQuad(networkOrder: numbers[0]), prefix: numbers[1]))
            }
        }
        var nameservers: [String] = []
        if let data = p["NameserverData"]?.arrayItems {
            nameservers = data.compactMap { $0.varDict?["address"]?.string }
        } else if let legacy = p["Nameservers"]?.arrayItems {
            nameservers = legacy.compactMap(\.uint32).map(dottedQuad(networkOrder:))
        }
        let gateway = p["Gateway"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        return IPv4Configuration(addresses: addresses, nameservers: nameservers, gateway: gateway)
    }

    /// An IPv4 address stored in network byte order in a host integer (NetworkManager's `au`).
    static func dottedQuad(networkOrder value: UInt32) -> String {
        // The integer's bytes as they lie in memory are the address's octets, in order.
        withUnsafeBytes(of: value) { Array($0) }.map(String.init).joined(separator: ".")
    }

    nonisolated func nmCall(_ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue] = [],
                            timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        do {
            return try await connection.call(destination: NetworkManagerNames.busName, path: path, interface: interface,
                                              member: member, body: body, timeout: timeout)
        } catch let error as DBusError {
            throw NetworkManagerError.callFailed(member: member.rawValue, path: path, error)
        }
    }
}
