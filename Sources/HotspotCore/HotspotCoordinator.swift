// SPDX-License-Identifier: Apache-2.0
/// The whole core: one ``InterfaceMachine`` per Wi-Fi interface, the registered helpers and their
/// health, the network cache and the autoconnect ledger.
///
/// The daemon owns one coordinator, feeds it every ``HotspotEvent`` with the ``Instant`` it
/// happened at, and executes the ``HotspotEffect``s it returns, in order. The coordinator does no
/// I/O and reads no clock, so the same sequence of events always yields the same effects.
public struct HotspotCoordinator: Sendable {
    private var context: CoreContext
    private var machines: [InterfaceID: InterfaceMachine] = [:]
    /// What the core last published of each interface, and the rules that follow from it.
    private var afterSignIn = AfterSignIn()

    /// Creates a coordinator with a configuration and the state loaded from the store.
    public init(configuration: HotspotConfiguration = HotspotConfiguration(), restoring state: PersistentState = PersistentState()) {
        self.context = CoreContext(configuration: configuration, persistent: state)
    }

    /// The configuration in use.
    public var configuration: HotspotConfiguration { context.configuration }

    /// The state to persist (the same value the latest ``HotspotEffect/persist(_:beforeOtherEffects:)`` carried).
    public var persistentState: PersistentState { context.persistent }

    /// The registered helpers, in registration order.
    public var helpers: [RegisteredHelper] { context.registry.inRegistrationOrder }

    /// The interfaces the core knows, by name.
    public var interfaces: [InterfaceID] { machines.keys.sorted() }

    /// One interface's machine, for its read-only state.
    public func machine(for interface: InterfaceID) -> InterfaceMachine? {
        machines[interface]
    }

    /// One interface's status, as published.
    public func status(of interface: InterfaceID) -> InterfaceStatus? {
        machines[interface]?.status(in: context)
    }

    /// Whether a helper is currently marked unresponsive.
    public func isUnresponsive(_ helper: HelperID) -> Bool {
        context.health.isUnresponsive(helper)
    }

    /// The password helpers supplied for an SSID on an interface, for the secret agent.
    public func password(for ssid: SSID, on interface: InterfaceID) -> Password? {
        machines[interface]?.password(for: ssid, context: context)
    }

    /// Handles one event and returns the effects to execute, in order.
    public mutating func handle(_ event: HotspotEvent, now: Instant) -> [HotspotEffect] {
        var effects: [HotspotEffect] = []
        switch event {
        case .connectivityGained(let interface, let network, let connection):
            // The last network's reason stays until the next join, so a failure can be read after
            // the disconnect.
            effects.append(.setReason(interface, .none))
            withMachine(interface, creating: true) { machine, context in
                machine.connectivityGained(network, connection: connection, now: now, context: &context, effects: &effects)
            }
        case .connectivityLost(let interface):
            afterSignIn.left(interface)
            withMachine(interface, creating: false) { machine, context in
                machine.connectivityLost(context: &context, effects: &effects)
            }
        case .interfaceRemoved(let interface):
            withMachine(interface, creating: false) { machine, context in
                machine.remove(context: &context, effects: &effects)
            }
            machines[interface] = nil
            afterSignIn.removed(interface)
        case .helperRegistered(let registration):
            register(registration, now: now, effects: &effects)
        case .helperUnregistered(let helper), .helperLeft(let helper):
            depart(helper, now: now, effects: &effects)
        case .helperAnswered(let answer):
            deliver(answer, problem: nil, now: now, effects: &effects)
        case .helperAnswerMalformed(let token, let helper, let problem):
            deliver(HelperAnswer(token: token, helper: helper, result: .failure), problem: problem, now: now, effects: &effects)
        case .helperTimedOut(let token):
            guard let route = context.commands.route(of: token) else { break }
            withMachine(route.interface, creating: false) { machine, context in
                machine.commandTimedOut(token, timerFired: false, now: now, context: &context, effects: &effects)
            }
        case .timerFired(let timer):
            withMachine(timer.interface, creating: false) { machine, context in
                machine.timerFired(timer, now: now, context: &context, effects: &effects)
            }
        case .logoffRequested(let interface, let requester):
            if machines[interface] == nil {
                effects.append(.requestDeclined(.logoff(interface, reason: "unknown interface \(interface)")))
            }
            withMachine(interface, creating: false) { machine, context in
                machine.logoffRequested(by: requester, now: now, context: &context, effects: &effects)
            }
        case .presentUIRequested(let interface):
            if machines[interface] == nil {
                effects.append(.requestDeclined(.presentUI(interface, reason: "unknown interface \(interface)")))
            }
            withMachine(interface, creating: false) { machine, context in
                machine.presentUIRequested(now: now, context: &context, effects: &effects)
            }
        case .scanListChanged(let interface, let networks):
            withMachine(interface, creating: true) { machine, context in
                machine.scanListChanged(networks, now: now, context: &context, effects: &effects)
            }
        case .forgetNetwork(let ssid):
            forget(ssid, effects: &effects)
        case .sessionExpiryLearned(let interface, let expiry):
            withMachine(interface, creating: false) { machine, context in
                machine.sessionExpiryLearned(expiry, now: now, context: &context, effects: &effects)
            }
        case .portalDetected(let interface):
            withMachine(interface, creating: false) { machine, context in
                machine.portalDetected(now: now, context: &context, effects: &effects)
            }
        case .connectivitySettled(let interface):
            withMachine(interface, creating: false) { machine, context in
                machine.connectivitySettled(now: now, context: &context, effects: &effects)
            }
        case .connectivityChecked(let interface, let check):
            let portalDetected = afterSignIn.portalEdge(interface, isPortal: check.portal)
            withMachine(interface, creating: false) { machine, context in
                if portalDetected { machine.portalDetected(now: now, context: &context, effects: &effects) }
                if check.settled { machine.connectivitySettled(now: now, context: &context, effects: &effects) }
                if let remaining = check.sessionRemaining {
                    machine.sessionExpiryLearned(now + remaining, now: now, context: &context, effects: &effects)
                }
            }
        case .networkActionFailed(let interface, let action, let reason):
            guard machines[interface] != nil else { break }
            switch action {
            case .disconnect:
                effects.append(.explain(interface, "NetworkManager did not disconnect \(interface) (\(reason)); it may still be joined"))
            case .setAutoconnect(let enabled, let connection):
                effects.append(.explain(interface, "NetworkManager did not switch autoconnect \(enabled ? "back on" : "off") for connection \(connection) (\(reason))"))
            }
        }
        effects = afterSignIn.follow(effects)
        if context.persistentStateChanged {
            effects.append(.persist(context.persistent, beforeOtherEffects: context.autoconnectLedgerChanged))
            context.persistentStateChanged = false
            context.autoconnectLedgerChanged = false
        }
        return effects
    }

