// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import DBus
import HotspotCore
import HotspotProtocol
import ServiceLifecycle
import Synchronization

/// The daemon's D-Bus surface (the manager object and one object per Wi-Fi interface): the
/// interfaces declared in `HotspotContract`, implemented by handlers that check polkit and then
/// call one Engine function; and, as a service, the announcements the engine makes. The only
/// place that encodes wire values: the engine hands it typed values. The glue only: no hotspot
/// logic lives here.
final class BusPublisher: Service {
    let bus: Connection
    let authorizer: Authorizer
    let engine: Engine
    let announcements: AsyncQueue<Announcement>
    /// Makes the transports of helpers on the bus, their command channels included.
    let connector: HelperConnector
    /// NetworkManager's device for an interface name (the NetworkManager adapter's fact), for `Device`.
    let devicePath: @Sendable (InterfaceID) async -> ObjectPath?
    /// The interface objects exported, by number: `Interfaces` lists these, so a path it names is
    /// always there to call (the engine knows of an interface a moment before it is exported).
    private let exported = Mutex<Set<Int>>([])
    /// CheckConnectivity: one round in flight per interface, one round per caller and interface
    /// every `connectivityCheckInterval`.
    let connectivityChecks = ConnectivityCheckGate<ConnectivityAnswer>(minimumInterval: BusPublisher.connectivityCheckInterval)
    static let connectivityCheckInterval: Duration = .seconds(10)
    static let version = ProductVersion.current

