// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import Logging
import NetworkManager
import Synchronization

/// Connects NetworkManager to the engine: its events become core events; the core's decisions
/// become NetworkManager calls; the secret agent answers with the passwords helpers supplied.
///
/// Connection profiles are identified by UUID in the core (stable across NetworkManager and
/// daemon restarts, unlike settings object paths), and resolved to a path when acted on.
final class NetworkManagerBridge: NetworkControl, Sendable {
    let bus: Connection
    weak let engine: Engine?
    let log: Logger
    let client: NetworkManagerClient
    let agent: NetworkManagerSecretAgent
    let provisioner: ProfileProvisioner

    private struct Maps: Sendable {
        var interfaceOf: [ObjectPath: InterfaceID] = [:]
        var deviceOf: [InterfaceID: ObjectPath] = [:]
    }
    private let maps = Mutex(Maps())

    init(bus: Connection, engine: Engine, log: Logger) {
        self.bus = bus
        self.engine = engine
        self.log = log
        self.client = NetworkManagerClient(connection: bus)
        self.provisioner = ProfileProvisioner(client: client, log: log)
        self.agent = NetworkManagerSecretAgent(connection: bus) { [weak engine] ssid, _ in
            await engine?.password(for: SSID(bytes: ssid))?.secret
        }
    }

    /// Follows NetworkManager until cancelled.
    func follow() async {
        do {
            let agentEvents = try await agent.start()
            Task { [log] in
                for await e in agentEvents {
                    switch e {
                    case .registered(let owner): log.info("secret agent registered with NetworkManager (\(owner))")
                    case .registrationFailed(let why): log.warning("secret agent: \(why)")
                    case .managerGone: log.info("secret agent: NetworkManager left; registering again when it returns")
                    }
                }
            }
            let events = try await client.start()
            for await event in events {
                if Task.isCancelled { break }
                await handle(event)
            }
        } catch {
            log.error("cannot follow NetworkManager: \(error)")
        }
        await client.stop()
        await agent.stop()
    }

    private func name(of device: ObjectPath) -> InterfaceID? { maps.withLock { $0.interfaceOf[device] } }

    private func handle(_ event: NetworkManagerEvent) async {
        guard let engine else { return }
        switch event {
        case .managerAvailable(let available):
            log.info(available ? "NetworkManager is on the bus; reading its state" : "NetworkManager left the bus; dropping its state")
            maps.withLock { $0 = Maps() }
            await provisioner.managerAvailable(available)
            await engine.networkManagerReset()
            if !available { await engine.primaryChanged(nil) }
        case .snapshotComplete:
            log.debug("NetworkManager snapshot complete")
        case .wifiDeviceAdded(let device):
            let name = InterfaceID(device.interfaceName)
            maps.withLock { $0.interfaceOf[device.path] = name; $0.deviceOf[name] = device.path }
            await engine.interfaceAppeared(name, device: device.path)
        case .wifiDeviceRemoved(let path):
            guard let name = name(of: path) else { return }
            maps.withLock { $0.interfaceOf[path] = nil; $0.deviceOf[name] = nil }
            await engine.interfaceVanished(name)
        case .deviceStateChanged:
            await provisioner.deviceStateChanged()
        case .deviceActivated(let device, let joined):
            guard let name = name(of: device.path) else { return }
            let connection = ConnectionID(joined.connectionUUID ?? joined.settingsConnection?.rawValue ?? "")
            await engine.joined(name, network: Self.network(joined), connection: connection)
        case .deviceDeactivated(let device, _, _):
            guard let name = name(of: device.path) else { return }
            await engine.left(name)
        case .accessPointsChanged(let device, let aps):
            await provisioner.accessPointsSeen(aps)
            guard let name = name(of: device) else { return }
            await engine.scanListChanged(name, aps.map(Self.network))
        case .primaryConnectionChanged(let type, let device, let connectivity):
            await engine.primaryChanged(ManagerStatus.Primary(type: type, device: device, connectivity: connectivity))
        case .readFailed(let why):
            log.error("NetworkManager: \(why)")
        case .overloaded(let dropped):
            log.warning("NetworkManager: signals came faster than they could be handled (\(dropped) dropped); re-reading its state")
        }
    }

    static func securityClass(_ s: NetworkSecurity) -> SecurityClass {
        switch s {
        case .open, .enhancedOpen: return .open
        case .wep: return .wep
        case .personal: return .personal
        case .enterprise: return .enterprise
        }
    }

    static func network(_ joined: JoinedNetwork) -> Network {
        Network(ssid: SSID(bytes: joined.ssid), bssid: joined.bssid ?? "", signalStrength: Double(joined.strength ?? 0) / 100,
                securityClass: securityClass(joined.security), isSecure: joined.security != .open,
                didAutoJoin: joined.didAutoJoin, didJustJoin: true)
    }

    static func network(_ ap: AccessPoint) -> Network {
        Network(ssid: SSID(bytes: ap.ssid), bssid: ap.bssid, signalStrength: Double(ap.strength) / 100,
                securityClass: securityClass(ap.security), isSecure: ap.security != .open)
    }

    /// The DNS servers NetworkManager reports for an interface's link (empty when unknown).
    func dnsServers(interface: String) async -> [String] {
        guard let device = maps.withLock({ $0.deviceOf[InterfaceID(interface)] }) else { return [] }
        return (try? await client.dnsServers(device: device)) ?? []
    }

    /// The DHCPv4 lease NetworkManager reports for an interface's link (RFC 8910's DHCPINFORM).
    func dhcpv4Lease(interface: String) async -> DHCPv4Lease? {
        guard let device = maps.withLock({ $0.deviceOf[InterfaceID(interface)] }) else { return nil }
        return try? await client.dhcpv4Lease(device: device)
    }

    // MARK: - NetworkControl

    func disconnect(interface: InterfaceID) async throws {
        guard let device = maps.withLock({ $0.deviceOf[interface] }) else { return }
        try await client.disconnect(device: device)
    }

    func setAutoconnect(_ enabled: Bool, connection: ConnectionID) async throws {
        let path: ObjectPath
        if connection.rawValue.hasPrefix("/") {
            path = try ObjectPath(connection.rawValue)
        } else {
            let reply = try await bus.call(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager/Settings",
                                           interface: "org.freedesktop.NetworkManager.Settings", member: "GetConnectionByUuid",
                                           body: [.string(connection.rawValue)])
            guard let p = reply.first?.objectPath else { return }
            path = p
        }
        try await client.setAutoconnect(enabled, connection: path)
    }
}
