// SPDX-License-Identifier: Apache-2.0
/// One association of an interface with a network: what the machine knows between gaining and
/// losing IP connectivity.
struct Association: Hashable, Sendable {
    var network: Network
    var connection: ConnectionID
    var chosenHelper: HelperID?
    /// Helpers excluded for this association (unsupported-network, or left mid-command).
    var excluded: Set<HelperID> = []
    /// Whether the association has reached authenticated; until then commands carry
    /// did-just-join = true.
    var hasAuthenticated = false
    /// Authenticates of the current sign-in that ended in temporary-failure (or without an answer).
    var temporaryFailures = 0
    /// When the first of them ended.
    var firstTemporaryFailure: Instant?
    /// Evaluations started because a portal showed itself after the join.
    var lateEvaluations = 0
    /// The daemon has not given this join its connectivity verdict yet.
    var awaitingVerdict = false
}

/// The hotspot state machine of one Wi-Fi interface (DESIGN.md §3).
///
/// The machine is a reducer: ``HotspotCoordinator`` hands it events together with the state all
/// interfaces share (helpers, cache, command ledger) and it appends the effects its transitions
/// cause. Read-only accessors expose its state for the daemon's properties and for tests.
public struct InterfaceMachine: Sendable {
    /// The interface.
    public let interface: InterfaceID
    /// The machine's state.
    public private(set) var state: HotspotState = .inactive
    /// The pending maintain timer, armed exactly while authenticated with a chosen helper.
    public internal(set) var maintainTimer: TimerID?
    /// When the pending maintain timer fires (nil while none is armed).
    public internal(set) var maintainDue: Instant?
    /// The timer that sends authenticate again after a temporary failure, armed only while
    /// authenticating with no authenticate outstanding.
    public internal(set) var retryTimer: TimerID?

    /// How many evaluations a portal found after the join may start per association.
    static let lateEvaluationLimit = 3

    var association: Association?
    var arbiter: HelperArbiter?
    /// State-machine commands awaiting an answer.
    var outstanding: [CommandToken: OutstandingCommand] = [:]
    var scanList = ScanListState()

    init(interface: InterfaceID) {
        self.interface = interface
    }

    /// The network the interface is associated with, if any.
    public var network: Network? { association?.network }
    /// The connection profile in use, if any.
    public var connection: ConnectionID? { association?.connection }
    /// The chosen helper, if any.
    public var chosenHelper: HelperID? { association?.chosenHelper }
    /// Helpers excluded for the current association.
    public var excludedHelpers: Set<HelperID> { association?.excluded ?? [] }
    /// The state-machine commands awaiting an answer, oldest first.
    public var outstandingCommands: [CommandRequest] {
        outstanding.values.map(\.request).sorted { $0.token < $1.token }
    }
    /// The filter-scan-list commands awaiting an answer, oldest first.
    public var outstandingScanListCommands: [CommandRequest] {
        scanList.outstanding.values.map(\.request).sorted { $0.token < $1.token }
    }
    /// The current scan list, annotated with the helpers' claims.
    public var annotatedScanList: [AnnotatedNetwork] { scanList.annotated }

    func status(in context: CoreContext) -> InterfaceStatus {
        InterfaceStatus(
            interface: interface,
            state: state,
            network: association?.network,
            connection: association?.connection,
            chosenHelper: association?.chosenHelper,
            chosenHelperDisplayName: association?.chosenHelper.flatMap { context.registry[$0]?.displayName },
            excludedHelpers: association?.excluded ?? []
        )
    }
}

// MARK: - Events

extension InterfaceMachine {
    mutating func connectivityGained(
        _ network: Network, connection: ConnectionID, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        if state != .inactive, let current = association {
            if current.network.key == network.key, current.connection == connection {
                // Roaming between access points of one network keeps the machine and the helper.
                association?.network = network
                publish(context, &effects)
                return
            }
            enterInactive(context: &context, effects: &effects)
        }
        association = Association(network: network, connection: connection)
        association?.awaitingVerdict = context.configuration.awaitsConnectivityVerdict
        if case .helper(let cached)? = context.persistent.cache[network.key],
            context.registry[cached]?.evaluatesNetworks == true
        {
            association?.chosenHelper = cached
            enterMaintaining(now: now, context: &context, effects: &effects)
        } else {
            startEvaluation(now: now, context: &context, effects: &effects)
        }
    }

