// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// A deterministic stand-in for the daemon: it executes the core's effects on a virtual clock,
/// keeps the commands sent and not yet finished, fires armed timers in order when time advances,
/// and records every effect, so tests read as scenarios.
struct Harness {
    var core: HotspotCoordinator
    private(set) var now = Instant.epoch
    /// Armed timers and when they fire.
    private(set) var timers: [TimerID: Instant] = [:]
    /// Commands sent and not yet answered, cancelled or timed out, as the daemon sees them.
    private(set) var pending: [CommandToken: CommandRequest] = [:]
    /// Every effect, in order.
    private(set) var log: [HotspotEffect] = []
    /// The effects of the latest event.
    private(set) var last: [HotspotEffect] = []

    init(_ configuration: HotspotConfiguration = HotspotConfiguration(), restoring state: PersistentState = PersistentState()) {
        core = HotspotCoordinator(configuration: configuration, restoring: state)
    }

    // MARK: Driving

    @discardableResult
    mutating func send(_ event: HotspotEvent) -> [HotspotEffect] {
        // The daemon stops waiting once the addressed helper replies, whatever the reply says.
        if case .helperAnswered(let answer) = event, pending[answer.token]?.helper == answer.helper {
            pending[answer.token] = nil
        }
        if case .helperAnswerMalformed(let token, let helper, _) = event, pending[token]?.helper == helper {
            pending[token] = nil
        }
        let effects = core.handle(event, now: now)
        for effect in effects {
            switch effect {
            case .sendCommand(let request): pending[request.token] = request
            case .cancelCommand(let token): pending[token] = nil
            case .armTimer(let timer, let at): timers[timer] = at
            case .cancelTimer(let timer): timers[timer] = nil
            default: break
            }
        }
        last = effects
        log += effects
        return effects
    }

    /// Moves the clock forward, firing every timer that falls due, earliest first; returns their
    /// effects.
    @discardableResult
    mutating func advance(by duration: Duration) -> [HotspotEffect] {
        let target = now + duration
        var effects: [HotspotEffect] = []
        while let (timer, at) = timers.filter({ $0.value <= target }).min(by: { ($0.value, $0.key.serial) < ($1.value, $1.key.serial) }) {
            now = at
            timers[timer] = nil
            effects += send(.timerFired(timer))
        }
        now = target
        return effects
    }

    mutating func register(_ id: HelperID, name: String? = nil, commands: Set<CommandType> = Set(CommandType.allCases)) {
        send(.helperRegistered(HelperRegistration(identifier: id, displayName: name ?? id.rawValue, commands: commands)))
    }

    mutating func join(
        _ interface: InterfaceID = "wlan0", _ ssid: String = "Cafe", security: SecurityClass = .open,
        bssid: String = "aa:bb:cc:00:00:01", connection: ConnectionID = "conn-cafe"
    ) {
        send(.connectivityGained(interface, network: network(ssid, security: security, bssid: bssid), connection: connection))
    }

    /// Answers the one pending command of `command` type sent to `helper` on `interface`.
    @discardableResult
    mutating func answer(
        _ helper: HelperID, _ command: CommandType, _ result: CommandResult = .success,
        confidence: Confidence? = nil, claims: [ScanClaim] = [], reason: String? = nil, on interface: InterfaceID = "wlan0"
    ) -> [HotspotEffect] {
        guard let request = request(helper, command, on: interface) else {
            Issue.record("no pending \(command.rawValue) for \(helper) on \(interface); pending: \(pending.values)")
            return []
        }
        return send(.helperAnswered(HelperAnswer(
            token: request.token, helper: helper, result: result, confidence: confidence, claims: claims, reason: reason)))
    }

    // MARK: Observing

    func request(_ helper: HelperID, _ command: CommandType, on interface: InterfaceID = "wlan0") -> CommandRequest? {
        pending.values.filter { $0.helper == helper && $0.command == command && $0.interface == interface }.min { $0.token < $1.token }
    }

    func pendingCommands(on interface: InterfaceID = "wlan0") -> [CommandRequest] {
        pending.values.filter { $0.interface == interface }.sorted { $0.token < $1.token }
    }

    func state(_ interface: InterfaceID = "wlan0") -> HotspotState? {
        core.machine(for: interface)?.state
    }

    func chosen(_ interface: InterfaceID = "wlan0") -> HelperID? {
        core.machine(for: interface)?.chosenHelper
    }

    func maintainTimerArmed(_ interface: InterfaceID = "wlan0") -> Bool {
        timers.keys.contains { $0.interface == interface && $0.kind == .maintain }
    }

    func armedTimers(_ kind: TimerKind, on interface: InterfaceID = "wlan0") -> [Instant] {
        timers.filter { $0.key.interface == interface && $0.key.kind == kind }.map(\.value)
    }

    var sentInLastStep: [CommandRequest] {
        last.compactMap { if case .sendCommand(let request) = $0 { request } else { nil } }
    }

    var protocolErrors: [HelperProtocolError] {
        log.compactMap { if case .helperProtocolError(let error) = $0 { error } else { nil } }
    }

    var ignoredAnswers: [IgnoredAnswer] {
        log.compactMap { if case .answerIgnored(let ignored) = $0 { ignored } else { nil } }
    }

    func logContains(_ effect: HotspotEffect) -> Bool {
        log.contains(effect)
    }

    /// Makes the harness believe a command is pending, to show that invariant checks can fail.
    mutating func injectPending(_ request: CommandRequest) {
        pending[request.token] = request
    }

    mutating func clearLog() {
        log = []
    }
}

func network(_ ssid: String, security: SecurityClass = .open, bssid: String = "aa:bb:cc:00:00:01", strength: Double = 0.5) -> Network {
    Network(ssid: SSID(ssid), bssid: bssid, signalStrength: strength, securityClass: security)
}

func key(_ ssid: String, _ security: SecurityClass = .open) -> NetworkKey {
    NetworkKey(ssid: SSID(ssid), securityClass: security)
}
