// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol
import ServiceLifecycle

/// What the engine asks the bus server to announce, in the order it happened.
enum Announcement: Sendable {
    /// Manager properties changed: announced by name, their values read through the getters.
    case manager([PropertySpec])
    /// An interface object to export (then `Interfaces` is announced), or to withdraw.
    case interfaceAdded(ObjectPath)
    case interfaceRemoved(ObjectPath)
    /// An interface object's properties changed: named, with the record as it was then, so a
    /// state the engine passes through (authenticating) is announced even when the bus server
    /// gets to it after the next one.
    case interface(InterfaceRecord, [PropertySpec])
    case uiRequired(ObjectPath, displayName: String, network: Network)
    case commandCompleted(ObjectPath, helper: String, command: String, result: String, seconds: Double)
    /// An interface's annotated scan list changed in what a desktop shows (``ScanListSummary``).
    case scanListChanged(ObjectPath)
}

/// The daemon's D-Bus surface (the manager object and one object per Wi-Fi interface): the
/// interfaces declared in `HotspotContract`, implemented by handlers that check polkit and then
/// call one Engine function; and, as a service, the announcements the engine makes. The glue only:
/// no hotspot logic lives here.
final class BusPublisher: Service {
    let bus: Connection
    let authorizer: Authorizer
    let engine: Engine
    let announcements: AsyncQueue<Announcement>
    /// CheckConnectivity: one round in flight per interface, one round per caller and interface
    /// every `connectivityCheckInterval`.
    let connectivityChecks = ConnectivityCheckGate<[String: DBusValue]>(minimumInterval: BusPublisher.connectivityCheckInterval)
    static let connectivityCheckInterval: Duration = .seconds(10)
    static let version = "0.2.0"

    init(bus: Connection, engine: Engine, announcements: AsyncQueue<Announcement>) {
        self.bus = bus
        self.engine = engine
        self.announcements = announcements
        self.authorizer = Authorizer(connection: bus)
    }

    /// Announces what the engine says, in order, until the daemon shuts down. The loop is
    /// cancelled at shutdown rather than iterating `cancelOnGracefulShutdown()`, whose merge with
    /// the shutdown signal costs every announcement a trip through tasks of its own.
    func run() async throws {
        let announcements = self.announcements
        await cancelWhenGracefulShutdown { [self] in
            for await announcement in announcements { await announce(announcement) }
        }
    }

