// SPDX-License-Identifier: Apache-2.0
/// A password a helper supplied for a network. Its descriptions never show the secret, so it can
/// travel through logs and test failures safely.
public struct Password: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret, in the format IEEE 802.11 defines for the network's security scheme.
    public let secret: String

    /// Wraps a secret.
    public init(_ secret: String) {
        self.secret = secret
    }

    public var description: String { "<password>" }
    public var debugDescription: String { "<password>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// One network a helper claims in its filter-scan-list answer.
public struct ScanClaim: Hashable, Sendable {
    /// The claimed network's SSID.
    public var ssid: SSID
    /// When set, the claim applies to this access point only; otherwise to every access point of
    /// the SSID.
    public var bssid: String?
    /// How confident the helper is; claims with none are dropped.
    public var confidence: Confidence
    /// A password the system may use to join the network.
    public var password: Password?
    /// The name to show beside this network instead of the helper's display name (a profile's
    /// name for its network); nil for the helper's.
    public var displayName: String?

    /// Creates a claim.
    public init(ssid: SSID, bssid: String? = nil, confidence: Confidence, password: Password? = nil, displayName: String? = nil) {
        self.ssid = ssid
        self.bssid = bssid
        self.confidence = confidence
        self.password = password
        self.displayName = displayName
    }
}

/// A helper's answer to a command.
public struct HelperAnswer: Hashable, Sendable {
    /// The command answered.
    public var token: CommandToken
    /// The helper answering.
    public var helper: HelperID
    /// The result.
    public var result: CommandResult
    /// The confidence (evaluate only; required when the result is success).
    public var confidence: Confidence?
    /// The claimed networks (filter-scan-list only).
    public var claims: [ScanClaim]
    /// The helper's reason for its answer, escaped when it was decoded; published as the
    /// interface's `Reason` for authenticate, maintain, present-ui and logoff.
    public var reason: String?

    /// Creates an answer.
    public init(
        token: CommandToken,
        helper: HelperID,
        result: CommandResult,
        confidence: Confidence? = nil,
        claims: [ScanClaim] = [],
        reason: String? = nil
    ) {
        self.token = token
        self.helper = helper
        self.result = result
        self.confidence = confidence
        self.claims = claims
        self.reason = reason
    }
}

/// What one of the daemon's connectivity checks of a joined link found, as the core reads it.
public struct LinkCheck: Hashable, Sendable {
    /// The interface's published connectivity is "portal".
    public var portal: Bool
    /// The join has its verdict (``HotspotEvent/connectivitySettled(_:)``).
    public var settled: Bool
    /// How long the RFC 8908 session has left, when the API said.
    public var sessionRemaining: Duration?

    /// Creates a check's findings.
    public init(portal: Bool, settled: Bool, sessionRemaining: Duration? = nil) {
        self.portal = portal
        self.settled = settled
        self.sessionRemaining = sessionRemaining
    }
}

/// Who asks for a logoff.
public enum LogoffRequester: Hashable, Sendable {
    /// A helper; only the chosen helper may log off.
    case helper(HelperID)
    /// A user the daemon has already authorised (polkit).
    case user
}

/// Everything that happens to the core. The daemon translates NetworkManager signals, helper
/// replies, timers and D-Bus calls into events and hands them to ``HotspotCoordinator/handle(_:now:)``.
public enum HotspotEvent: Hashable, Sendable {
    /// The interface reached IP connectivity on a network through a connection profile
    /// (NetworkManager device state ACTIVATED). Repeating it for the same network and connection
    /// (roaming to another BSSID) only refreshes the network's facts.
    case connectivityGained(InterfaceID, network: Network, connection: ConnectionID)
    /// The interface lost IP connectivity (any device state below ACTIVATED).
    case connectivityLost(InterfaceID)
    /// The interface disappeared; the core forgets it entirely.
    case interfaceRemoved(InterfaceID)
    /// A helper registered.
    case helperRegistered(HelperRegistration)
    /// A helper unregistered itself.
    case helperUnregistered(HelperID)
    /// A helper's bus name vanished (NameOwnerChanged). Handled like unregistering.
    case helperLeft(HelperID)
    /// A helper answered a command.
    case helperAnswered(HelperAnswer)
    /// A helper's reply could not be understood (wrong signature, unknown result string, D-Bus
    /// error reply). It counts as failure for the command and is reported as a protocol error.
    case helperAnswerMalformed(CommandToken, helper: HelperID, problem: String)
    /// The daemon's call for a command gave up before the core's deadline timer fired (for example
    /// a D-Bus NoReply). Handled exactly as the deadline passing.
    case helperTimedOut(CommandToken)
    /// A timer the core armed with ``HotspotEffect/armTimer(_:at:)`` fired.
    case timerFired(TimerID)
    /// Logoff was requested for the interface.
    case logoffRequested(InterfaceID, by: LogoffRequester)
    /// The user acted on a UI-required notification; present-ui goes to the chosen helper.
    case presentUIRequested(InterfaceID)
    /// The interface's scan list changed (access points added or removed, a new scan).
    case scanListChanged(InterfaceID, [Network])
    /// The user forgets a network: its cache entries, the exclusions on it and the autoconnect the
    /// core switched off for it are all cleared.
    case forgetNetwork(SSID)
    /// The daemon learned when the interface's captive-portal session ends (RFC 8908
    /// `seconds-remaining`). While authenticated with a chosen helper, the maintain timer is moved
    /// earlier so that maintain runs before the session ends: `lead` = min(60 s, max(2 s, 25 % of
    /// the remaining time)) before it, never sooner than 0.5 s from now. A later expiry never delays
    /// an armed maintain; in any other state the event changes nothing.
    case sessionExpiryLearned(InterfaceID, at: Instant)
    /// The daemon's connectivity check turned to "portal" on the interface. While authenticated
    /// with no chosen helper (none claimed the network, or every one answered none before the
    /// portal showed itself) the helpers are asked again: evaluate, then authenticate, as Apple's
    /// machine does on authentication-required. At most `lateEvaluationLimit` times per association,
    /// so a portal that flaps cannot keep the helpers busy.
    case portalDetected(InterfaceID)
    /// The daemon's checks gave the join its verdict (a definite one, or none for minutes). A
    /// network no helper claimed waits in evaluating for it when `awaitsConnectivityVerdict`;
    /// now it is authenticated (with no helper). In any other state it changes nothing.
    case connectivitySettled(InterfaceID)
    /// The daemon checked the joined link's connectivity. The core reads it as the events above:
    /// ``portalDetected(_:)`` when the published connectivity turned to portal (the edge: not on
    /// every check that says portal again), ``connectivitySettled(_:)`` when settled, and
    /// ``sessionExpiryLearned(_:at:)`` at `now` + the session's remaining time, in that order.
    case connectivityChecked(InterfaceID, LinkCheck)
    /// NetworkManager refused or failed an action the core asked for on the interface (its
    /// ``HotspotEffect/disconnect(_:)``, or an autoconnect change for its connection): the
    /// interface's reason says so, since what the user sees is not what the core decided (still
    /// joined after a disconnect, autoconnect still on). The machine's state is unchanged.
    case networkActionFailed(InterfaceID, NetworkAction, reason: String)
}

/// An action on NetworkManager the core asks for through its effects.
public enum NetworkAction: Hashable, Sendable {
    /// ``HotspotEffect/disconnect(_:)``.
    case disconnect
    /// ``HotspotEffect/enableAutoconnect(_:)`` (true) or ``HotspotEffect/disableAutoconnect(_:)`` (false).
    case setAutoconnect(Bool, ConnectionID)
}