    mutating func connectivityLost(context: inout CoreContext, effects: inout [HotspotEffect]) {
        enterInactive(context: &context, effects: &effects)
    }

    /// Forgets everything about the interface before it is removed.
    mutating func remove(context: inout CoreContext, effects: inout [HotspotEffect]) {
        enterInactive(context: &context, effects: &effects)
        endScanListCommands(context: &context, effects: &effects)
    }

    mutating func answerReceived(
        _ answer: HelperAnswer, problem: String?, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        if let command = outstanding.removeValue(forKey: answer.token) {
            finish(command, context: &context, effects: &effects)
            let result = checkedResult(of: answer, to: command, problem: problem, &effects)
            if command.command == .evaluate {
                var confidence = Confidence.none
                if result == .success {
                    if let given = answer.confidence {
                        confidence = given
                    } else {
                        reportProtocolError(command, "evaluate answered success without a confidence", &effects)
                    }
                }
                evaluationAnswered(by: command.helper, confidence, now: now, context: &context, effects: &effects)
            } else {
                stateCommandEnded(command, result: result, now: now, context: &context, effects: &effects)
            }
        } else if let command = scanList.outstanding.removeValue(forKey: answer.token) {
            finish(command, context: &context, effects: &effects)
            let result = checkedResult(of: answer, to: command, problem: problem, &effects)
            scanListAnswered(by: command.helper, claims: result == .success ? answer.claims : [], context: context, effects: &effects)
        }
    }

    /// The result an answer counts as: failure when it could not be understood (`problem`) or is
    /// not valid for the command, either reported as a protocol error.
    private func checkedResult(of answer: HelperAnswer, to command: OutstandingCommand, problem: String?,
                               _ effects: inout [HotspotEffect]) -> CommandResult {
        if let problem {
            reportProtocolError(command, problem, &effects)
            return .failure
        }
        guard command.command.accepts(answer.result) else {
            reportProtocolError(command, "result \(answer.result.rawValue) is not valid for \(command.command.rawValue)", &effects)
            return .failure
        }
        return answer.result
    }

    /// A command's deadline passed (its timer fired, or the daemon's call gave up).
    mutating func commandTimedOut(
        _ token: CommandToken, timerFired: Bool, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        if let command = outstanding.removeValue(forKey: token) {
            end(command, as: .timedOut, timerFired: timerFired, context: &context, effects: &effects)
            context.recordMissedDeadline(by: command.helper, into: &effects)
            if command.command == .evaluate {
                evaluationAnswered(by: command.helper, .none, now: now, context: &context, effects: &effects)
            } else {
                // No answer to authenticate, present-ui or maintain counts as temporary-failure, so a
                // stuck helper never switches off auto-join; logoff ends the same way as any answer.
                stateCommandEnded(command, result: .temporaryFailure, now: now, context: &context, effects: &effects)
            }
        } else if let command = scanList.outstanding.removeValue(forKey: token) {
            end(command, as: .timedOut, timerFired: timerFired, context: &context, effects: &effects)
            context.recordMissedDeadline(by: command.helper, into: &effects)
        }
    }

    mutating func timerFired(
        _ timer: TimerID, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        switch timer.kind {
        case .maintain:
            guard timer == maintainTimer, state == .authenticated, association?.chosenHelper != nil else { return }
            maintainTimer = nil
            maintainDue = nil
            enterMaintaining(now: now, context: &context, effects: &effects)
        case .commandDeadline(let token):
            let armed = outstanding[token]?.deadlineTimer ?? scanList.outstanding[token]?.deadlineTimer
            guard armed == timer else { return }
            commandTimedOut(token, timerFired: true, now: now, context: &context, effects: &effects)
        case .filterScanList:
            guard timer == scanList.coalescingTimer else { return }
            scanList.coalescingTimer = nil
            startScanListRound(now: now, context: &context, effects: &effects)
        case .retryAuthenticate:
            retryTimerFired(timer, now: now, context: &context, effects: &effects)
        }
    }

