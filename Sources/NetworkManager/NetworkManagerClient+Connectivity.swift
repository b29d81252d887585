// SPDX-License-Identifier: Apache-2.0
import DBus

/// NetworkManager's own connectivity-check configuration: the manager properties
/// `ConnectivityCheckEnabled` (b, since 1.10) and `ConnectivityCheckUri` (s, since 1.20), set by
/// `[connectivity]` in NetworkManager.conf or `nmcli networking connectivity on|off`.
public struct ConnectivityCheckSettings: Sendable, Equatable {
    /// Whether NetworkManager's check is enabled (the system has not opted out).
    public var enabled: Bool
    /// The URI it probes; empty when none is configured (NetworkManager then does not check).
    public var uri: String

    public init(enabled: Bool, uri: String) {
        self.enabled = enabled
        self.uri = uri
    }
}

extension ConnectivityCheckSettings {
    /// The manager properties that carry it.
    static let propertyNames: Set<String> = ["ConnectivityCheckEnabled", "ConnectivityCheckUri"]

    /// From the manager's properties; nil without `ConnectivityCheckEnabled` (a URI missing on an
    /// older NetworkManager reads as empty).
    init?(managerProperties properties: [String: DBusValue]) {
        guard let enabled = properties["ConnectivityCheckEnabled"]?.bool else { return nil }
        self.init(enabled: enabled, uri: properties["ConnectivityCheckUri"]?.string ?? "")
    }
}

extension NetworkManagerClient {
    /// The current settings, read once (at start-up, before the client follows NetworkManager);
    /// nil when NetworkManager is not on the bus or does not have `ConnectivityCheckEnabled`.
    /// Changes afterwards come as `.connectivityCheckChanged` events, from the manager properties
    /// the client keeps anyway.
    public nonisolated func connectivityCheckSettings() async -> ConnectivityCheckSettings? {
        guard let reply = try? await connection.call(destination: NetworkManagerNames.busName, path: NetworkManagerNames.managerPath,
                                                     interface: NetworkManagerNames.properties, member: "GetAll",
                                                     body: [.string(NetworkManagerNames.manager.rawValue)], timeout: .seconds(10), autoStart: false),
              let properties = reply.first?.varDict
        else { return nil }
        return ConnectivityCheckSettings(managerProperties: properties)
    }
}
