// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol

/// A client of hotspot-helperd's D-Bus API (dbus/org.freedesktop.NetworkManager.HotspotHelper.xml),
/// shared by `hotspotctl` and `hotspot-helper-agent`. It reads properties, calls methods and
/// turns the daemon's signals into ``DaemonEvent``s; errors are classified by ``ClientFailure``.
public struct DaemonClient: Sendable {
    /// The connection to the bus the daemon is on (normally the system bus).
    public let connection: Connection
    /// How long a call may take; PresentUI and Logoff may wait for a polkit prompt.
    public var timeout: Duration = .seconds(30)

    public init(connection: Connection) { self.connection = connection }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` overrides the address).
    public static func system() throws(ClientFailure) -> DaemonClient {
        do { return DaemonClient(connection: try Connection.system()) } catch {
            throw ClientFailure.busUnavailable("\(error)")
        }
    }

    // MARK: - Reading

    /// The manager's properties: Version, Status, Interfaces, Helpers, ProbePolicy.
    public func manager() async throws -> ManagerSnapshot {
        typealias M = HotspotContract.ManagerProperty
        let p = try await getAll(HotspotContract.managerPath, HotspotContract.managerInterface)
        return ManagerSnapshot(
            version: p[M.version]?.string ?? "",
            status: p[M.status]?.string ?? "",
            interfaces: p[M.interfaces]?.objectPaths ?? [],
            helpers: (p[M.helpers]?.arrayItems ?? []).compactMap(\.varDict).map(HelperSnapshot.init),
            probePolicy: p[M.probePolicy]?.string ?? "")
    }

    /// One interface object's properties, with the network's SSID and BSSID when the caller may
    /// read them (GetNetwork, the read-scan-list polkit action; else the network without them).
    public func interface(at path: ObjectPath) async throws -> InterfaceSnapshot {
        var properties = try await getAll(path, HotspotContract.interfaceInterface)
        if let network = properties[HotspotContract.InterfaceProperty.network.key]?.varDict, !network.isEmpty {
            properties[HotspotContract.InterfaceProperty.network.key] = .varDict(await located(network, at: path))
        }
        return InterfaceSnapshot(path: path, properties: properties)
    }

    /// The network an interface is on, SSID and BSSID included (GetNetwork: location data, needs
    /// the read-scan-list polkit action); empty when not associated.
    public func network(at path: ObjectPath) async throws -> [String: DBusValue] {
        let reply = try await connection.call(HotspotContract.Interface.getNetwork, of: HotspotContract.interface, at: path, timeout: timeout)
        return reply.first?.varDict ?? [:]
    }

    /// `network` as announced (without location data), with the SSID and BSSID added when this
    /// caller may read them; as it was otherwise.
    func located(_ announced: [String: DBusValue], at path: ObjectPath) async -> [String: DBusValue] {
        guard let full = try? await network(at: path), !full.isEmpty else { return announced }
        return announced.merging(full) { _, located in located }
    }

    /// Every interface, in the daemon's order.
    public func interfaces() async throws -> [InterfaceSnapshot] {
        var out: [InterfaceSnapshot] = []
        for path in try await manager().interfaces { out.append(try await interface(at: path)) }
        return out
    }

    /// The interface called `name` (`wlan0`), or when `name` is nil the only one, or the one
    /// `preferring` selects when there are several. Throws naming the known interfaces.
    public func resolveInterface(_ name: String?, preferring: ((InterfaceSnapshot) -> Bool)? = nil) async throws -> InterfaceSnapshot {
        let all = try await interfaces()
        let known = all.map(\.name).joined(separator: ", ")
        if let name {
            guard let match = all.first(where: { $0.name == name }) else {
                throw ClientFailure.failed(all.isEmpty ? "no Wi-Fi interface named \(name): the daemon sees no Wi-Fi interface"
                                                       : "no Wi-Fi interface named \(name) (known: \(known))")
            }
            return match
        }
        if all.count == 1 { return all[0] }
        if all.isEmpty { throw ClientFailure.failed("the daemon sees no Wi-Fi interface") }
        if let preferring {
            let candidates = all.filter(preferring)
            if candidates.count == 1 { return candidates[0] }
        }
        throw ClientFailure.usage("several Wi-Fi interfaces (\(known)): name one")
    }

    /// The annotated scan list of an interface (needs the read-scan-list polkit action).
    public func scanList(at path: ObjectPath) async throws -> [ScanEntry] {
        let reply = try await connection.call(HotspotContract.Interface.getScanList, of: HotspotContract.interface, at: path, timeout: timeout)
        return (reply.first?.arrayItems ?? []).compactMap(\.varDict).map(ScanEntry.init)
    }

    /// Probes an interface now (CheckConnectivity).
    public func checkConnectivity(at path: ObjectPath) async throws -> ConnectivityReport {
        let reply = try await connection.call(HotspotContract.Interface.checkConnectivity, of: HotspotContract.interface, at: path, timeout: timeout)
        return ConnectivityReport(reply.first?.varDict ?? [:])
    }

    /// Tells the daemon the user acted on UIRequired (needs the control polkit action).
    public func presentUI(at path: ObjectPath) async throws {
        _ = try await connection.call(HotspotContract.Interface.presentUI, of: HotspotContract.interface, at: path, timeout: timeout)
    }

    /// Signs out of the hotspot on an interface (needs the control polkit action).
    public func logoff(at path: ObjectPath) async throws {
        _ = try await connection.call(HotspotContract.Interface.logoff, of: HotspotContract.interface, at: path, timeout: timeout)
    }

    /// Forgets what the daemon learnt about every network with this SSID.
    public func forget(ssid: [UInt8]) async throws {
        _ = try await connection.call(HotspotContract.Manager.forgetNetwork, of: HotspotContract.manager, at: HotspotContract.managerPath,
                                      body: [.bytes(ssid)], timeout: timeout)
    }

    private func getAll(_ path: ObjectPath, _ interface: InterfaceName) async throws -> [String: DBusValue] {
        let reply = try await connection.call(destination: HotspotContract.busName, path: path, interface: "org.freedesktop.DBus.Properties",
                                              member: "GetAll", body: [.string(interface.rawValue)], timeout: timeout)
        guard let dict = reply.first?.varDict else { throw ClientFailure.failed("the daemon answered GetAll with \(reply)") }
        return dict.mapValues(\.unwrapped)
    }

    // MARK: - Events

    /// The daemon's changes as they happen: interface and manager PropertiesChanged, UIRequired,
    /// CommandCompleted, and the daemon starting or stopping. Subscribed before this returns, so
    /// state read afterwards cannot miss a change. The stream ends with the connection.
    public func events() async throws -> AsyncStream<DaemonEvent> {
        let bus = HotspotContract.busName
        // One stream for the daemon's signals, in the order it sent them: a state change announced
        // before UIRequired must not be handled after it (one task per kind of signal did, and
        // withdrew the notification it had just posted).
        let signals = try await connection.signals(matchingAny: [
            MatchRule(sender: bus, pathNamespace: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
            MatchRule(sender: bus, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                      member: HotspotContract.Manager.uiRequired.name),
            MatchRule(sender: bus, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                      member: HotspotContract.Manager.commandCompleted.name),
        ])
        let owners = try await connection.watchNameOwner(bus)
        let (stream, continuation) = AsyncStream<DaemonEvent>.makeStream()
        let tasks = [
            Task {
                for await s in signals {
                    switch s.member {
                    case "PropertiesChanged":
                        guard s.body.count >= 2, let iface = s.body[0].string, let dict = s.body[1].varDict else { continue }
                        var changed = dict.mapValues(\.unwrapped)
                        if iface == HotspotContract.interfaceInterface.rawValue, let network = changed[HotspotContract.InterfaceProperty.network.key]?.varDict,
                           !network.isEmpty {
                            changed[HotspotContract.InterfaceProperty.network.key] = .varDict(await located(network, at: s.path))
                        }
                        continuation.yield(.propertiesChanged(path: s.path, interface: iface, changed: changed))
                    case HotspotContract.Manager.uiRequired.name.rawValue:
                        guard s.body.count == 3, let path = s.body[0].objectPath, let helper = s.body[1].string else { continue }
                        let network = await located(s.body[2].varDict ?? [:], at: path)
                        continuation.yield(.uiRequired(interface: path, helper: helper, network: NetworkSummary(network)))
                    case HotspotContract.Manager.commandCompleted.name.rawValue:
                        guard s.body.count == 5, let path = s.body[0].objectPath, let helper = s.body[1].string, let command = s.body[2].string,
                              let result = s.body[3].string, let seconds = s.body[4].double else { continue }
                        continuation.yield(.commandCompleted(interface: path, helper: helper, command: command, result: result, seconds: seconds))
                    default:
                        continue
                    }
                }
            },
            Task {
                var first = true
                for await owner in owners {
                    if first { first = false; continue }
                    continuation.yield(owner == nil ? .daemonStopped : .daemonStarted)
                }
                continuation.finish()
            },
        ]
        continuation.onTermination = { _ in tasks.forEach { $0.cancel() } }
        return stream
    }
}

/// Something the daemon announced.
public enum DaemonEvent: Sendable {
    case propertiesChanged(path: ObjectPath, interface: String, changed: [String: DBusValue])
    case uiRequired(interface: ObjectPath, helper: String, network: NetworkSummary)
    case commandCompleted(interface: ObjectPath, helper: String, command: String, result: String, seconds: Double)
    case daemonStarted
    case daemonStopped
}
