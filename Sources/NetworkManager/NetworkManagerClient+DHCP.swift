// SPDX-License-Identifier: Apache-2.0
import DBus

/// The DHCPv4 lease as NetworkManager reports it (`Device.Dhcp4Config` → `DHCP4Config.Options`):
/// what a DHCPINFORM needs (RFC 8910: NetworkManager neither requests nor exposes option 114, so
/// the daemon asks the server itself).
public struct DHCPv4Lease: Sendable, Equatable {
    /// The leased address (`ip_address`).
    public var address: String
    /// The server identifier (`dhcp_server_identifier`, option 54), if NetworkManager reports it.
    public var serverIdentifier: String?

    public init(address: String, serverIdentifier: String?) {
        self.address = address
        self.serverIdentifier = serverIdentifier
    }

    /// Decodes `DHCP4Config.Options` (a{sv}, string values); nil without `ip_address`.
    public static func decode(_ options: [String: DBusValue]) -> DHCPv4Lease? {
        func text(_ key: String) -> String? {
            guard let s = options[key]?.string?.trimmingASCIISpaces, !s.isEmpty, s.count <= 15,
                  s.allSatisfy({ $0 == "." || $0.isASCII && $0.isNumber }) else { return nil }
            return s
        }
        guard let address = text("ip_address") else { return nil }
        return DHCPv4Lease(address: address, serverIdentifier: text("dhcp_server_identifier"))
    }
}

extension NetworkManagerClient {
    static let dhcp4Config: InterfaceName = "org.freedesktop.NetworkManager.DHCP4Config"

    /// The device's DHCPv4 lease, nil when it has none (a static address, no Dhcp4Config on an
    /// old NetworkManager or the mock).
    public nonisolated func dhcpv4Lease(device: ObjectPath) async throws -> DHCPv4Lease? {
        let reply = try await nmCall(device, NetworkManagerNames.properties, "GetAll", [.string(NetworkManagerNames.device.rawValue)])
        guard let configPath = reply.first?.varDict?["Dhcp4Config"]?.nonRootPath else { return nil }
        let all = try await nmCall(configPath, NetworkManagerNames.properties, "GetAll", [.string(Self.dhcp4Config.rawValue)])
        guard let options = all.first?.varDict?["Options"]?.varDict else { return nil }
        return DHCPv4Lease.decode(options)
    }
}

private extension String {
    var trimmingASCIISpaces: String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
