// SPDX-License-Identifier: Apache-2.0
/// Issues command tokens, knows which interface and helper each outstanding command belongs to,
/// and remembers how recent commands ended, so a stray answer can be told apart: a duplicate, a
/// late answer, an answer to a cancelled command, or nonsense.
struct CommandLedger: Sendable {
    struct Route: Hashable, Sendable {
        let interface: InterfaceID
        let helper: HelperID
        let command: CommandType
    }

    enum Completion: Hashable, Sendable {
        case answered
        case timedOut
        case cancelled
        case helperLeft

        var ignoredReason: IgnoredAnswer.Reason {
            switch self {
            case .answered: .duplicate
            case .timedOut: .afterDeadline
            case .cancelled: .afterCancellation
            case .helperLeft: .fromDepartedHelper
            }
        }
    }

    /// How many finished commands are remembered at least.
    static let memory = 4096

    private var nextToken: UInt64 = 1
    private(set) var routes: [CommandToken: Route] = [:]
    private var finished: [CommandToken: Completion] = [:]
    private var finishedOrder: [CommandToken] = []

    mutating func issue(_ command: CommandType, on interface: InterfaceID, to helper: HelperID) -> CommandToken {
        let token = CommandToken(rawValue: nextToken)
        nextToken += 1
        routes[token] = Route(interface: interface, helper: helper, command: command)
        return token
    }

    mutating func retire(_ token: CommandToken, as completion: Completion) {
        guard routes.removeValue(forKey: token) != nil else { return }
        finished[token] = completion
        finishedOrder.append(token)
        if finishedOrder.count > 2 * Self.memory {
            for old in finishedOrder.prefix(Self.memory) {
                finished[old] = nil
            }
            finishedOrder.removeFirst(Self.memory)
        }
    }

    func route(of token: CommandToken) -> Route? {
        routes[token]
    }

    func completion(of token: CommandToken) -> Completion? {
        finished[token]
    }
}

/// The state every interface machine shares: configuration, helpers, their health, the persistent
/// state, the command ledger and the timer serials.
struct CoreContext: Sendable {
    let configuration: HotspotConfiguration
    var registry = HelperRegistry()
    var health: HelperHealth
    var persistent: PersistentState
    var commands = CommandLedger()
    var persistentStateChanged = false
    /// The autoconnect ledger changed in this event (its save must precede the other effects).
    var autoconnectLedgerChanged = false
    private var nextTimerSerial: UInt64 = 1

    init(configuration: HotspotConfiguration, persistent: PersistentState) {
        self.configuration = configuration
        self.health = HelperHealth(threshold: configuration.unresponsiveThreshold)
        self.persistent = persistent
    }

    mutating func makeTimer(_ kind: TimerKind, on interface: InterfaceID) -> TimerID {
        let id = TimerID(interface: interface, kind: kind, serial: nextTimerSerial)
        nextTimerSerial += 1
        return id
    }

    mutating func recordInCache(_ verdict: CacheVerdict, for key: NetworkKey) {
        if persistent.cache.record(verdict, for: key) { persistentStateChanged = true }
    }

    mutating func removeFromCache(_ key: NetworkKey) {
        if persistent.cache.remove(key) { persistentStateChanged = true }
    }

    mutating func recordAutoconnectDisabled(_ connection: ConnectionID, for key: NetworkKey) {
        guard persistent.autoconnectDisabled[connection] != key else { return }
        persistent.autoconnectDisabled[connection] = key
        persistentStateChanged = true
        autoconnectLedgerChanged = true
    }

    mutating func recordMissedDeadline(by helper: HelperID, into effects: inout [HotspotEffect]) {
        if health.recordMissedDeadline(by: helper) {
            effects.append(.helperResponsivenessChanged(helper, isResponsive: false))
        }
    }

    mutating func recordAnswer(from helper: HelperID, into effects: inout [HotspotEffect]) {
        if health.recordAnswer(from: helper) {
            effects.append(.helperResponsivenessChanged(helper, isResponsive: true))
        }
    }
}

/// A command the machine is waiting on.
struct OutstandingCommand: Hashable, Sendable {
    let request: CommandRequest
    let deadlineTimer: TimerID?

    var helper: HelperID { request.helper }
    var command: CommandType { request.command }
}
