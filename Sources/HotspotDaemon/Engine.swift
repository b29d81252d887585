// SPDX-License-Identifier: Apache-2.0
import Connectivity
import DBus
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Logging

/// What the daemon asks of NetworkManager (implemented by the NetworkManager bridge; tests may
/// substitute their own).
public protocol NetworkControl: Sendable {
    func disconnect(interface: InterfaceID) async throws
    func setAutoconnect(_ enabled: Bool, connection: ConnectionID) async throws
}

/// One Wi-Fi interface as the daemon publishes it.
struct InterfaceRecord: Sendable {
    var number: Int
    var name: InterfaceID
    var device: ObjectPath
    var status: InterfaceStatus?
    var scanList: [AnnotatedNetwork] = []
    var connectivity = "unknown"
    var portalURL = ""
    /// The venue's information page (RFC 8908 `venue-info-url`), "" when none.
    var venueInfoURL = ""
    var sessionExpires: UInt64 = 0

    var path: ObjectPath { HotspotContract.interfacePath(number) }
}

/// Where a registered helper receives commands.
struct HelperEndpoint: Sendable {
    enum Route: Sendable {
        /// A helper process: `HandleCommand` on its connection, watched until it leaves the bus.
        case bus(uniqueName: String, path: ObjectPath, watch: Task<Void, Never>)
        /// A built-in helper: called in the daemon, so its answers never cross the bus.
        case inProcess(InProcessHelper)
    }
    var route: Route
    var displayName: String
    var purpose: String?

    /// The helper's connection, for helpers on the bus.
    var uniqueName: String? {
        if case .bus(let name, _, _) = route { return name }
        return nil
    }

    func stopWatching() {
        if case .bus(_, _, let watch) = route { watch.cancel() }
    }
}

