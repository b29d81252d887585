// SPDX-License-Identifier: Apache-2.0
import Connectivity
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
    /// Has NetworkManager check connectivity now; returns its verdict, for the log.
    func recheckConnectivity() async throws -> String
    /// Asks for the join on `interface` to be reported now, before NetworkManager announces it
    /// (its pre-up dispatcher holds the activation). The answer comes in order with
    /// NetworkManager's other events, as ``Engine/joinReportedEarly(token:reported:)``; false
    /// when it cannot be asked (NetworkManager is not being followed).
    func reportJoinEarly(interface: InterfaceID, token: UInt64) async -> Bool
}

/// The daemon's heart: feeds events to the pure core and carries out its effects — commands to
/// helpers (through their ``HelperTransport``), timers, NetworkManager actions, announcements,
/// persistence. It speaks typed domain values only: the bus server encodes what it announces, the
/// NetworkManager adapter turns devices into interface names, and transports carry commands.
public actor Engine {
    let log: Logger
    /// Saves the core's state: at once or behind the engine (``HotspotEffect/persist(_:beforeOtherEffects:)``).
    let stateWriter: StateWriter
    /// False when the state file must be left untouched (see ``StateFile/restore()``).
    let persisting: Bool
    /// The generation of the last state handed to ``stateWriter`` (the core's order).
    private var stateGeneration: UInt64 = 0
    /// NetworkManager's actions (disconnect, autoconnect); nil in tests that need none.
    let network: (any NetworkControl)?
    /// Runs them in order per interface; shutdown waits for them (``NetworkEffects``).
    nonisolated let networkEffects = NetworkEffects()
    /// Probes each joined link; nil when connectivity checks are off.
    let monitor: ConnectivityMonitor?
    /// Keeps NetworkManager profiles for the networks helpers supply passwords for; nil when
    /// provisioning is off.
    let provisioner: ProfileProvisioner?
    /// Hands what the engine asks the bus server to announce to it, in order, without waiting.
    let announcements: @Sendable (Announcement) -> Void
    /// The user's sign-ins (the forms waiting, the remembered ones); nil without built-in helpers.
    let signIns: SignInDesk?
    /// The interfaces on which a `SignIn` is being sent.
    var signInsUnderWay: Set<InterfaceID> = []
    /// NetworkManager's primary connection (nil while NetworkManager is away); ManagerStatus
    /// turns it and the Wi-Fi verdicts into `Status`.
    var primary: ManagerStatus.Primary?

    var core: HotspotCoordinator
    let start = ContinuousClock.now
    /// The core's armed timers, and the one task sleeping until the earliest (``TimerSchedule``).
    var timers = TimerSchedule()
    var sleeper: Task<Void, Never>?
    var sleeperTarget: Instant?
    var inflight: [CommandToken: (task: Task<Void, Never>, started: ContinuousClock.Instant, request: CommandRequest)] = [:]
    /// Calls the core has given up on (deadline passed or cancelled) that are still waiting for
    /// their reply until the D-Bus timeout, so a late answer reaches the core as a stray answer:
    /// ignored there, but it proves the helper alive (the unresponsive rule).
    var lingering: [CommandToken: (task: Task<Void, Never>, request: CommandRequest)] = [:]
    var helpers: [HelperID: HelperEndpoint] = [:]
    /// Who may register a helper (the core's rules), and the uid that registered each identifier.
    var admission = HelperAdmission(builtInDisplayNames: HelperRegistrationRequest.reservedDisplayNames)
    var interfaces: [InterfaceID: InterfaceRecord] = [:]
    /// Interface numbers, and each interface's current link (a join, until it is left), numbered
    /// when the engine learns of it (``LinkNumbering``): the monitor tags its reports with it, and
    /// a report about a link already left (still queued between the monitor and the engine when
    /// the leave was handled) is dropped.
    var numbering = LinkNumbering()
    /// The number of the interface's current link, if it is joined.
    func link(_ name: InterfaceID) -> UInt64? { numbering.link(name) }
    var status = ManagerStatus.Value.determining
    /// The join hold's book (``settleJoin(_:)``): the calls, their bound (`[daemon] join-hold`),
    /// their early reports, the links NetworkManager re-checked.
    var joinHolds: JoinHoldBook
    /// The `SettleJoin` calls waiting for their answer, by number: all the engine keeps of a hold.
    var holdWaiters: [UInt64: CheckedContinuation<JoinHoldOutcome, Never>] = [:]

    /// Dependencies come in here, once: nothing is attached later and nothing points back.
    init(configuration: DaemonConfiguration, log: Logger, network: (any NetworkControl)?,
         monitor: ConnectivityMonitor?, provisioner: ProfileProvisioner?, signIns: SignInDesk? = nil,
         announcements: @escaping @Sendable (Announcement) -> Void) {
        self.log = log
        self.signIns = signIns
        self.network = network
        self.monitor = monitor
        self.provisioner = provisioner
        self.announcements = announcements
        self.joinHolds = JoinHoldBook(bound: configuration.joinHold, canRecheck: network != nil)
        let store = StateFile(directory: configuration.stateDirectory)
        self.stateWriter = StateWriter(store: store, log: log)
        let restored = store.restore()
        for note in restored.notes { log.error("\(note)") }
        self.persisting = restored.persisting
        var core = configuration.core
        // With checks, a network no helper claimed is signed in only once its join has a verdict.
        core.awaitsConnectivityVerdict = monitor != nil
        self.core = HotspotCoordinator(configuration: core, restoring: restored.state)
    }

    func announce(_ announcement: Announcement) { announcements(announcement) }

    var now: Instant { Instant(sinceEpoch: ContinuousClock.now - start) }

    // MARK: - Events in

    /// Feeds one event to the core and carries out the effects; returns them for callers that
    /// need to see a refusal.
    @discardableResult
    func handle(_ event: HotspotEvent) async -> [HotspotEffect] {
        let effects = core.handle(event, now: now)
        // A changed autoconnect ledger is on disk before anything else is carried out, so
        // NetworkManager never hears of an autoconnect change that a crash right after could make
        // the daemon forget; that save holds the engine (and the executor's worker running it) for
        // its fsync, which is rare (a failed sign-in, a forgotten network); the bus thread is not
        // held. A change to the cache alone is handed to a
        // thread of its own after the other effects, so its fsync is not between a helper's
        // answer and the next command (a crash before it lands costs one evaluation). Each state
        // gets its generation here, before any suspension, so the writer keeps the core's order
        // even when another event's save reaches it first.
        var later: [(PersistentState, UInt64)] = []
        for case .persist(let state, let first) in effects where persisting {
            stateGeneration += 1
            if first { stateWriter.saveNow(state, generation: stateGeneration) } else { later.append((state, stateGeneration)) }
        }
        // Commands leave first, ahead of the bookkeeping the same event brings (timers, the
        // announcements, CommandCompleted): a helper starts on its answer while the rest is done.
        // Nothing else here bears on a command; the rest keep the core's order.
        for case .sendCommand(let request) in effects { send(request) }
        for effect in effects {
            switch effect {
            case .persist, .sendCommand: continue
            default: await execute(effect)
            }
        }
        for (state, generation) in later { stateWriter.saveSoon(state, generation: generation) }
        return effects
    }

    /// A Wi-Fi interface appeared (or NetworkManager was rebuilt). Seen again, its NetworkManager
    /// device may be another one: `Device` is announced.
    func interfaceAppeared(_ name: InterfaceID) async {
        if let r = interfaces[name] {
            announce(.interface(r, [InterfaceProperty.device]))
            return
        }
        let number = numbering.number(for: name)
        interfaces[name] = InterfaceRecord(number: number, name: name)
        announce(.interfaceAdded(number: number))
        log.info("interface \(name) appeared")
    }

    /// A Wi-Fi interface went away.
    func interfaceVanished(_ name: InterfaceID) async {
        guard let record = interfaces.removeValue(forKey: name) else { return }
        numbering.left(name)
        releaseHolds(left: name)
        await monitor?.left(name.rawValue)
        await handle(.interfaceRemoved(name))
        announce(.interfaceRemoved(number: record.number))
        log.info("interface \(name) vanished")
    }

    /// An interface was renamed. Linux renames only an interface that is down, so nothing is
    /// joined on it: it is the old name leaving and the new one appearing, each with its own
    /// object, as after unplugging and plugging in again.
    func interfaceRenamed(from old: InterfaceID, to new: InterfaceID) async {
        guard old != new else { return }
        log.info("interface \(old) is now called \(new)")
        await interfaceVanished(old)
        await interfaceAppeared(new)
    }

    /// A join, a leave or a scan list of an interface the engine does not follow (NetworkManager
    /// never announced it as Wi-Fi) is ignored.
    func joined(_ name: InterfaceID, network: Network, connection: ConnectionID) async {
        guard interfaces[name] != nil else { return }
        log.info("\(name) joined \(network.ssid.displayForm) (\(network.bssid)) through connection \(connection)")
        // The first check starts before the helpers are asked, so their verdict requests join it.
        let link = numbering.joined(name, ssid: network.ssid)
        await monitor?.joined(name.rawValue, ssid: network.ssid, link: link)
        await handle(.connectivityGained(name, network: network, connection: connection))
    }

    func left(_ name: InterfaceID) async {
        guard interfaces[name] != nil else { return }
        numbering.left(name)  // before any suspension: reports of this link are stale from here on
        releaseHolds(left: name)
        await monitor?.left(name.rawValue)
        await setConnectivity(name, connectivity: .unknown, portalURL: "", venueInfoURL: "", sessionExpires: 0)
        signIns?.forms.clear(name.rawValue)
        await handle(.connectivityLost(name))
        refreshSignInForm(name)
    }

    /// The monitor checked a link: publish `Connectivity` (the hysteresis-smoothed state),
    /// `PortalUrl` and `SessionExpires`, and tell the core (a portal that showed itself, the
    /// join's verdict, when an RFC 8908 session ends). A check of a link that has since been left
    /// (or left and joined again) is dropped.
    func connectivityChecked(_ name: InterfaceID, link: UInt64, verdict: ProbeVerdict, published: ProbeVerdict.State, settled: Bool = true) async {
        guard interfaces[name] != nil, self.link(name) == link else { return }
        // "None" on a join still being checked is no verdict yet: it stays unknown (pending).
        let connectivity = !settled && published == .none ? LinkConnectivity.unknown : LinkConnectivity(published)
        var expires: UInt64 = 0
        var remaining: Int64?
        if let status = verdict.capport, !status.captive, let seconds = status.secondsRemaining {
            remaining = seconds
            expires = UInt64(max(0, Int64(time(nil)) + seconds))
        }
        let portalURL = verdict.state == .portal ? publishable(name, "sign-in", [verdict.signInURL, verdict.capport?.userPortalURL]) : ""
        let venueInfoURL = publishable(name, "venue information", [verdict.capport?.venueInfoURL])
        if interfaces[name]?.connectivity != connectivity || interfaces[name]?.portalURL != portalURL {
            log.info("\(name): connectivity \(connectivity) (\(verdict.state.rawValue): \(UntrustedText.forLog("\(verdict.reason)")), \(verdict.successes)/\(verdict.total) probes)\(portalURL.isEmpty ? "" : ", portal \(UntrustedText.forLog(portalURL))")")
        }
        await setConnectivity(name, connectivity: connectivity, portalURL: portalURL, venueInfoURL: venueInfoURL,
                              sessionExpires: expires)
        if let remaining { log.debug("\(name): the RFC 8908 session ends in \(remaining) s") }
        await handle(.connectivityChecked(name, LinkCheck(portal: connectivity == .portal, settled: settled,
                                                          sessionRemaining: remaining.map { .seconds($0) })))
        await recomputeStatus()
    }

    /// The first of `candidates` that may be published and opened (``SignInURL``: http or https
    /// with a host), "" when none may; each refused one is logged with why. The one place the
    /// daemon takes a sign-in address it learnt from the network (a probe's redirect or page, RFC
    /// 8908, DHCP option 114 or the RA option through the API, WISPr's LoginURL).
    func publishable(_ name: InterfaceID, _ what: String, _ candidates: [String?]) -> String {
        for case let url? in candidates where !url.isEmpty {
            if let refusal = SignInURL.check(url) {
                log.warning("\(name): not publishing the network's \(what) address '\(UntrustedText.forLog(url))': \(refusal)")
                continue
            }
            return url
        }
        return ""
    }

    /// CheckConnectivity(): a fresh check, then the published values and the verdict's reason.
    func checkConnectivity(_ name: InterfaceID) async -> ConnectivityAnswer {
        var reason = "not associated with a network"
        if let monitor, interfaces[name]?.status?.network != nil, let link = link(name) {
            let v = await monitor.verdict(for: name.rawValue, fresh: true)
            // The monitor reports every check through its stream too; this one is applied now, so
            // the values returned below are this check's.
            await connectivityChecked(name, link: link, verdict: v, published: await monitor.published(name.rawValue) ?? v.state,
                                      settled: await monitor.isSettled(name.rawValue))
            reason = "\(v.state.rawValue): \(v.reason) (\(v.successes) of \(v.total) probes)"
        } else if monitor == nil {
            reason = "connectivity checks are off ([connectivity] enabled=false)"
        }
        let r = interfaces[name]
        return ConnectivityAnswer(connectivity: r?.connectivity ?? .unknown, portalURL: r?.portalURL ?? "",
                                  sessionExpires: r?.sessionExpires ?? 0, reason: reason)
    }

    /// NetworkManager's own connectivity check changed: the monitor follows it (ProbePolicy) and
    /// `ProbePolicy` is announced.
    func networkManagerCheckChanged(_ check: NetworkManagerCheck?) async {
        guard let monitor, let next = await monitor.follow(networkManager: check) else { return }
        log.info("connectivity: NetworkManager's check changed; \(next.explanation)")
        announce(.manager([ManagerProperty.probePolicy]))
    }

    /// NetworkManager's primary connection changed, or NetworkManager left (nil).
    func primaryChanged(_ primary: ManagerStatus.Primary?) async {
        let connectivityChanged = self.primary?.connectivity != primary?.connectivity
        self.primary = primary
        // NetworkManager's own check saw something new: a join still without a verdict looks again.
        if connectivityChanged, primary != nil { await monitor?.networkManagerConnectivityChanged() }
        await recomputeStatus()
    }

    func recomputeStatus() async {
        let interfaces = self.interfaces
        let value = ManagerStatus.compute(primary: primary) { interfaces[$0].map { ManagerStatus.Connectivity($0.connectivity) } }
        guard value != status else { return }
        status = value
        announce(.manager([ManagerProperty.status]))
    }

    func scanListChanged(_ name: InterfaceID, _ networks: [Network]) async {
        guard interfaces[name] != nil else { return }
        log.debug("\(name): scan list of \(networks.count) networks")
        await handle(.scanListChanged(name, networks))
    }

    /// NetworkManager left the bus: every interface is gone until it comes back.
    func networkManagerReset() async {
        for name in interfaces.keys.sorted() { await interfaceVanished(name) }
    }

    func setConnectivity(_ name: InterfaceID, connectivity: LinkConnectivity, portalURL: String, venueInfoURL: String, sessionExpires: UInt64) async {
        guard var r = interfaces[name] else { return }
        var changed: [InterfaceProperty] = []
        if r.connectivity != connectivity { r.connectivity = connectivity; changed.append(InterfaceProperty.connectivity) }
        if r.portalURL != portalURL { r.portalURL = portalURL; changed.append(InterfaceProperty.portalUrl) }
        if r.venueInfoURL != venueInfoURL { r.venueInfoURL = venueInfoURL; changed.append(InterfaceProperty.venueInfoUrl) }
        if r.sessionExpires != sessionExpires { r.sessionExpires = sessionExpires; changed.append(InterfaceProperty.sessionExpires) }
        interfaces[name] = r
        if !changed.isEmpty { announce(.interface(r, changed)) }
    }

    /// Publishes why the joined network is as it is (`Reason`).
    func setReason(_ name: InterfaceID, _ reason: InterfaceReason) {
        guard var r = interfaces[name], r.reason != reason else { return }
        r.reason = reason
        interfaces[name] = r
        announce(.interface(r, [InterfaceProperty.reason]))
    }

    // MARK: - Requests from the bus (already authorised)

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
        if signIns?.remembered.forget(ssid) == true { log.info("forgot the sign-in remembered for \(ssid.displayForm)") }
    }

    func password(for ssid: SSID) -> Password? {
        for name in interfaces.keys.sorted() {
            if let p = core.password(for: ssid, on: name) { return p }
        }
        return nil
    }

    /// The interface with object number `number`, if it is there.
    func record(number: Int) -> InterfaceRecord? { interfaces.values.first { $0.number == number } }
}