    private mutating func withMachine(
        _ interface: InterfaceID, creating: Bool,
        _ body: (inout InterfaceMachine, inout CoreContext) -> Void
    ) {
        // Moved out of the table (not copied and then removed: a copy retains every field of the
        // machine, and this runs for every event).
        guard var machine = machines.removeValue(forKey: interface) ?? (creating ? InterfaceMachine(interface: interface) : nil) else { return }
        body(&machine, &context)
        machines[interface] = machine
    }

    private mutating func forEachMachine(_ body: (inout InterfaceMachine, inout CoreContext) -> Void) {
        for interface in machines.keys.sorted() {
            withMachine(interface, creating: false, body)
        }
    }

    private mutating func register(_ registration: HelperRegistration, now: Instant, effects: inout [HotspotEffect]) {
        let id = registration.identifier
        guard !id.rawValue.isEmpty, !registration.displayName.isEmpty else {
            effects.append(.requestDeclined(.registration(id, reason: "a helper needs a non-empty identifier and display name")))
            return
        }
        guard let helper = context.registry.register(registration) else {
            effects.append(.requestDeclined(.registration(id, reason: "a helper with identifier \(id) is already registered")))
            return
        }
        context.health.forget(id)
        forEachMachine { machine, context in
            machine.helperRegistered(helper, now: now, context: &context, effects: &effects)
        }
    }

    private mutating func depart(_ helper: HelperID, now: Instant, effects: inout [HotspotEffect]) {
        guard context.registry.remove(helper) != nil else { return }
        context.health.forget(helper)
        forEachMachine { machine, context in
            machine.helperDeparted(helper, now: now, context: &context, effects: &effects)
        }
    }

    private mutating func deliver(_ answer: HelperAnswer, problem: String?, now: Instant, effects: inout [HotspotEffect]) {
        guard context.registry[answer.helper] != nil else {
            effects.append(.answerIgnored(IgnoredAnswer(helper: answer.helper, token: answer.token, reason: .fromDepartedHelper)))
            return
        }
        // Any answer, even a late one, shows the helper is alive again.
        context.recordAnswer(from: answer.helper, into: &effects)
        guard let route = context.commands.route(of: answer.token) else {
            let reason = context.commands.completion(of: answer.token)?.ignoredReason ?? .unknownCommand
            effects.append(.answerIgnored(IgnoredAnswer(helper: answer.helper, token: answer.token, reason: reason)))
            return
        }
        guard route.helper == answer.helper else {
            effects.append(.answerIgnored(IgnoredAnswer(helper: answer.helper, token: answer.token, reason: .notAddressedToHelper)))
            return
        }
        if problem == nil, AfterSignIn.reasonGiving.contains(route.command) {
            effects.append(.setReason(route.interface, InterfaceReason(helperSaid: answer.reason)))
        }
        withMachine(route.interface, creating: false) { machine, context in
            machine.answerReceived(answer, problem: problem, now: now, context: &context, effects: &effects)
        }
    }

    private mutating func forget(_ ssid: SSID, effects: inout [HotspotEffect]) {
        if context.persistent.cache.forget(ssid) { context.persistentStateChanged = true }
        for (connection, key) in context.persistent.autoconnectDisabled.sorted(by: { $0.key < $1.key }) where key.ssid == ssid {
            context.persistent.autoconnectDisabled[connection] = nil
            context.persistentStateChanged = true
            context.autoconnectLedgerChanged = true
            effects.append(.enableAutoconnect(connection))
        }
        forEachMachine { machine, context in
            machine.networkForgotten(ssid, context: context, effects: &effects)
        }
    }
}