/// The daemon's heart: feeds events to the pure core and carries out its effects — commands to
/// helpers over D-Bus, timers, NetworkManager actions, publication on the bus, persistence.
public actor Engine {
    let bus: Connection
    let log: Logger
    let store: StateFile
    /// False when the state file must be left untouched (see ``StateFile/restore()``).
    let persisting: Bool
    var network: (any NetworkControl)?
    var publisher: BusPublisher?
    var monitor: ConnectivityMonitor?
    /// Keeps NetworkManager profiles for the networks helpers supply passwords for.
    var provisioner: ProfileProvisioner?
    /// NetworkManager's primary connection: its type, device and the status NetworkManager's own
    /// connectivity gives; for Wi-Fi the daemon's verdict replaces it.
    private var primary: (type: String?, device: ObjectPath?, fallback: String)?

    private var core: HotspotCoordinator
    private let start = ContinuousClock.now
    private var timers: [TimerID: Task<Void, Never>] = [:]
    private var inflight: [CommandToken: (task: Task<Void, Never>, started: ContinuousClock.Instant, request: CommandRequest)] = [:]
    /// Calls the core has given up on (deadline passed or cancelled) that are still waiting for
    /// their reply until the D-Bus timeout, so a late answer reaches the core as a stray answer:
    /// ignored there, but it proves the helper alive (the unresponsive rule).
    private var lingering: [CommandToken: (task: Task<Void, Never>, request: CommandRequest)] = [:]
    private(set) var helpers: [HelperID: HelperEndpoint] = [:]
    /// The uid that registered each identifier since the daemon started.
    private var identifierOwners: [HelperID: UInt32] = [:]
    private(set) var interfaces: [InterfaceID: InterfaceRecord] = [:]
    private var nextInterfaceNumber = 0
    private var numbers: [InterfaceID: Int] = [:]
    private(set) var status = "determining"

    public init(bus: Connection, configuration: DaemonConfiguration, log: Logger) {
        self.bus = bus
        self.log = log
        let store = StateFile(directory: configuration.stateDirectory)
        self.store = store
        let restored = store.restore()
        for note in restored.notes { log.error("\(note)") }
        self.persisting = restored.persisting
        self.core = HotspotCoordinator(configuration: configuration.core, restoring: restored.state)
    }

    func attach(publisher: BusPublisher, network: (any NetworkControl)?) {
        self.publisher = publisher
        self.network = network
    }

    func attach(monitor: ConnectivityMonitor) { self.monitor = monitor }

    func attach(provisioner: ProfileProvisioner) { self.provisioner = provisioner }

    var now: Instant { Instant(sinceEpoch: ContinuousClock.now - start) }

    // MARK: - Events in

    /// Feeds one event to the core and carries out the effects; returns them for callers that
    /// need to see a refusal.
    @discardableResult
    func handle(_ event: HotspotEvent) async -> [HotspotEffect] {
        let effects = core.handle(event, now: now)
        // The state is saved before anything else is carried out, so no helper hears a command
        // (authenticate, say) whose cause a crash right after could still lose.
        for effect in effects { if case .persist = effect { await execute(effect) } }
        for effect in effects { if case .persist = effect {} else { await execute(effect) } }
        return effects
    }

    /// A Wi-Fi device appeared (or NetworkManager was rebuilt).
    func interfaceAppeared(_ name: InterfaceID, device: ObjectPath) async {
        if interfaces[name] != nil { interfaces[name]?.device = device; return }
        let number = numbers[name] ?? { nextInterfaceNumber += 1; numbers[name] = nextInterfaceNumber; return nextInterfaceNumber }()
        interfaces[name] = InterfaceRecord(number: number, name: name, device: device)
        await publisher?.interfaceAdded(interfaces[name]!)
        log.info("interface \(name) appeared (\(device))")
    }

    /// A Wi-Fi device went away.
    func interfaceVanished(_ name: InterfaceID) async {
        guard let record = interfaces.removeValue(forKey: name) else { return }
        await monitor?.left(name.rawValue)
        await handle(.interfaceRemoved(name))
        await publisher?.interfaceRemoved(record)
        log.info("interface \(name) vanished")
    }

    func joined(_ name: InterfaceID, network: Network, connection: ConnectionID) async {
        log.info("\(name) joined \(network.ssid.displayForm) (\(network.bssid)) through connection \(connection)")
        // The first check starts before the helpers are asked, so their verdict requests join it.
        await monitor?.joined(name.rawValue, ssid: network.ssid)
        await handle(.connectivityGained(name, network: network, connection: connection))
    }

    func left(_ name: InterfaceID) async {
        await monitor?.left(name.rawValue)
        await setConnectivity(name, connectivity: "unknown", portalURL: "", venueInfoURL: "", sessionExpires: 0)
        await handle(.connectivityLost(name))
    }

    /// The monitor checked a link: publish `Connectivity` (the hysteresis-smoothed state),
    /// `PortalUrl` and `SessionExpires`, and tell the core when an RFC 8908 session ends.
    func connectivityChecked(_ name: InterfaceID, verdict: ProbeVerdict, published: ProbeVerdict.State) async {
        guard interfaces[name] != nil else { return }
        let connectivity: String
        switch published {
        case .online: connectivity = "full"
        case .portal: connectivity = "portal"
        case .partial: connectivity = "limited"
        case .none: connectivity = "none"
        }
        var expires: UInt64 = 0
        var remaining: Int64?
        if let status = verdict.capport, !status.captive, let seconds = status.secondsRemaining {
            remaining = seconds
            expires = UInt64(max(0, Int64(time(nil)) + seconds))
        }
        let portalURL = verdict.state == .portal ? (verdict.signInURL ?? verdict.capport?.userPortalURL ?? "") : ""
        if interfaces[name]?.connectivity != connectivity || interfaces[name]?.portalURL != portalURL {
            log.info("\(name): connectivity \(connectivity) (\(verdict.state.rawValue): \(UntrustedText.forLog("\(verdict.reason)")), \(verdict.successes)/\(verdict.total) probes)\(portalURL.isEmpty ? "" : ", portal \(UntrustedText.forLog(portalURL))")")
        }
        await setConnectivity(name, connectivity: connectivity, portalURL: portalURL, venueInfoURL: verdict.capport?.venueInfoURL ?? "",
                              sessionExpires: expires)
        if let remaining {
            log.debug("\(name): the RFC 8908 session ends in \(remaining) s")
            await handle(.sessionExpiryLearned(name, at: now + .seconds(remaining)))
        }
        await recomputeStatus()
    }

    /// CheckConnectivity(): a fresh check, then the published values and the verdict's reason.
    func checkConnectivity(_ name: InterfaceID) async -> [String: DBusValue] {
        var reason = "not associated with a network"
        if let monitor, interfaces[name]?.status?.network != nil {
            let v = await monitor.verdict(for: name.rawValue, fresh: true)
            reason = "\(v.state.rawValue): \(v.reason) (\(v.successes) of \(v.total) probes)"
        } else if monitor == nil {
            reason = "connectivity checks are off ([connectivity] enabled=false)"
        }
        let r = interfaces[name]
        return ["connectivity": .string(r?.connectivity ?? "unknown"), "portal-url": .string(r?.portalURL ?? ""),
                "session-expires": .uint64(r?.sessionExpires ?? 0), "reason": .string(reason)]
    }

    /// NetworkManager's primary connection changed; `fallback` is the status from its own view.
    func primaryChanged(type: String?, device: ObjectPath?, fallback: String) async {
        primary = (type, device, fallback)
        await recomputeStatus()
    }

    private func recomputeStatus() async {
        guard let primary else { return }
        if primary.type == "802-11-wireless", let device = primary.device,
            let record = interfaces.values.first(where: { $0.device == device }), record.connectivity != "unknown"
        {
            await setStatus(record.connectivity == "full" ? "connected-via-wifi" : "connected-via-wifi-without-internet")
        } else {
            await setStatus(primary.fallback)
        }
    }

    func scanListChanged(_ name: InterfaceID, _ networks: [Network]) async {
        log.debug("\(name): scan list of \(networks.count) networks")
        await handle(.scanListChanged(name, networks))
    }

    /// NetworkManager left the bus: every interface is gone until it comes back.
    func networkManagerReset() async {
        for name in interfaces.keys.sorted() { await interfaceVanished(name) }
    }

    func setStatus(_ value: String) async {
        guard value != status else { return }
        status = value
        await publisher?.managerChanged(["Status": .string(value)])
    }

    func setConnectivity(_ name: InterfaceID, connectivity: String, portalURL: String, venueInfoURL: String, sessionExpires: UInt64) async {
        guard var r = interfaces[name] else { return }
        var changed: [String: DBusValue] = [:]
        if r.connectivity != connectivity { r.connectivity = connectivity; changed["Connectivity"] = .string(connectivity) }
        if r.portalURL != portalURL { r.portalURL = portalURL; changed["PortalUrl"] = .string(portalURL) }
        if r.venueInfoURL != venueInfoURL { r.venueInfoURL = venueInfoURL; changed["VenueInfoUrl"] = .string(venueInfoURL) }
        if r.sessionExpires != sessionExpires { r.sessionExpires = sessionExpires; changed["SessionExpires"] = .uint64(sessionExpires) }
        interfaces[name] = r
        if !changed.isEmpty { await publisher?.interfaceChanged(r, changed) }
    }

    // MARK: - Requests from the bus (already authorised)

    /// Checks RegisterHelper's options before polkit is asked, so the dialog can show them.
    func validateRegistration(_ options: [String: DBusValue], uid: UInt32?) throws -> HelperRegistrationRequest {
        try HelperRegistrationRequest(options: options, uid: uid)
    }

    func register(sender: String, path: ObjectPath, _ request: HelperRegistrationRequest) async throws {
        let display = request.displayName, commands = request.commands, identifier = request.identifier.rawValue
        // An identifier stays with the user who first registered it (issue 14 item 5): another
        // user cannot take over a helper's cache entries and passwords by reusing its name.
        if let owner = identifierOwners[request.identifier], request.uid != 0, request.uid != owner {
            throw HotspotError(.notAllowed, "the identifier '\(UntrustedText.forLog(identifier))' belongs to a helper of another user (uid \(owner)); "
                               + "only that user or root may register it. Choose another Identifier")
        }
        for (id, h) in helpers where h.uniqueName == sender {
            throw HotspotError(.alreadyRegistered, "this connection is already registered as helper '\(id)'; call UnregisterHelper first")
        }
        let id = request.identifier
        if helpers[id] != nil {
            throw HotspotError(.alreadyRegistered, "a helper with identifier '\(identifier)' is already registered by another process")
        }
        // Watch the caller first: if it vanishes right after registering, we still notice.
        let rule = MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             member: "NameOwnerChanged", arguments: [0: sender])
        let changes = try await bus.signals(matching: rule)
        let watch = Task { [weak self] in
            for await signal in changes where signal.body.count == 3 && signal.body[2].string == "" {
                await self?.helperVanished(id, uniqueName: sender)
                return
            }
        }
        guard try await bus.nameOwner(BusName(sender)) != nil else {
            watch.cancel()
            throw HotspotError(.invalidArgs, "the caller left the bus while registering")
        }
        // Checked again after the awaits above: another registration may have run meanwhile.
        guard helpers[id] == nil, !helpers.values.contains(where: { $0.uniqueName == sender }) else {
            watch.cancel()
            throw HotspotError(.alreadyRegistered, "a helper with identifier '\(identifier)' or from this connection registered meanwhile")
        }
        let endpoint = HelperEndpoint(route: .bus(uniqueName: sender, path: path, watch: watch), displayName: display, purpose: request.purpose)
        try await admit(id, endpoint, commands: commands)
        if let uid = request.uid, identifierOwners[id] == nil || uid != 0 { identifierOwners[id] = uid }
        log.info("helper '\(UntrustedText.forLog(display))' (\(UntrustedText.forLog(id.rawValue))) registered from \(sender) at \(path)")
        await publishHelpers()
    }

    /// Registers a built-in helper, called in the daemon rather than over the bus (issue 13
    /// item 5): what it answers, a profile's password included, leaves the daemon only through
    /// NetworkManager's secret-agent call.
    func register(inProcess helper: InProcessHelper) async throws {
        let id = HelperID(helper.identifier)
        guard helpers[id] == nil else {
            throw HotspotError(.alreadyRegistered, "the built-in helper '\(id)' is already registered")
        }
        let commands = helper.options.commands ?? Set(CommandType.allCases)
        let endpoint = HelperEndpoint(route: .inProcess(helper), displayName: helper.options.displayName, purpose: helper.options.purpose)
        try await admit(id, endpoint, commands: commands)
        identifierOwners[id] = 0
        log.info("built-in helper '\(helper.options.displayName)' (\(id.rawValue)) registered in the daemon")
        await publishHelpers()
    }

    /// Records the endpoint, then tells the core (which may send commands at once, so the
    /// endpoint must be known first); undone when the core declines.
    private func admit(_ id: HelperID, _ endpoint: HelperEndpoint, commands: Set<CommandType>) async throws {
        helpers[id] = endpoint
        let effects = await handle(.helperRegistered(HelperRegistration(identifier: id, displayName: endpoint.displayName, commands: commands)))
        for case .requestDeclined(.registration(_, let reason)) in effects {
            endpoint.stopWatching()
            helpers[id] = nil
            throw HotspotError(.alreadyRegistered, reason)
        }
    }

    func unregister(sender: String) async throws {
        guard let (id, h) = helpers.first(where: { $0.value.uniqueName == sender }) else {
            throw HotspotError(.notRegistered, "this connection is not registered as a helper")
        }
        h.stopWatching()
        helpers[id] = nil
        log.info("helper \(UntrustedText.forLog(id.rawValue)) unregistered")
        await handle(.helperUnregistered(id))
        await provisioner?.helperDeparted(id)
        await publishHelpers()
    }

    private func helperVanished(_ id: HelperID, uniqueName: String) async {
        guard let h = helpers[id], h.uniqueName == uniqueName else { return }
        helpers[id] = nil
        log.warning("helper \(UntrustedText.forLog(id.rawValue)) left the bus; its pending commands fail now")
        for (token, f) in inflight where f.request.helper == id {
            f.task.cancel()
            inflight[token] = nil
            await completed(f.request, result: "helper-left", seconds: seconds(since: f.started))
        }
        for (token, l) in lingering where l.request.helper == id {
            l.task.cancel()
            lingering[token] = nil
        }
        await handle(.helperLeft(id))
        await provisioner?.helperDeparted(id)
        await publishHelpers()
    }

    /// The unique name of a registered helper's connection, if `sender` is one.
    func helperID(of sender: String) -> HelperID? {
        helpers.first(where: { $0.value.uniqueName == sender })?.key
    }

    func logoff(_ name: InterfaceID, by requester: LogoffRequester) async throws {
        let effects = await handle(.logoffRequested(name, by: requester))
        for case .requestDeclined(.logoff(_, let reason)) in effects { throw HotspotError(.notAllowed, reason) }
    }

    func presentUI(_ name: InterfaceID) async throws {
        let effects = await handle(.presentUIRequested(name))
        for case .requestDeclined(.presentUI(_, let reason)) in effects { throw HotspotError(.notAllowed, reason) }
    }

    func forget(_ ssid: SSID) async {
        log.info("forgetting network \(ssid.displayForm)")
        await handle(.forgetNetwork(ssid))
        await provisioner?.forgot(ssid)
    }

    func password(for ssid: SSID) -> Password? {
        for name in interfaces.keys.sorted() {
            if let p = core.password(for: ssid, on: name) { return p }
        }
        return nil
    }

    func record(at path: ObjectPath) -> InterfaceRecord? { interfaces.values.first { $0.path == path } }

    func helperList() -> [[String: DBusValue]] {
        core.helpers.map { h in
            ["identifier": .string(h.identifier.rawValue), "display-name": .string(h.displayName),
             "purpose": .string(helpers[h.identifier]?.purpose ?? ""),
             "state": .string(core.isUnresponsive(h.identifier) ? "unresponsive" : "responsive")]
        }
    }

    private func publishHelpers() async {
        await publisher?.managerChanged(["Helpers": .varDicts(helperList())])
    }

    // MARK: - Effects out

    private func execute(_ effect: HotspotEffect) async {
        switch effect {
        case .sendCommand(let request):
            send(request)
        case .cancelCommand(let token):
            if let f = inflight.removeValue(forKey: token) {
                // A call with a deadline keeps listening until its D-Bus timeout (deadline + 2 s);
                // present-ui has none, so its call ends now.
                if f.request.deadline != nil { lingering[token] = (f.task, f.request) } else { f.task.cancel() }
                await completed(f.request, result: "cancelled", seconds: seconds(since: f.started))
            }
        case .disconnect(let name):
            log.info("disconnecting \(name)")
            guard let network else { return }
            Task { [log] in
                do { try await network.disconnect(interface: name) } catch { log.error("could not disconnect \(name): \(error)") }
            }
        case .disableAutoconnect(let connection), .enableAutoconnect(let connection):
            let enable: Bool
            if case .enableAutoconnect = effect { enable = true } else { enable = false }
            log.info("\(enable ? "restoring" : "switching off") autoconnect for connection \(connection)")
            guard let network else { return }
            Task { [log] in
                do { try await network.setAutoconnect(enable, connection: connection) } catch {
                    log.error("could not set autoconnect=\(enable) on \(connection): \(error)")
                }
            }
        case .armTimer(let id, let at):
            timers[id]?.cancel()
            let deadline = start + at.sinceEpoch
            timers[id] = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled else { return }
                await self?.timerFired(id)
            }
        case .cancelTimer(let id):
            timers.removeValue(forKey: id)?.cancel()
        case .publishState(let s):
            guard var r = interfaces[s.interface] else { return }
            let old = r.status
            r.status = s
            interfaces[s.interface] = r
            if old?.state != s.state { log.info("\(s.interface): \(old?.state.rawValue ?? "inactive") → \(s.state.rawValue)") }
            if old?.state != s.state, s.state == .authenticated, let monitor {
                // Signed in or maintained: look again soon (this also learns a new session end).
                Task { await monitor.recheckSoon(s.interface.rawValue) }
            }
            await publisher?.interfaceStatusChanged(r, old: old)
        case .publishScanList(let name, let list):
            interfaces[name]?.scanList = list
        case .uiRequired(let request):
            guard let r = interfaces[request.interface] else { return }
            log.info("\(request.interface): helper '\(UntrustedText.forLog(request.helperDisplayName))' needs the user for \(request.network.ssid.displayForm)")
            await publisher?.uiRequired(r, displayName: request.helperDisplayName, network: request.network)
        case .persist(let state):
            guard persisting else { return }
            do { try store.saveState(state) } catch {
                log.error("could not save the network cache to \(store.path): \(error); it stays in memory and is saved at the next change")
            }
        case .helperProtocolError(let e):
            log.warning("\(UntrustedText.forLog("\(e)", limit: 400))")
        case .answerIgnored(let ignored):
            log.debug("\(UntrustedText.forLog("\(ignored)", limit: 400))")
        case .helperResponsivenessChanged(let id, let responsive):
            log.warning("helper \(UntrustedText.forLog(id.rawValue)) is \(responsive ? "responsive again" : "unresponsive: it keeps missing deadlines, so it now gets a short evaluate deadline")")
            await publishHelpers()
        case .requestDeclined:
            break // returned to the caller through handle()
        }
    }

    /// CommandCompleted, on the interface's path: its number is kept for good, so commands that
    /// end because the interface is going away are reported too.
    private func completed(_ request: CommandRequest, result: String, seconds: Double) async {
        guard let number = numbers[request.interface] else { return }
        await publisher?.commandCompleted(request, path: HotspotContract.interfacePath(number), result: result, seconds: seconds)
    }

    private func timerFired(_ id: TimerID) async {
        guard timers.removeValue(forKey: id) != nil else { return }
        await handle(.timerFired(id))
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private func send(_ request: CommandRequest) {
        log.debug("\(request.interface): sending \(request.command.rawValue) \(request.token) to \(request.helper)")
        guard let endpoint = helpers[request.helper] else {
            // Cannot happen while endpoints are recorded before the core learns of a helper and
            // removed before it hears it left; if it does, the command's deadline ends it.
            log.error("\(request.interface): no endpoint for helper \(request.helper); \(request.command.rawValue) \(request.token) not sent")
            return
        }
        let wire = WireCommand(type: request.command, interface: request.interface.rawValue, network: request.network,
                               isChosenHelper: request.isChosenHelper, networks: request.networks, deadline: request.deadline)
        let started = ContinuousClock.now
        let helperPath: ObjectPath
        let helperName: BusName
        switch endpoint.route {
        case .inProcess(let helper):
            let task = Task { [weak self] in
                let response = await helper.answer(wire)
                // The same checks as an answer from the bus (caps, claims only for networks asked about).
                let outcome: CommandOutcome
                do { outcome = .answered(try WireResponse.decode(response.encode(), answering: wire)) } catch let error as WireError {
                    outcome = .malformed(error.problem)
                } catch {
                    outcome = .malformed("\(error)")
                }
                await self?.commandFinished(request, outcome: outcome)
            }
            inflight[request.token] = (task, started, request)
            return
        case .bus(let uniqueName, let path, _):
            guard let name = try? BusName(uniqueName) else { return }
            helperName = name
            helperPath = path
        }
        // The core's deadline timer decides; the D-Bus timeout only backs it up.
        let timeout = request.deadline.map { $0 + .seconds(2) } ?? .seconds(7 * 24 * 3600)
        let bus = self.bus
        let task = Task { [weak self] in
            let outcome: CommandOutcome
            do {
                let reply = try await bus.call(destination: helperName, path: helperPath, interface: HotspotContract.handlerInterface,
                                               member: "HandleCommand", body: [wire.encode()], timeout: timeout)
                guard reply.count == 1 else { throw WireError("HandleCommand returned \(reply.count) values") }
                outcome = .answered(try WireResponse.decode(reply[0], answering: wire))
            } catch let error as WireError {
                outcome = .malformed(error.problem)
            } catch let error as DBusError {
                switch error {
                case .cancelled: return
                case .timedOut: outcome = .timedOut
                case .remote(let name, _) where name == DBusErrorName.noReply || name == DBusErrorName.serviceUnknown:
                    outcome = .vanished
                case .disconnected: return
                default: outcome = .malformed("the helper answered with an error: \(error)")
                }
            } catch {
                outcome = .malformed("\(error)")
            }
            await self?.commandFinished(request, outcome: outcome)
        }
        inflight[request.token] = (task, started, request)
    }

    enum CommandOutcome: Sendable {
        case answered(WireResponse)
        case malformed(String)
        case timedOut
        case vanished
    }

    private func commandFinished(_ request: CommandRequest, outcome: CommandOutcome) async {
        guard let f = inflight.removeValue(forKey: request.token) else {
            guard lingering.removeValue(forKey: request.token) != nil, case .answered(let response) = outcome else { return }
            log.info("\(request.interface): \(request.command.rawValue) → \(request.helper): \(response.result.rawValue) arrived after the command ended; ignored")
            await handle(.helperAnswered(HelperAnswer(token: request.token, helper: request.helper, result: response.result,
                                                      confidence: response.confidence, claims: response.claims)))
            return
        }
        let secs = seconds(since: f.started)
        switch outcome {
        case .answered(let response):
            await completed(request, result: response.result.rawValue, seconds: secs)
            log.info("\(request.interface): \(request.command.rawValue) → \(request.helper): \(response.result.rawValue)\(response.confidence.map { " (\($0.rawValue))" } ?? "") in \(Int(secs * 1000)) ms")
            await handle(.helperAnswered(HelperAnswer(token: request.token, helper: request.helper, result: response.result,
                                                      confidence: response.confidence, claims: response.claims)))
            // As the core counts them: the claims of a successful answer, none otherwise.
            if request.command == .filterScanList, let provisioner, let helper = core.helpers.first(where: { $0.identifier == request.helper }) {
                await provisioner.helperAnswered(helper, asked: request.networks, claims: response.result == .success ? response.claims : [])
            }
        case .malformed(let problem):
            await completed(request, result: "failure", seconds: secs)
            await handle(.helperAnswerMalformed(request.token, helper: request.helper, problem: problem))
        case .timedOut:
            await completed(request, result: "timed-out", seconds: secs)
            await handle(.helperTimedOut(request.token))
        case .vanished:
            await completed(request, result: "helper-left", seconds: secs)
            if let name = helpers[request.helper]?.uniqueName { await helperVanished(request.helper, uniqueName: name) }
        }
    }
}
