// SPDX-License-Identifier: Apache-2.0
/// What a timer is for.
public enum TimerKind: Hashable, Sendable {
    /// Time to send maintain to the chosen helper.
    case maintain
    /// The deadline of one command.
    case commandDeadline(CommandToken)
    /// The end of the filter-scan-list coalescing interval.
    case filterScanList
    /// Time to send authenticate again after a temporary failure.
    case retryAuthenticate
}

/// Identifies one armed timer. The daemon arms it with ``HotspotEffect/armTimer(_:at:)`` and sends
/// it back with ``HotspotEvent/timerFired(_:)``. Every arming gets a new serial, so a timer fired
/// after it was cancelled or replaced is recognised and ignored.
public struct TimerID: Hashable, Sendable, CustomStringConvertible {
    /// The interface the timer belongs to.
    public let interface: InterfaceID
    /// What the timer is for.
    public let kind: TimerKind
    /// Unique for every arming.
    public let serial: UInt64

    /// Creates a timer identifier (the daemon only copies the ones it is given).
    public init(interface: InterfaceID, kind: TimerKind, serial: UInt64) {
        self.interface = interface
        self.kind = kind
        self.serial = serial
    }

    public var description: String { "\(interface)/\(kind)/\(serial)" }
}

/// A command for the daemon to send to a helper.
public struct CommandRequest: Hashable, Sendable {
    /// Identifies the command; the answer must carry it.
    public let token: CommandToken
    /// The interface the command is about.
    public let interface: InterfaceID
    /// The helper to send it to.
    public let helper: HelperID
    /// The command.
    public let command: CommandType
    /// The current network (every command except filter-scan-list).
    public let network: Network?
    /// Whether the helper is the interface's chosen helper (the contract's `is-chosen-helper`).
    public let isChosenHelper: Bool
    /// The scan list (filter-scan-list only).
    public let networks: [Network]
    /// How long the helper has to answer (`deadline-ms`); nil for none (present-ui).
    public let deadline: Duration?
}

/// What one interface looks like, for the daemon's `State`, `Network` and `Helper` properties.
public struct InterfaceStatus: Hashable, Sendable {
    /// The interface.
    public let interface: InterfaceID
    /// The machine's state.
    public let state: HotspotState
    /// The network the interface is associated with, if any.
    public let network: Network?
    /// The connection profile in use, if any.
    public let connection: ConnectionID?
    /// The chosen helper, if any.
    public let chosenHelper: HelperID?
    /// The chosen helper's display name, if any.
    public let chosenHelperDisplayName: String?
    /// Helpers excluded for the current association.
    public let excludedHelpers: Set<HelperID>
}

/// The daemon's cue to emit `UIRequired`: the chosen helper needs the user.
public struct UIRequest: Hashable, Sendable {
    /// The interface.
    public let interface: InterfaceID
    /// The helper that needs the user.
    public let helper: HelperID
    /// Its display name, for the notification.
    public let helperDisplayName: String
    /// The network concerned.
    public let network: Network
}

/// A helper broke the protocol: a result not valid for the command, a reply that could not be
/// understood, an evaluate success without a confidence.
public struct HelperProtocolError: Hashable, Sendable, CustomStringConvertible {
    /// The helper at fault.
    public let helper: HelperID
    /// The command concerned.
    public let token: CommandToken
    /// The command's type.
    public let command: CommandType
    /// What was wrong, in words a helper author can act on.
    public let problem: String

    public var description: String {
        "helper \(helper) broke the protocol answering \(command.rawValue) \(token): \(problem)"
    }
}

/// An answer the core did not act on, and why.
public struct IgnoredAnswer: Hashable, Sendable, CustomStringConvertible {
    /// Why an answer was ignored.
    public enum Reason: String, Hashable, Sendable {
        /// The command had already been answered.
        case duplicate
        /// The command's deadline had passed.
        case afterDeadline = "after-deadline"
        /// The core had already cancelled the command (its state moved on).
        case afterCancellation = "after-cancellation"
        /// The helper is not registered, or left after the command was sent.
        case fromDepartedHelper = "from-departed-helper"
        /// The command was sent to another helper.
        case notAddressedToHelper = "not-addressed-to-helper"
        /// No such command was ever sent (or it is too old to remember).
        case unknownCommand = "unknown-command"
    }

