// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol

/// The daemon's D-Bus surface (the manager object and one object per Wi-Fi interface): the
/// interfaces declared in `HotspotContract`, implemented by handlers that check polkit and then
/// call one Engine function. The glue only: no hotspot logic lives here.
final class BusPublisher: Sendable {
    let bus: Connection
    let authorizer: Authorizer
    weak let engine: Engine?
    static let version = "0.2.0"

    init(bus: Connection, engine: Engine) {
        self.bus = bus
        self.engine = engine
        self.authorizer = Authorizer(connection: bus)
    }

    private func liveEngine() throws -> Engine {
        guard let engine else { throw HotspotError(.notAllowed, "the daemon is shutting down") }
        return engine
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
                    let engine = try liveEngine()
                    let caller = try? await bus.credentials(of: call.sender)
                    let registration = try await engine.validateRegistration(options, uid: caller?.uid)
                    try await authorizer.require(.registerHelper, for: call, details: registration.polkitDetails)
                    try await engine.register(sender: call.sender, path: path, registration)
                    return []
                },
                M.unregisterHelper: { [self] call in
                    try await liveEngine().unregister(sender: call.sender)
                    return []
                },
                M.forgetNetwork: { [self] call in
                    try await authorizer.require(.control, for: call)
                    let bytes = call.body[0].byteArray ?? []
                    guard !bytes.isEmpty, bytes.count <= WireNetwork.maximumSSIDLength else {
                        throw HotspotError(.invalidArgs, "an SSID has 1 to \(WireNetwork.maximumSSIDLength) bytes; got \(bytes.count)")
                    }
                    await (try liveEngine()).forget(SSID(bytes: bytes))
                    return []
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
                M.helpers: { [self] in .varDicts(await engine?.helperList() ?? []) },
                M.version: { .string(Self.version) },
                M.status: { [self] in .string(await engine?.status ?? "determining") },
                M.probePolicy: { [self] in
                    .string(await engine?.monitor?.policy.explanation ?? "no probes: connectivity checks are off ([connectivity] enabled=false)")
                },
            ])
    }

    private func interfacePaths() async -> DBusValue {
        .objectPaths(await (engine?.interfaces.values.sorted { $0.number < $1.number }.map(\.path)) ?? [])
    }

    /// Announces manager properties by name; their values are read through the table's getters.
    func managerChanged(_ properties: PropertySpec...) async {
        try? await bus.propertiesChanged(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                         names: properties.map(\.key))
    }

    // MARK: - Interfaces

    private func interfaceTable(_ path: ObjectPath) -> DBusInterface {
        @Sendable func record() async throws -> InterfaceRecord {
            guard let r = await engine?.record(at: path) else { throw HotspotError(.noSuchNetwork, "the interface at \(path) is gone") }
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
                I.presentUI: { [self] call in
                    try await authorizer.require(.control, for: call)
                    try await liveEngine().presentUI(try await record().name)
                    return []
                },
                I.logoff: { [self] call in
                    let engine = try liveEngine()
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
                I.checkConnectivity: { [self] _ in
                    let r = try await record()
                    return [.varDict(try await liveEngine().checkConnectivity(r.name))]
                },
            ],
            getters: [
                I.name: { .string(try await record().name.rawValue) },
                I.device: { .objectPath(try await record().device) },
                I.state: { .string((try await record().status?.state ?? .inactive).rawValue) },
                I.network: { Self.networkValue(try await record().status?.network) },
                I.helper: { .string(try await record().status?.chosenHelperDisplayName ?? "") },
                I.connectivity: { .string(try await record().connectivity) },
                I.portalUrl: { .string(try await record().portalURL) },
                I.venueInfoUrl: { .string(try await record().venueInfoURL) },
                I.sessionExpires: { .uint64(try await record().sessionExpires) },
            ])
    }

    static func networkValue(_ network: Network?) -> DBusValue {
        guard let network else { return .varDict([:]) }
        return WireNetwork.encode(network)
    }

    func interfaceAdded(_ record: InterfaceRecord) async {
        try? await bus.export([interfaceTable(record.path)], at: record.path)
        await managerChanged(HotspotContract.Manager.interfaces)
    }

    func interfaceRemoved(_ record: InterfaceRecord) async {
        await bus.unexport(record.path)
        await managerChanged(HotspotContract.Manager.interfaces)
    }

    /// Announces an interface object's properties by name; their values are read through the
    /// table's getters.
    func interfaceChanged(_ record: InterfaceRecord, _ properties: [PropertySpec]) async {
        guard !properties.isEmpty else { return }
        try? await bus.propertiesChanged(path: record.path, interface: HotspotContract.interfaceInterface, names: properties.map(\.key))
    }

    func uiRequired(_ record: InterfaceRecord, displayName: String, network: Network) async {
        try? await bus.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                            member: HotspotContract.Manager.uiRequired.name,
                            body: [.objectPath(record.path), .string(displayName), WireNetwork.encode(network)])
    }

    /// `path` is the interface's, even while it is being removed (its commands end then).
    func commandCompleted(_ request: CommandRequest, path: ObjectPath, result: String, seconds: Double) async {
        try? await bus.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                            member: HotspotContract.Manager.commandCompleted.name,
                            body: [.objectPath(path), .string(request.helper.rawValue), .string(request.command.rawValue), .string(result), .double(seconds)])
    }
}
