// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import Logging
import NetworkManager
import ServiceLifecycle

/// Follows NetworkManager for the engine, as a service: the client's events become engine calls,
/// and the secret agent answers with the passwords helpers supplied. Devices and their interface
/// names are the client's facts (its model, which reports a rename as an event): the engine is
/// told interface names only, and this keeps no map of its own.
///
/// A failure to follow NetworkManager (the client or the agent cannot subscribe) is not just a
/// log line: the service starts following again after a pause that doubles up to 30 s, and when
/// the bus connection itself has ended it fails, which ends the daemon (systemd restarts it).
final class NetworkManagerWatcher: Service {
    let bus: Connection
    let engine: Engine
    let log: Logger
    let client: NetworkManagerClient
    let provisioner: ProfileProvisioner

    init(bus: Connection, client: NetworkManagerClient, engine: Engine, provisioner: ProfileProvisioner, log: Logger) {
        self.bus = bus
        self.client = client
        self.engine = engine
        self.provisioner = provisioner
        self.log = log
    }

    func run() async throws {
        var pause = Duration.seconds(1)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await self.follow() }
                pause = .seconds(1)
            } catch {
                guard !Task.isShuttingDownGracefully && !Task.isCancelled else { break }
                log.error("cannot follow NetworkManager: \(error); trying again in \(pause)")
            }
            guard await bus.isConnected else {
                throw DaemonError("the bus connection ended; NetworkManager cannot be followed")
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(30))
        }
    }

    /// Follows NetworkManager until the client's events end.
    private func follow() async throws {
        let engine = self.engine
        let agent = NetworkManagerSecretAgent(connection: bus) { ssid, _ in
            await engine.password(for: SSID(bytes: ssid))?.secret
        }
        let agentEvents = try await agent.start()
        // Outlives this call: logs the secret agent's events until their stream ends with the agent;
        // cancelled when the watcher stops.
        let agentLog = Task { [log] in
            for await e in agentEvents {
                switch e {
                case .registered(let owner): log.info("secret agent registered with NetworkManager (\(owner))")
                case .registrationFailed(let why): log.warning("secret agent: \(why)")
                case .managerGone: log.info("secret agent: NetworkManager left; registering again when it returns")
                }
            }
        }
        defer { agentLog.cancel() }
        do {
            let events = try await client.start()
            for await event in events {
                if Task.isCancelled { break }
                await handle(event)
            }
        } catch {
            await agent.stop()
            throw error
        }
        await client.stop()
        await agent.stop()
    }

    private func handle(_ event: NetworkManagerEvent) async {
        switch event {
        case .managerAvailable(let available):
            if available {
                log.info("NetworkManager is on the bus; reading its state")
            } else {
                // Said as what it means to the administrator: also when it was never there.
                log.warning("NetworkManager is not running (org.freedesktop.NetworkManager is not on the system bus): no Wi-Fi interface is followed until it starts. Fix: sudo systemctl start NetworkManager")
            }
            await provisioner.managerAvailable(available)
            await engine.networkManagerReset()
            if !available { await engine.primaryChanged(nil) }
        case .snapshotComplete:
            log.debug("NetworkManager snapshot complete")
        case .wifiDeviceAdded(let device):
            await engine.interfaceAppeared(InterfaceID(device.interfaceName))
        case .wifiDeviceRemoved(let device):
            await engine.interfaceVanished(InterfaceID(device.interfaceName))
        case .wifiDeviceRenamed(let device, let old):
            await engine.interfaceRenamed(from: InterfaceID(old), to: InterfaceID(device.interfaceName))
        case .deviceStateChanged:
            await provisioner.deviceStateChanged()
        case .profilesChanged:
            await provisioner.profilesChanged()
        case .deviceActivated(let device, let joined):
            let connection = ConnectionID(ConnectionReference(joined)?.text ?? "")
            await engine.joined(InterfaceID(device.interfaceName), network: Self.network(joined), connection: connection)
        case .deviceDeactivated(let device, _, _):
            await engine.left(InterfaceID(device.interfaceName))
        case .accessPointsChanged(let device, let aps):
            await provisioner.accessPointsSeen(aps)
            await engine.scanListChanged(InterfaceID(device.interfaceName), aps.map(Self.network))
        case .primaryConnectionChanged(let type, _, let wifiInterface, let connectivity):
            await engine.primaryChanged(ManagerStatus.Primary(type: type, interface: wifiInterface.map(InterfaceID.init), connectivity: connectivity))
        case .readFailed(let why):
            log.error("NetworkManager: \(why)")
        case .connectivityCheckChanged(let check):
            await engine.networkManagerCheckChanged(check.map(NetworkManagerCheck.init))
        case .overloaded(let dropped):
            log.warning("NetworkManager: signals came faster than they could be handled (\(dropped) dropped); re-reading its state")
        case .joinReportedEarly(_, let token, let reported):
            // Behind every event before it: the engine already knows the join (or the leave).
            await engine.joinReportedEarly(token: token, reported: reported)
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
}

/// What the engine asks of NetworkManager, and what the connectivity monitor reads from it, by
/// interface name: the device path comes from the client's model.
struct NetworkManagerActions: NetworkControl {
    let client: NetworkManagerClient

    func disconnect(interface: InterfaceID) async throws {
        guard let device = await client.devicePath(interface: interface.rawValue) else { return }
        try await client.disconnect(device: device)
    }

    /// Connection profiles are identified by UUID in the core (stable across NetworkManager and
    /// daemon restarts, unlike settings object paths; ``ConnectionReference``), and resolved to a
    /// path when acted on.
    func setAutoconnect(_ enabled: Bool, connection: ConnectionID) async throws {
        guard let reference = ConnectionReference(text: connection.rawValue) else { return }
        try await client.setAutoconnect(enabled, profile: reference)
    }

    func recheckConnectivity() async throws -> String {
        "\(try await client.checkConnectivity())"
    }

    func reportJoinEarly(interface: InterfaceID, token: UInt64) async -> Bool {
        await client.reportJoinEarly(interface: interface.rawValue, token: token)
    }

    /// The DNS servers NetworkManager reports for an interface's link (empty when unknown).
    func dnsServers(interface: String) async -> [String] {
        guard let device = await client.devicePath(interface: interface) else { return [] }
        return (try? await client.dnsServers(device: device)) ?? []
    }

    /// The DHCPv4 lease NetworkManager reports for an interface's link (RFC 8910's DHCPINFORM).
    func dhcpv4Lease(interface: String) async -> DHCPv4Lease? {
        guard let device = await client.devicePath(interface: interface) else { return nil }
        return try? await client.dhcpv4Lease(device: device)
    }
}