    mutating func logoffRequested(
        by requester: LogoffRequester, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        guard state == .authenticated, let chosen = association?.chosenHelper else {
            let reason = state == .authenticated
                ? "no helper signed in on \(interface); there is nothing to log off"
                : "\(interface) is \(state.rawValue); logoff is possible only when authenticated"
            effects.append(.requestDeclined(.logoff(interface, reason: reason)))
            return
        }
        if case .helper(let helper) = requester, helper != chosen {
            effects.append(.requestDeclined(.logoff(
                interface, reason: "only the helper that signed in (\(chosen)) may log off \(interface), not \(helper)")))
            return
        }
        cancelMaintainTimer(&effects)
        state = .loggingOff
        publish(context, &effects)
        send(.logoff, to: chosen, deadline: context.configuration.commandDeadline, now: now, context: &context, effects: &effects)
    }

    mutating func presentUIRequested(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        guard state == .presentingUI, let chosen = association?.chosenHelper else {
            effects.append(.requestDeclined(.presentUI(
                interface, reason: "\(interface) is \(state.rawValue); no helper is waiting for the user")))
            return
        }
        // The user acting again supersedes an earlier present-ui the helper never answered: with no
        // deadline, that one could otherwise wait for ever.
        cancelStateCommands(context: &context, effects: &effects)
        send(.presentUI, to: chosen, deadline: nil, now: now, context: &context, effects: &effects)
    }

    mutating func helperRegistered(
        _ helper: RegisteredHelper, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        // A chosen helper that restarted while the network was authenticated takes over again.
        if state == .authenticated, var current = association, current.chosenHelper == nil,
            helper.evaluatesNetworks, !current.excluded.contains(helper.identifier),
            context.persistent.cache[current.network.key] == .helper(helper.identifier)
        {
            current.chosenHelper = helper.identifier
            association = current
            armMaintainTimer(now: now, context: &context, effects: &effects)
            publish(context, &effects)
        }
        if helper.filtersScanLists, !scanList.networks.isEmpty {
            requestScanListRound(now: now, context: &context, effects: &effects)
        }
    }

    mutating func helperDeparted(
        _ helper: HelperID, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        scanListHelperDeparted(helper, context: &context, effects: &effects)
        guard let current = association else { return }
        let inFlight = outstanding.values.filter { $0.helper == helper }.sorted { $0.request.token < $1.request.token }
        for command in inFlight {
            outstanding[command.request.token] = nil
            end(command, as: .helperLeft, timerFired: false, context: &context, effects: &effects)
        }
        switch state {
        case .evaluating:
            guard var arbiter, arbiter.asked.contains(helper) else { return }
            association?.excluded.insert(helper)
            let verdict = arbiter.withdraw(helper)
            self.arbiter = arbiter
            publish(context, &effects)
            if verdict != .undecided {
                finishEvaluation(verdict, now: now, context: &context, effects: &effects)
            }
        case .authenticating, .presentingUI, .maintaining:
            guard current.chosenHelper == helper else { return }
            association?.excluded.insert(helper)
            startEvaluation(now: now, context: &context, effects: &effects)
        case .authenticated:
            guard current.chosenHelper == helper else { return }
            // The session is up; without its helper it can no longer be maintained. Not excluded
            // (it was not mid-command): if it comes back it takes over again.
            association?.chosenHelper = nil
            cancelMaintainTimer(&effects)
            publish(context, &effects)
        case .loggingOff:
            guard current.chosenHelper == helper else { return }
            finishLogoff(context: &context, effects: &effects)
        case .inactive, .failure:
            return
        }
    }

