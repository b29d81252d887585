// SPDX-License-Identifier: Apache-2.0
/// What a helper asks for when it registers.
public struct HelperRegistration: Hashable, Sendable {
    /// The helper's stable identifier.
    public var identifier: HelperID
    /// The name shown beside the networks the helper claims (at most 15 characters is advised).
    public var displayName: String
    /// The commands the helper wants. A helper takes part in evaluation, and so in the state
    /// machine, only if this includes evaluate; once chosen it receives authenticate, present-ui,
    /// maintain and logoff for that network, as on iOS. It receives filter-scan-list only if this
    /// includes filter-scan-list.
    public var commands: Set<CommandType>
    /// The most confidence the helper ever answers evaluate with. Evaluation stops waiting for a
    /// helper that can at most tie an answer already given (ties go to the earlier answer): the
    /// built-in portal helper, which answers low at most and waits for a connectivity verdict to
    /// answer, then holds up no one once another helper has claimed the network.
    public var highestConfidence: Confidence

    /// Creates a registration; by default the helper wants every command and may answer high.
    public init(identifier: HelperID, displayName: String, commands: Set<CommandType> = Set(CommandType.allCases),
                highestConfidence: Confidence = .high) {
        self.identifier = identifier
        self.displayName = displayName
        self.commands = commands
        self.highestConfidence = highestConfidence
    }
}

/// A helper the core knows, with its place in registration order (earlier registration wins ties
/// between equally confident scan-list claims).
public struct RegisteredHelper: Hashable, Sendable {
    /// The helper's stable identifier.
    public let identifier: HelperID
    /// The helper's display name.
    public let displayName: String
    /// The commands the helper asked for.
    public let commands: Set<CommandType>
    /// Increases with every registration; a helper that re-registers goes to the back.
    public let registrationOrder: UInt64
    /// The most confidence it ever answers evaluate with (``HelperRegistration/highestConfidence``).
    public let highestConfidence: Confidence

    /// A registered helper as the registry makes it (public for benchmarks and tools that drive
    /// ``ScanListAnnotator`` directly).
    public init(identifier: HelperID, displayName: String, commands: Set<CommandType>, registrationOrder: UInt64,
                highestConfidence: Confidence = .high) {
        self.identifier = identifier
        self.displayName = displayName
        self.commands = commands
        self.registrationOrder = registrationOrder
        self.highestConfidence = highestConfidence
    }

    /// Whether the helper takes part in evaluation (and so in the state machine).
    public var evaluatesNetworks: Bool { commands.contains(.evaluate) }

    /// Whether the helper receives filter-scan-list.
    public var filtersScanLists: Bool { commands.contains(.filterScanList) }
}

/// The registered helpers, by identifier.
struct HelperRegistry: Sendable {
    private(set) var helpers: [HelperID: RegisteredHelper] = [:]
    private var nextOrder: UInt64 = 0

    subscript(id: HelperID) -> RegisteredHelper? { helpers[id] }

    /// Registers a helper; nil when a helper with that identifier is already registered.
    mutating func register(_ registration: HelperRegistration) -> RegisteredHelper? {
        guard helpers[registration.identifier] == nil else { return nil }
        let helper = RegisteredHelper(
            identifier: registration.identifier,
            displayName: registration.displayName,
            commands: registration.commands,
            registrationOrder: nextOrder,
            highestConfidence: registration.highestConfidence
        )
        nextOrder += 1
        helpers[registration.identifier] = helper
        return helper
    }

    mutating func remove(_ id: HelperID) -> RegisteredHelper? {
        helpers.removeValue(forKey: id)
    }

    var inRegistrationOrder: [RegisteredHelper] {
        helpers.values.sorted { $0.registrationOrder < $1.registrationOrder }
    }
}

/// The unresponsive-helper rule.
///
/// Every deadline a helper misses (any command, on any interface) adds one to its count of
/// consecutive misses; any answer from it, even a late one, resets the count. When the count
/// reaches the configured threshold (default 3) the helper is marked unresponsive: it is still
/// asked to evaluate, but with a short deadline (default 2 s) so it can no longer stall a join.
/// The mark is lifted as soon as it answers anything again. Registering again starts afresh.
public struct HelperHealth: Sendable {
    /// Consecutive misses after which a helper is marked unresponsive.
    public let threshold: Int
    private var misses: [HelperID: Int] = [:]
    /// The helpers currently marked unresponsive.
    public private(set) var unresponsive: Set<HelperID> = []

    /// Creates the rule with a threshold of consecutive misses.
    public init(threshold: Int) {
        self.threshold = max(1, threshold)
    }

    /// Whether the helper is currently marked unresponsive.
    public func isUnresponsive(_ helper: HelperID) -> Bool {
        unresponsive.contains(helper)
    }

    /// Records a missed deadline; returns true when this miss marks the helper unresponsive.
    public mutating func recordMissedDeadline(by helper: HelperID) -> Bool {
        let count = misses[helper, default: 0] + 1
        misses[helper] = count
        guard count >= threshold, !unresponsive.contains(helper) else { return false }
        unresponsive.insert(helper)
        return true
    }

    /// Records an answer; returns true when it lifts the unresponsive mark.
    public mutating func recordAnswer(from helper: HelperID) -> Bool {
        misses[helper] = nil
        return unresponsive.remove(helper) != nil
    }

    /// Forgets everything about a helper (it registered afresh or left).
    public mutating func forget(_ helper: HelperID) {
        misses[helper] = nil
        unresponsive.remove(helper)
    }
}
