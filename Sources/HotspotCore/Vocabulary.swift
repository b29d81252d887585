// SPDX-License-Identifier: Apache-2.0
/// The states of one interface's hotspot state machine. Raw values are the D-Bus contract's strings.
public enum HotspotState: String, CaseIterable, Sendable {
    /// No IP connectivity; also the initial state.
    case inactive
    /// Evaluate has gone to every eligible helper; waiting for their confidence.
    case evaluating
    /// Authenticate has gone to the chosen helper.
    case authenticating
    /// The chosen helper needs the user; present-ui goes to it when the user acts.
    case presentingUI = "presenting-ui"
    /// The network carries traffic, signed in by the chosen helper or needing no helper.
    case authenticated
    /// Maintain has gone to the chosen helper.
    case maintaining
    /// Logoff has gone to the chosen helper; the device is disconnected afterwards.
    case loggingOff = "logging-off"
    /// An unrecoverable error: the device is disconnected and the machine returns to inactive.
    case failure
}

/// The commands a helper receives. Raw values are the D-Bus contract's strings.
public enum CommandType: String, CaseIterable, Sendable {
    /// Label the networks of a scan list the helper recognises.
    case filterScanList = "filter-scan-list"
    /// Say how confident the helper is that it can sign in to the current network.
    case evaluate
    /// Sign in to the current network.
    case authenticate
    /// Sign in with the user's help (sent when the user acts; no deadline).
    case presentUI = "present-ui"
    /// Keep the session alive, or sign in again after a re-join.
    case maintain
    /// Sign out of the current network.
    case logoff

    /// The results a helper may give for this command. Any other result counts as failure and is
    /// reported as a helper protocol error.
    ///
    /// Success, failure and command-not-recognized are valid for every command; the others follow
    /// Apple's header: ui-required only for authenticate, authentication-required only for
    /// maintain, unsupported-network and temporary-failure only for authenticate and present-ui.
    public var validResults: Set<CommandResult> { Set(CommandResult.allCases.filter(accepts)) }

    /// Whether a helper may give `result` for this command (``validResults``, without building
    /// a set: it is asked for every answer).
    public func accepts(_ result: CommandResult) -> Bool {
        switch result {
        case .success, .failure, .commandNotRecognized: return true
        case .uiRequired: return self == .authenticate
        case .unsupportedNetwork, .temporaryFailure: return self == .authenticate || self == .presentUI
        case .authenticationRequired: return self == .maintain
        }
    }
}

/// A helper's result for a command. Raw values are the D-Bus contract's strings.
public enum CommandResult: String, CaseIterable, Sendable {
    /// The command succeeded (valid for every command).
    case success
    /// The command failed (valid for every command).
    case failure
    /// The helper needs the user (authenticate only).
    case uiRequired = "ui-required"
    /// The helper does not handle this command (valid for every command; counts as "any other").
    case commandNotRecognized = "command-not-recognized"
    /// The session lapsed and the helper must sign in again (maintain only).
    case authenticationRequired = "authentication-required"
    /// The helper cannot handle this network after all (authenticate and present-ui only).
    case unsupportedNetwork = "unsupported-network"
    /// A failure worth retrying later; auto-join stays on (authenticate and present-ui only).
    case temporaryFailure = "temporary-failure"
}

/// How confident a helper is that it can handle a network. Raw values are the D-Bus contract's
/// strings; the order is none < low < high.
public enum Confidence: String, CaseIterable, Comparable, Sendable {
    /// The helper cannot handle the network.
    case none
    /// The helper can probably handle the network.
    case low
    /// The helper is sure it can handle the network; the first such answer wins at once.
    case high

    private var rank: Int {
        switch self {
        case .none: 0
        case .low: 1
        case .high: 2
        }
    }

    public static func < (lhs: Confidence, rhs: Confidence) -> Bool {
        lhs.rank < rhs.rank
    }
}