    /// The session ends at `expiry`: maintain must come before it.
    mutating func sessionExpiryLearned(_ expiry: Instant, now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        guard state == .authenticated, association?.chosenHelper != nil, let due = maintainDue else { return }
        let remaining = expiry - now
        let lead = min(.seconds(60), max(.seconds(2), remaining / 4))
        let target = max(now + .milliseconds(500), expiry + (.zero - lead))
        guard target < due else { return }
        cancelMaintainTimer(&effects)
        let timer = context.makeTimer(.maintain, on: interface)
        maintainTimer = timer
        maintainDue = target
        effects.append(.armTimer(timer, at: target))
    }

    /// The user forgot a network: exclusions on it no longer hold.
    mutating func networkForgotten(_ ssid: SSID, context: CoreContext, effects: inout [HotspotEffect]) {
        guard association?.network.ssid == ssid, association?.excluded.isEmpty == false else { return }
        association?.excluded = []
        publish(context, &effects)
    }
}

// MARK: - Transitions

extension InterfaceMachine {
    mutating func startEvaluation(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        cancelStateCommands(context: &context, effects: &effects)
        cancelMaintainTimer(&effects)
        cancelRetryTimer(&effects)
        association?.chosenHelper = nil
        association?.temporaryFailures = 0
        association?.firstTemporaryFailure = nil
        state = .evaluating
        let excluded = association?.excluded ?? []
        let eligible = context.registry.inRegistrationOrder.filter {
            $0.evaluatesNetworks && !excluded.contains($0.identifier)
        }
        publish(context, &effects)
        arbiter = HelperArbiter(asking: eligible.map(\.identifier),
                                ceilings: Dictionary(uniqueKeysWithValues: eligible.map { ($0.identifier, $0.highestConfidence) }))
        guard !eligible.isEmpty else {
            finishEvaluation(.noClaim, now: now, context: &context, effects: &effects)
            return
        }
        for helper in eligible {
            let deadline = context.health.isUnresponsive(helper.identifier)
                ? min(context.configuration.unresponsiveEvaluateDeadline, context.configuration.commandDeadline)
                : context.configuration.commandDeadline
            send(.evaluate, to: helper.identifier, deadline: deadline, now: now, context: &context, effects: &effects)
        }
    }

    private mutating func evaluationAnswered(
        by helper: HelperID, _ confidence: Confidence, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        guard state == .evaluating, var arbiter else { return }
        let verdict = arbiter.recordAnswer(confidence, from: helper)
        self.arbiter = arbiter
        if verdict != .undecided {
            finishEvaluation(verdict, now: now, context: &context, effects: &effects)
        }
    }

    private mutating func finishEvaluation(
        _ verdict: HelperArbiter.Verdict, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        guard verdict != .undecided else { return }
        let askedAnyone = !(arbiter?.asked.isEmpty ?? true)
        arbiter = nil
        // The first high answer ends evaluation: the helpers still evaluating are cancelled.
        cancelStateCommands(context: &context, effects: &effects)
        guard let current = association else { return }
        switch verdict {
        case .undecided:
            return
        case .chosen(let helper):
            association?.chosenHelper = helper
            context.recordInCache(.helper(helper), for: current.network.key)
            state = .authenticating
            publish(context, &effects)
            send(.authenticate, to: helper, deadline: context.configuration.commandDeadline, now: now, context: &context, effects: &effects)
        case .noClaim:
            // "Not captive" is evidence only when helpers were asked and none was excluded: after an
            // exclusion the network is captive but nobody else can sign in.
            if askedAnyone, current.excluded.isEmpty {
                context.recordInCache(.notCaptive, for: current.network.key)
            }
            if current.awaitingVerdict {
                // Nobody claimed it, and whether it is open or a slow portal is not known yet:
                // not "signed in" until the daemon's checks say (connectivitySettled, portalDetected).
                publish(context, &effects)
                effects.append(.explain(interface, "no helper claimed \(current.network.ssid.displayForm); waiting for the connectivity check's verdict"))
                return
            }
            enterAuthenticated(now: now, context: &context, effects: &effects)
        }
    }