    func announce(_ announcement: Announcement) async {
        switch announcement {
        case .manager(let properties):
            try? await bus.propertiesChanged(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                             names: properties.map(\.key))
        case .interfaceAdded(let path):
            try? await bus.export([interfaceTable(path)], at: path)
            await announce(.manager([HotspotContract.Manager.interfaces]))
        case .interfaceRemoved(let path):
            await bus.unexport(path)
            await announce(.manager([HotspotContract.Manager.interfaces]))
        case .interface(let record, let properties):
            var values: [String: DBusValue] = [:]
            for p in properties { values[p.key] = Self.value(p, of: record) }
            try? await bus.propertiesChanged(path: record.path, interface: HotspotContract.interfaceInterface, values)
        case .uiRequired(let path, let displayName, let network):
            // A broadcast: every uid may listen, so no location data (GetNetwork has it).
            try? await bus.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                member: HotspotContract.Manager.uiRequired.name,
                                body: [.objectPath(path), .string(displayName), WireNetwork.encodePublic(network)])
        case .commandCompleted(let path, let helper, let command, let result, let seconds):
            try? await bus.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                member: HotspotContract.Manager.commandCompleted.name,
                                body: [.objectPath(path), .string(helper), .string(command), .string(result), .double(seconds)])
        case .scanListChanged(let path):
            try? await bus.emit(path: path, interface: HotspotContract.interfaceInterface,
                                member: HotspotContract.Interface.scanListChanged.name, body: [])
        }
    }

    // MARK: - The manager

    func exportManager() async throws {
        try await bus.export([managerTable()], at: HotspotContract.managerPath)
    }

    private func managerTable() -> DBusInterface {
        typealias M = HotspotContract.Manager
        return HotspotContract.manager.implement(
            methods: [
                M.registerHelper: { [self] call in
                    guard case .objectPath(let path) = call.body[0], let options = call.body[1].varDict else { return [] }
                    let caller = try? await bus.credentials(of: call.sender)
                    let registration = try await engine.validateRegistration(options, uid: caller?.uid)
                    try await authorizer.require(.registerHelper, for: call, details: registration.polkitDetails)
                    try await engine.register(sender: call.sender, path: path, registration)
                    return []
                },
                M.unregisterHelper: { [self] call in
                    try await engine.unregister(sender: call.sender)
                    return []
                },
                M.openCommandChannel: { [self] call in
                    [.unixFD(try await engine.openCommandChannel(sender: call.sender))]
                },
                M.forgetNetwork: { [self] call in
                    try await authorizer.require(.control, for: call)
                    let bytes = call.body[0].byteArray ?? []
                    guard !bytes.isEmpty, bytes.count <= WireNetwork.maximumSSIDLength else {
                        throw HotspotError(.invalidArgs, "an SSID has 1 to \(WireNetwork.maximumSSIDLength) bytes; got \(bytes.count)")
                    }
                    await engine.forget(SSID(bytes: bytes))
                    return []
                },
                M.settleJoin: { [self] call in
                    // Only NetworkManager's dispatcher (root) may hold a join: anyone else could
                    // start sign-ins or stall the caller it answers.
                    guard let caller = try? await bus.credentials(of: call.sender), caller.uid == 0 else {
                        throw HotspotError(.notAuthorized, "SettleJoin is for NetworkManager's pre-up dispatcher script, which runs as root")
                    }
                    let name = call.body[0].string ?? ""
                    return [.string(await engine.settleJoin(InterfaceID(name)).rawValue)]
                },
                M.checkPermission: { [self] call in
                    let name = call.body[0].string ?? ""
                    guard let action = HotspotContract.Action(named: name) else {
                        throw HotspotError(.invalidArgs, "unknown action '\(name)' (expected: \(HotspotContract.Action.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    return [.string(try await authorizer.check(action, sender: call.sender).rawValue)]
                },
            ],
            getters: [
                M.interfaces: { [self] in await interfacePaths() },
                M.helpers: { [self] in .varDicts(await engine.helperList()) },
                M.version: { .string(Self.version) },
                M.status: { [self] in .string(await engine.status) },
                M.probePolicy: { [self] in
                    .string(await engine.monitor?.policy.explanation ?? "no probes: connectivity checks are off ([connectivity] enabled=false)")
                },
            ])
    }

    private func interfacePaths() async -> DBusValue {
        .objectPaths(await engine.interfaces.values.sorted { $0.number < $1.number }.map(\.path))
    }

    /// Announces manager properties by name; their values are read through the table's getters.
    // MARK: - Interfaces

    private func interfaceTable(_ path: ObjectPath) -> DBusInterface {
        @Sendable func record() async throws -> InterfaceRecord {
            guard let r = await engine.record(at: path) else { throw HotspotError(.noSuchNetwork, "the interface at \(path) is gone") }
            return r
        }
        typealias I = HotspotContract.Interface
        return HotspotContract.interface.implement(
            methods: [
                I.getScanList: { [self] call in
                    try await authorizer.require(.readScanList, for: call)
                    let list = try await record().scanList.map { a -> [String: DBusValue] in
                        ["ssid": .bytes(a.network.ssid.bytes), "bssid": .string(a.network.bssid), "strength": .double(a.network.signalStrength),
                         "secure": .bool(a.network.isSecure), "display-name": .string(a.displayName ?? ""), "has-password": .bool(a.hasPassword)]
                    }
                    return [.varDicts(list)]
                },
                I.getNetwork: { [self] call in
                    try await authorizer.require(.readScanList, for: call)
                    guard let network = try await record().status?.network else { return [.varDict([:])] }
                    return [WireNetwork.encode(network)]
                },
                I.presentUI: { [self] call in
                    try await authorizer.require(.control, for: call)
                    try await engine.presentUI(try await record().name)
                    return []
                },
                I.logoff: { [self] call in
                    let r = try await record()
                    // The chosen helper may log off its own network; anyone else needs polkit.
                    if let id = await engine.helperID(of: call.sender), r.status?.chosenHelper == id {
                        try await engine.logoff(r.name, by: .helper(id))
                    } else {
                        try await authorizer.require(.control, for: call)
                        try await engine.logoff(r.name, by: .user)
                    }
                    return []
                },
                I.checkConnectivity: { [self] call in
                    // Each round goes out on the Wi-Fi link: authorized as NetworkManager's own
                    // CheckConnectivity is (network-control), and coalesced.
                    try await authorizer.require(.control, for: call)
                    let r = try await record()
                    let caller = (try? await bus.credentials(of: call.sender)).map { "uid \($0.uid)" } ?? call.sender
                    switch await connectivityChecks.check(interface: r.name.rawValue, caller: caller, round: { [engine] in
                        await engine.checkConnectivity(r.name)
                    }) {
                    case .probed(let answer), .shared(let answer):
                        return [.varDict(answer)]
                    case .recent(var answer, let age):
                        // The published values as they are now, the reason of the last round.
                        let now = try await record()
                        answer["connectivity"] = .string(now.connectivity)
                        answer["portal-url"] = .string(now.portalURL)
                        answer["session-expires"] = .uint64(now.sessionExpires)
                        answer["reason"] = .string("\(answer["reason"]?.string ?? ""); from the check \(age.components.seconds) s ago (a caller gets at most "
                                                   + "one check of an interface every \(Self.connectivityCheckInterval.components.seconds) s)")
                        return [.varDict(answer)]
                    }
                },
            ],
            getters: Dictionary(uniqueKeysWithValues: HotspotContract.interface.properties.map { p in
                (p, { Self.value(p, of: try await record()) } as DBusProperty.Getter)
            }))
    }

    /// An interface object's property, encoded in one place for `Get` and for announcements.
    static func value(_ property: PropertySpec, of r: InterfaceRecord) -> DBusValue {
        typealias I = HotspotContract.Interface
        switch property.key {
        case I.name.key: return .string(r.name.rawValue)
        case I.device.key: return .objectPath(r.device)
        case I.state.key: return .string((r.status?.state ?? .inactive).rawValue)
        case I.network.key: return networkValue(r.status?.network)
        case I.helper.key: return .string(r.status?.chosenHelperDisplayName ?? "")
        case I.connectivity.key: return .string(r.connectivity)
        case I.portalUrl.key: return .string(r.portalURL)
        case I.venueInfoUrl.key: return .string(r.venueInfoURL)
        case I.sessionExpires.key: return .uint64(r.sessionExpires)
        case I.reason.key: return .string(r.reason)
        default: preconditionFailure("the Interface declaration has a property \(property.key) without a value")
        }
    }

    /// The `Network` property, readable by every uid and announced to all: without the SSID and
    /// BSSID (location data, given by GetNetwork behind read-scan-list).
    static func networkValue(_ network: Network?) -> DBusValue {
        guard let network else { return .varDict([:]) }
        return WireNetwork.encodePublic(network)
    }
}
