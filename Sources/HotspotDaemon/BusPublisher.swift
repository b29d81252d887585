// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol

/// The daemon's D-Bus surface (the manager object and one object per Wi-Fi interface), declared
/// as tables whose handlers check polkit and then call one Engine function. The glue only: no
/// hotspot logic lives here.
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
        DBusInterface(HotspotContract.managerInterface,
            methods: [
                DBusMethod("RegisterHelper", inputs: [DBusArgument("handler", "o"), DBusArgument("options", "a{sv}")]) { [self] call in
                    guard case .objectPath(let path) = call.body[0], let options = call.body[1].varDict else { return [] }
                    let engine = try liveEngine()
                    let caller = try? await bus.credentials(of: call.sender)
                    let registration = try await engine.validateRegistration(options, uid: caller?.uid)
                    try await authorizer.require(.registerHelper, for: call, details: registration.polkitDetails)
                    try await engine.register(sender: call.sender, path: path, registration)
                    return []
                },
                DBusMethod("UnregisterHelper") { [self] call in
                    try await liveEngine().unregister(sender: call.sender)
                    return []
                },
                DBusMethod("ForgetNetwork", inputs: [DBusArgument("ssid", "ay")]) { [self] call in
                    try await authorizer.require(.control, for: call)
                    let bytes = call.body[0].byteArray ?? []
                    guard !bytes.isEmpty, bytes.count <= WireNetwork.maximumSSIDLength else {
                        throw HotspotError(.invalidArgs, "an SSID has 1 to \(WireNetwork.maximumSSIDLength) bytes; got \(bytes.count)")
                    }
                    await (try liveEngine()).forget(SSID(bytes: bytes))
                    return []
                },
                DBusMethod("CheckPermission", inputs: [DBusArgument("action", "s")], outputs: [DBusArgument("result", "s")]) { [self] call in
                    let name = call.body[0].string ?? ""
                    guard let action = HotspotContract.Action(named: name) else {
                        throw HotspotError(.invalidArgs, "unknown action '\(name)' (expected: \(HotspotContract.Action.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    return [.string(try await authorizer.check(action, sender: call.sender).rawValue)]
                },
            ],
            properties: [
                DBusProperty("Interfaces", .array(.objectPath)) { [self] in
                    .objectPaths(await (engine?.interfaces.values.sorted { $0.number < $1.number }.map(\.path)) ?? [])
                },
                DBusProperty("Helpers", .array(.dictionary(key: .string, value: .variant))) { [self] in
                    .varDicts(await engine?.helperList() ?? [])
                },
                DBusProperty("Version", .string, emitsChanged: .const) { .string(Self.version) },
                DBusProperty("Status", .string) { [self] in .string(await engine?.status ?? "determining") },
                DBusProperty("ProbePolicy", .string) { [self] in
                    .string(await engine?.monitor?.policy.explanation ?? "no probes: connectivity checks are off ([connectivity] enabled=false)")
                },
            ],
            signals: [
                DBusSignalDescription("UIRequired", [DBusArgument("interface", "o"), DBusArgument("helper_display_name", "s"), DBusArgument("network", "a{sv}")]),
                DBusSignalDescription("CommandCompleted", [DBusArgument("interface", "o"), DBusArgument("helper", "s"), DBusArgument("command", "s"),
                                                           DBusArgument("result", "s"), DBusArgument("seconds", "d")]),
            ])
    }

    func managerChanged(_ changed: [String: DBusValue]) async {
        try? await bus.propertiesChanged(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface, changed)
    }

    // MARK: - Interfaces

    private func interfaceTable(_ path: ObjectPath) -> DBusInterface {
        @Sendable func record() async throws -> InterfaceRecord {
            guard let r = await engine?.record(at: path) else { throw HotspotError(.noSuchNetwork, "the interface at \(path) is gone") }
            return r
        }
        return DBusInterface(HotspotContract.interfaceInterface,
            methods: [
                DBusMethod("GetScanList", outputs: [DBusArgument("networks", "aa{sv}")]) { [self] call in
                    try await authorizer.require(.readScanList, for: call)
                    let list = try await record().scanList.map { a -> [String: DBusValue] in
                        ["ssid": .bytes(a.network.ssid.bytes), "bssid": .string(a.network.bssid), "strength": .double(a.network.signalStrength),
                         "secure": .bool(a.network.isSecure), "display-name": .string(a.displayName ?? ""), "has-password": .bool(a.hasPassword)]
                    }
                    return [.varDicts(list)]
                },
                DBusMethod("PresentUI") { [self] call in
                    try await authorizer.require(.control, for: call)
                    try await liveEngine().presentUI(try await record().name)
                    return []
                },
                DBusMethod("Logoff") { [self] call in
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
                DBusMethod("CheckConnectivity", outputs: [DBusArgument("result", "a{sv}")]) { [self] _ in
                    let r = try await record()
                    return [.varDict(await try liveEngine().checkConnectivity(r.name))]
                },
            ],
            properties: [
                DBusProperty("Name", .string, emitsChanged: .const) { .string(try await record().name.rawValue) },
                DBusProperty("Device", .objectPath) { .objectPath(try await record().device) },
                DBusProperty("State", .string) { .string((try await record().status?.state ?? .inactive).rawValue) },
                DBusProperty("Network", .dictionary(key: .string, value: .variant)) { Self.networkValue(try await record().status?.network) },
                DBusProperty("Helper", .string) { .string(try await record().status?.chosenHelperDisplayName ?? "") },
                DBusProperty("Connectivity", .string) { .string(try await record().connectivity) },
                DBusProperty("PortalUrl", .string) { .string(try await record().portalURL) },
                DBusProperty("VenueInfoUrl", .string) { .string(try await record().venueInfoURL) },
                DBusProperty("SessionExpires", .uint64) { .uint64(try await record().sessionExpires) },
            ])
    }

    static func networkValue(_ network: Network?) -> DBusValue {
        guard let network else { return .varDict([:]) }
        return WireNetwork.encode(network)
    }

    func interfaceAdded(_ record: InterfaceRecord) async {
        try? await bus.export([interfaceTable(record.path)], at: record.path)
        await managerChanged(["Interfaces": .objectPaths(await (engine?.interfaces.values.sorted { $0.number < $1.number }.map(\.path)) ?? [])])
    }

    func interfaceRemoved(_ record: InterfaceRecord) async {
        await bus.unexport(record.path)
        await managerChanged(["Interfaces": .objectPaths(await (engine?.interfaces.values.sorted { $0.number < $1.number }.map(\.path)) ?? [])])
    }

    func interfaceStatusChanged(_ record: InterfaceRecord, old: InterfaceStatus?) async {
        guard let s = record.status else { return }
        var changed: [String: DBusValue] = [:]
        if old?.state != s.state { changed["State"] = .string(s.state.rawValue) }
        if old?.network != s.network { changed["Network"] = Self.networkValue(s.network) }
        if old?.chosenHelperDisplayName != s.chosenHelperDisplayName { changed["Helper"] = .string(s.chosenHelperDisplayName ?? "") }
        await interfaceChanged(record, changed)
    }

    func interfaceChanged(_ record: InterfaceRecord, _ changed: [String: DBusValue]) async {
        guard !changed.isEmpty else { return }
        try? await bus.propertiesChanged(path: record.path, interface: HotspotContract.interfaceInterface, changed)
    }

    func uiRequired(_ record: InterfaceRecord, displayName: String, network: Network) async {
        try? await bus.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface, member: "UIRequired",
                            body: [.objectPath(record.path), .string(displayName), WireNetwork.encode(network)])
    }

    /// `path` is the interface's, even while it is being removed (its commands end then).
    func commandCompleted(_ request: CommandRequest, path: ObjectPath, result: String, seconds: Double) async {
        try? await bus.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface, member: "CommandCompleted",
                            body: [.objectPath(path), .string(request.helper.rawValue), .string(request.command.rawValue), .string(result), .double(seconds)])
    }
}