    private mutating func stateCommandEnded(
        _ command: OutstandingCommand, result: CommandResult, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        switch command.command {
        case .authenticate, .presentUI:
            switch result {
            case .success:
                enterAuthenticated(now: now, context: &context, effects: &effects)
            case .uiRequired where command.command == .authenticate:
                state = .presentingUI
                publish(context, &effects)
                if let network = association?.network {
                    effects.append(.uiRequired(UIRequest(
                        interface: interface,
                        helper: command.helper,
                        helperDisplayName: context.registry[command.helper]?.displayName ?? command.helper.rawValue,
                        network: network
                    )))
                }
            case .unsupportedNetwork:
                association?.excluded.insert(command.helper)
                if let key = association?.network.key, context.persistent.cache[key] == .helper(command.helper) {
                    context.removeFromCache(key)
                }
                startEvaluation(now: now, context: &context, effects: &effects)
            case .temporaryFailure where command.command == .authenticate:
                retryAuthenticate(after: command, now: now, context: &context, effects: &effects)
            case .temporaryFailure:
                fail(disablingAutoconnect: false, context: &context, effects: &effects)
            default:
                fail(disablingAutoconnect: true, context: &context, effects: &effects)
            }
        case .maintain:
            switch result {
            case .success:
                enterAuthenticated(now: now, context: &context, effects: &effects)
            case .authenticationRequired:
                state = .authenticating
                publish(context, &effects)
                send(.authenticate, to: command.helper, deadline: context.configuration.commandDeadline, now: now, context: &context, effects: &effects)
            default:
                startEvaluation(now: now, context: &context, effects: &effects)
            }
        case .logoff:
            finishLogoff(context: &context, effects: &effects)
        case .evaluate, .filterScanList:
            return
        }
    }

    mutating func enterAuthenticatedWithoutHelper(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        enterAuthenticated(now: now, context: &context, effects: &effects)
    }

    private mutating func enterAuthenticated(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        state = .authenticated
        association?.hasAuthenticated = true
        association?.temporaryFailures = 0
        association?.firstTemporaryFailure = nil
        if association?.chosenHelper != nil {
            armMaintainTimer(now: now, context: &context, effects: &effects)
        }
        publish(context, &effects)
    }

    private mutating func enterMaintaining(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        guard let chosen = association?.chosenHelper else { return }
        state = .maintaining
        publish(context, &effects)
        send(.maintain, to: chosen, deadline: context.configuration.commandDeadline, now: now, context: &context, effects: &effects)
    }

    private mutating func finishLogoff(context: inout CoreContext, effects: inout [HotspotEffect]) {
        cancelStateCommands(context: &context, effects: &effects)
        effects.append(.disconnect(interface))
        enterInactive(context: &context, effects: &effects)
    }

    /// Failure: disconnect, switch autoconnect off unless the failure is temporary, then inactive.
    mutating func fail(disablingAutoconnect: Bool, context: inout CoreContext, effects: inout [HotspotEffect]) {
        cancelStateCommands(context: &context, effects: &effects)
        cancelMaintainTimer(&effects)
        cancelRetryTimer(&effects)
        state = .failure
        publish(context, &effects)
        effects.append(.disconnect(interface))
        if disablingAutoconnect, let current = association {
            context.recordAutoconnectDisabled(current.connection, for: current.network.key)
            effects.append(.disableAutoconnect(current.connection))
        }
        enterInactive(context: &context, effects: &effects)
    }

    /// Inactive: cancels every pending state-machine command and timer and forgets the association
    /// (the chosen helper and the exclusion list with it).
    private mutating func enterInactive(context: inout CoreContext, effects: inout [HotspotEffect]) {
        cancelStateCommands(context: &context, effects: &effects)
        cancelMaintainTimer(&effects)
        cancelRetryTimer(&effects)
        arbiter = nil
        association = nil
        if state != .inactive {
            state = .inactive
            publish(context, &effects)
        }
    }
}
