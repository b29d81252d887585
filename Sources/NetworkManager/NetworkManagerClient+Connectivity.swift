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

extension NetworkManagerClient {
    /// The current settings, or nil when NetworkManager is not on the bus or does not have
    /// `ConnectivityCheckEnabled` (a URI missing on an older NetworkManager reads as empty).
    public nonisolated func connectivityCheckSettings() async -> ConnectivityCheckSettings? {
        guard let reply = try? await connection.call(destination: NetworkManagerNames.busName, path: NetworkManagerNames.managerPath,
                                                     interface: NetworkManagerNames.properties, member: "GetAll",
                                                     body: [.string(NetworkManagerNames.manager.rawValue)], timeout: .seconds(10), autoStart: false),
              let properties = reply.first?.varDict, let enabled = properties["ConnectivityCheckEnabled"]?.bool
        else { return nil }
        return ConnectivityCheckSettings(enabled: enabled, uri: properties["ConnectivityCheckUri"]?.string ?? "")
    }

    /// The settings now, then each time they change (`PropertiesChanged` on the manager naming
    /// either property, or NetworkManager restarting). Subscribes before reading, so no change
    /// is missed; yields only when the value differs from the last one yielded. Ends when the
    /// consuming task is cancelled.
    public nonisolated func followConnectivityCheckSettings() async throws -> AsyncStream<ConnectivityCheckSettings?> {
        let changes = try await connection.signals(matching: MatchRule(sender: NetworkManagerNames.busName, path: NetworkManagerNames.managerPath,
                                                                       interface: NetworkManagerNames.properties, member: "PropertiesChanged",
                                                                       arguments: [0: NetworkManagerNames.manager.rawValue]))
        let owners = try await connection.signals(matching: MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                                      interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                                                                      arguments: [0: NetworkManagerNames.busName.rawValue]))
        let (stream, continuation) = AsyncStream<ConnectivityCheckSettings?>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let relevant: Set<String> = ["ConnectivityCheckEnabled", "ConnectivityCheckUri"]
        let watchers = [
            Task {
                for await signal in changes {
                    let changed = signal.body.dropFirst().first?.varDict.map { Set($0.keys) } ?? []
                    let invalidated = Set(signal.body.dropFirst(2).first?.strings ?? [])
                    if !changed.isDisjoint(with: relevant) || !invalidated.isDisjoint(with: relevant) { wake.yield() }
                }
            },
            Task { for await _ in owners { wake.yield() } },
        ]
        let reader = Task {
            var last: ConnectivityCheckSettings?? = .none
            wake.yield()
            for await _ in wakeups {
                let now = await connectivityCheckSettings()
                if last != .some(now) { continuation.yield(now); last = .some(now) }
            }
        }
        continuation.onTermination = { _ in
            for watcher in watchers { watcher.cancel() }
            reader.cancel()
            wake.finish()
        }
        return stream
    }
}