    /// The helper that answered.
    public let helper: HelperID
    /// The token it answered.
    public let token: CommandToken
    /// Why the answer was ignored.
    public let reason: Reason

    public var description: String { "ignored answer \(token) from \(helper): \(reason.rawValue)" }
}

/// A request the core refused; the daemon turns it into a D-Bus error.
public enum DeclinedRequest: Hashable, Sendable {
    /// Logoff was refused.
    case logoff(InterfaceID, reason: String)
    /// Present-ui was refused.
    case presentUI(InterfaceID, reason: String)
    /// A registration was refused.
    case registration(HelperID, reason: String)
}

/// Everything the core asks the daemon to do. Effects are data: the daemon executes them in order.
public enum HotspotEffect: Hashable, Sendable {
    /// Send a command to a helper.
    case sendCommand(CommandRequest)
    /// Stop waiting for a command's answer; an answer arriving later is ignored anyway.
    case cancelCommand(CommandToken)
    /// Disconnect the interface's device (NetworkManager Device.Disconnect).
    case disconnect(InterfaceID)
    /// Switch autoconnect off for a connection profile.
    case disableAutoconnect(ConnectionID)
    /// Switch autoconnect back on for a connection profile the core switched it off for.
    case enableAutoconnect(ConnectionID)
    /// Arm a timer for an instant; feed ``HotspotEvent/timerFired(_:)`` back when it passes.
    case armTimer(TimerID, at: Instant)
    /// Cancel an armed timer.
    case cancelTimer(TimerID)
    /// An interface's status changed; publish it (PropertiesChanged).
    case publishState(InterfaceStatus)
    /// An interface's annotated scan list changed.
    case publishScanList(InterfaceID, [AnnotatedNetwork])
    /// Emit `UIRequired`.
    case uiRequired(UIRequest)
    /// The cache or the autoconnect ledger changed; save this state atomically.
    ///
    /// `beforeOtherEffects` is true when the autoconnect ledger changed: it is the only record
    /// that lets the daemon switch a connection's autoconnect back on, so it must be on disk
    /// before NetworkManager is told to switch it off (or on). A change to the network cache
    /// alone may be written after the event's other effects, off the join's path: a crash
    /// before it lands loses one evaluation, which the next join makes again.
    case persist(PersistentState, beforeOtherEffects: Bool)
    /// A helper broke the protocol; log it.
    case helperProtocolError(HelperProtocolError)
    /// An answer was ignored; log it at debug level.
    case answerIgnored(IgnoredAnswer)
    /// A helper was marked unresponsive (false) or answered again (true).
    case helperResponsivenessChanged(HelperID, isResponsive: Bool)
    /// A request was refused.
    case requestDeclined(DeclinedRequest)
    /// Why the core did what it did to an interface (a sign-in repeated after a temporary failure,
    /// or given up), for the log; the ``setReason(_:_:)`` after it publishes it.
    case explain(InterfaceID, String)
    /// Publish why the joined network is as it is (`Reason`): cleared by a new join, the chosen
    /// helper's words with its answer to authenticate, maintain, present-ui or logoff, an
    /// explanation with the helper's words after it. Only a change is emitted.
    case setReason(InterfaceID, InterfaceReason)
    /// The interface has just been signed in (entered authenticated): the daemon's connectivity
    /// monitor checks again soon (learning a new session end), and, when `networkManager`,
    /// NetworkManager is asked to check now rather than at its next interval (a chosen helper
    /// signed in; not after a maintain that found the session alive, nor with no helper).
    case recheckConnectivity(InterfaceID, networkManager: Bool)
}