    init(bus: Connection, engine: Engine, announcements: AsyncQueue<Announcement>, connector: HelperConnector,
         devicePath: @escaping @Sendable (InterfaceID) async -> ObjectPath?) {
        self.bus = bus
        self.engine = engine
        self.announcements = announcements
        self.connector = connector
        self.devicePath = devicePath
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
        case .interfaceAdded(let number):
            let path = HotspotContract.interfacePath(number)
            try? await bus.export([interfaceTable(number)], at: path)
            exported.withLock { _ = $0.insert(number) }
            await announce(.manager([.interfaces]))
        case .interfaceRemoved(let number):
            exported.withLock { _ = $0.remove(number) }
            await bus.unexport(HotspotContract.interfacePath(number))
            await announce(.manager([.interfaces]))
        case .interface(let record, let properties):
            var values: [String: DBusValue] = [:]
            for p in properties { values[p.key] = await value(p, of: record) }
            bus.perform { [values] in try? $0.propertiesChanged(path: HotspotContract.interfacePath(record.number), interface: HotspotContract.interfaceInterface, values) }
        case .uiRequired(let number, let displayName, let network):
            // A broadcast: every uid may listen, so no location data (GetNetwork has it).
            let body: [DBusValue] = [.objectPath(HotspotContract.interfacePath(number)), .string(displayName), WireNetwork.encodePublic(network)]
            bus.perform { try? $0.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                       member: HotspotContract.Manager.uiRequired.name, body: body) }
        case .commandCompleted(let number, let helper, let command, let completion, let seconds):
            let body: [DBusValue] = [.objectPath(HotspotContract.interfacePath(number)), .string(helper.rawValue), .string(command.rawValue),
                                     .string(completion.wireName), .double(seconds)]
            bus.perform { try? $0.emit(path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                       member: HotspotContract.Manager.commandCompleted.name, body: body) }
        case .scanListChanged(let number):
            bus.perform { try? $0.emit(path: HotspotContract.interfacePath(number), interface: HotspotContract.interfaceInterface,
                                       member: HotspotContract.Interface.scanListChanged.name, body: []) }
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
                    guard case .objectPath(let path) = call.body[0], let options = call.body[1].varDict else { return [.varDict([:])] }
                    let caller = try? await bus.credentials(of: call.sender)
                    // The options are checked before polkit is asked, so its dialog can show them.
                    let registration = try HelperRegistrationRequest(options: options, uid: caller?.uid)
                    try await authorizer.require(.registerHelper, for: call, details: registration.polkitDetails)
                    // The channel is made before the engine hears of the helper, so its first
                    // command already takes it: one way for commands, from the first.
                    let (transport, channel) = try await connector.connect(
                        sender: call.sender, path: path, wantsChannel: registration.wantsChannel,
                        gone: { [engine] transport, why in await engine.transportGone(transport, why: why) },
                        rerouted: { [engine] transport, why in await engine.transportRerouted(transport, why: why) })
                    do { try await engine.register(registration, transport: transport) } catch {
                        await transport.close(reason: "the registration was refused")
                        throw error
                    }
                    return [.varDict(channel.map { ["command-channel": .unixFD($0)] } ?? [:])]
                },
                M.unregisterHelper: { [self] call in
                    try await engine.unregister(sender: call.sender)
                    return []
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
                    return [.string(await engine.settleJoin(InterfaceID(name)).wireWord)]
                },
                M.listRememberedSignIns: { [self] call in
                    try await authorizer.require(.readScanList, for: call)
                    return [.varDicts(await engine.rememberedSignIns().map { r in
                        ["ssid": .bytes(r.ssid.bytes), "host": .string(UntrustedText.forLog(r.host)),
                         "fields": .strings(r.fields.map { UntrustedText.forLog($0) }), "saved": .uint64(r.saved)]
                    })]
                },
                M.checkPermission: { [self] call in
                    let name = call.body[0].string ?? ""
                    guard let action = HotspotContract.Action(named: name) else {
                        throw HotspotError(.invalidArgs, "unknown action '\(name)' (expected: \(HotspotContract.Action.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    return [.string(try await authorizer.check(action, sender: call.sender).rawValue)]
                },
            ],
            getters: Dictionary(uniqueKeysWithValues: ManagerProperty.allCases.map { property in
                (property.spec, { [self] in await value(property) } as DBusProperty.Getter)
            }))
    }

    /// A manager property, encoded in one place for `Get` and for announcements: one case for
    /// each of the contract's rows (``HotspotContract/ManagerProperty``) and no `default`, so a
    /// property declared without its encoding does not compile.
    func value(_ property: ManagerProperty) async -> DBusValue {
        switch property {
        case .interfaces: return interfacePaths()
        case .helpers:
            return .varDicts(await engine.helperList().map { h in
                ["identifier": .string(h.identifier), "display-name": .string(h.displayName), "purpose": .string(h.purpose),
                 "state": .string(h.responsive ? "responsive" : "unresponsive"), "commands-via": .string(h.route.rawValue)]
            })
        case .version: return .string(Self.version)
        case .status: return .string(Self.wire(await engine.status))
        case .probePolicy:
            return .string(await engine.monitor?.policy.explanation ?? "no probes: connectivity checks are off ([connectivity] enabled=false)")
        }
    }

    private func interfacePaths() -> DBusValue {
        .objectPaths(exported.withLock { $0 }.sorted().map(HotspotContract.interfacePath))
    }

    // MARK: - Interfaces

    private func interfaceTable(_ number: Int) -> DBusInterface {
        @Sendable func record() async throws -> InterfaceRecord {
            guard let r = await engine.record(number: number) else {
                throw HotspotError(.noSuchNetwork, "the interface at \(HotspotContract.interfacePath(number)) is gone")
            }
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
                I.signIn: { [self] call in
                    // polkit first; then the values are checked and the form sent by the engine,
                    // off the bus thread (a task of the pool, the engine free meanwhile).
                    try await authorizer.require(.signIn, for: call)
                    let request = try Self.decodeSignIn(values: call.body[0].varDict, options: call.body[1].varDict)
                    let (result, message) = try await engine.signIn(try await record().name, request)
                    return [.string(result), .string(message)]
                },
                I.checkConnectivity: { [self] call in
                    // Each round goes out on the Wi-Fi link: authorized as NetworkManager's own
                    // CheckConnectivity is (network-control), and coalesced.
                    try await authorizer.require(.control, for: call)
                    let r = try await record()
                    let caller = (try? await bus.credentials(of: call.sender))?.uid.map { "uid \($0)" } ?? call.sender
                    switch await connectivityChecks.check(interface: r.name.rawValue, caller: caller, round: { [engine] in
                        await engine.checkConnectivity(r.name)
                    }) {
                    case .probed(let answer), .shared(let answer):
                        return [Self.encode(answer)]
                    case .recent(var answer, let age):
                        // The published values as they are now, the reason of the last round.
                        let now = try await record()
                        answer.connectivity = now.connectivity
                        answer.portalURL = now.portalURL
                        answer.sessionExpires = now.sessionExpires
                        answer.reason += "; from the check \(age.components.seconds) s ago (a caller gets at most "
                            + "one check of an interface every \(Self.connectivityCheckInterval.components.seconds) s)"
                        return [Self.encode(answer)]
                    }
                },
            ],
            getters: Dictionary(uniqueKeysWithValues: InterfaceProperty.allCases.map { property in
                (property.spec, { [self] in await value(property, of: try await record()) } as DBusProperty.Getter)
            }))
    }

    /// `SignIn`'s arguments: strings for text-like fields and selects, booleans for checkboxes
    /// (an unticked one is left out); `remember` (default true) and `allow-plain-http` (default
    /// false). A value never appears in an error.
    static func decodeSignIn(values: [String: DBusValue]?, options: [String: DBusValue]?) throws -> SignInRequest {
        guard let values, let options else { throw HotspotError(.invalidArgs, "SignIn takes two dictionaries (a{sv}): values and options") }
        var out: [String: String] = [:]
        for (name, value) in values {
            switch value.unwrapped {
            case .string(let s):
                guard s.utf8.count <= 4096 else { throw HotspotError(.invalidArgs, "the value for '\(UntrustedText.forLog(name, limit: 64))' is longer than 4096 bytes") }
                out[name] = s
            case .bool(let ticked):
                if ticked { out[name] = "on" }
            default:
                throw HotspotError(.invalidArgs, "the value for '\(UntrustedText.forLog(name, limit: 64))' must be a string (s), or a boolean (b) for a checkbox")
            }
        }
        var request = SignInRequest(values: out, remember: true, allowPlainHTTP: false)
        for (key, value) in options {
            guard let b = value.unwrapped.bool else { throw HotspotError(.invalidArgs, "the option '\(UntrustedText.forLog(key, limit: 64))' must be a boolean (b)") }
            switch key {
            case "remember": request.remember = b
            case "allow-plain-http": request.allowPlainHTTP = b
            default: throw HotspotError(.invalidArgs, "unknown option '\(UntrustedText.forLog(key, limit: 64))' (expected remember, allow-plain-http)")
            }
        }
        return request
    }

    /// `SignInForm`'s dictionary (empty when no form waits).
    static func encode(_ form: SignInFormDescription?) -> DBusValue {
        guard let form else { return .varDict([:]) }
        let fields: [[String: DBusValue]] = form.fields.map { f in
            var d: [String: DBusValue] = ["name": .string(f.name), "kind": .string(f.kind), "label": .string(f.label),
                                          "required": .bool(f.required), "value": .string(f.kind == "password" ? "" : f.value)]
            if f.kind == "select" {
                d["options"] = .array(element: .structure([.string, .string]), f.options.map { .structure([.string($0.value), .string($0.label)]) })
            }
            if f.kind == "checkbox" {
                d["terms"] = .string(f.terms)
                d["terms-url"] = .string(f.termsURL)
            }
            return d
        }
        return .varDict(["kind": .string(form.kind.rawValue), "reason": .string(form.reason), "portal-url": .string(form.portalURL),
                         "action-host": .string(form.actionHost), "action-scheme": .string(form.actionScheme),
                         "plain-http": .bool(form.plainHTTP), "fields": .varDicts(fields), "message": .string(form.message),
                         "remembered": .bool(form.remembered)])
    }

    static func encode(_ answer: ConnectivityAnswer) -> DBusValue {
        .varDict(["connectivity": .string(Self.wire(answer.connectivity)), "portal-url": .string(answer.portalURL),
                  "session-expires": .uint64(answer.sessionExpires), "reason": .string(answer.reason)])
    }

    /// `Connectivity`'s words.
    static func wire(_ connectivity: LinkConnectivity) -> String {
        switch connectivity {
        case .unknown: return "unknown"
        case .none: return "none"
        case .portal: return "portal"
        case .limited: return "limited"
        case .full: return "full"
        }
    }

    /// `Status`'s words: "connected-via-wifi", "connected-via-ethernet-without-internet"….
    static func wire(_ status: ManagerStatus.Value) -> String {
        switch status {
        case .determining: return "determining"
        case .notConnected: return "not-connected"
        case .connected: return "connected"
        case .connectedVia(let medium, let internet): return "connected-via-\(medium.rawValue)\(internet ? "" : "-without-internet")"
        }
    }

    /// An interface object's property, encoded in one place for `Get` and for announcements: one
    /// case for each of the contract's rows (``HotspotContract/InterfaceProperty``) and no
    /// `default`, so a property declared without its encoding does not compile.
    func value(_ property: InterfaceProperty, of r: InterfaceRecord) async -> DBusValue {
        switch property {
        case .name: return .string(r.name.rawValue)
        case .device: return .objectPath(await devicePath(r.name) ?? "/")
        case .state: return .string((r.status?.state ?? .inactive).rawValue)
        case .network: return Self.networkValue(r.status?.network)
        case .helper: return .string(r.status?.chosenHelperDisplayName ?? "")
        case .connectivity: return .string(Self.wire(r.connectivity))
        case .portalUrl: return .string(r.portalURL)
        case .venueInfoUrl: return .string(r.venueInfoURL)
        case .sessionExpires: return .uint64(r.sessionExpires)
        case .reason: return .string(r.reason.wireText)
        case .signInForm: return Self.encode(r.signInForm)
        }
    }

    /// The `Network` property, readable by every uid and announced to all: without the SSID and
    /// BSSID (location data, given by GetNetwork behind read-scan-list).
    static func networkValue(_ network: Network?) -> DBusValue {
        guard let network else { return .varDict([:]) }
        return WireNetwork.encodePublic(network)
    }
}
