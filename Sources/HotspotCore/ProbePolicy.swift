// SPDX-License-Identifier: Apache-2.0
/// An endpoint the connectivity monitor may probe, as ``ProbePolicy`` chooses among them (the
/// daemon's `ConnectivityProbe`).
public protocol ProbeEndpoint: Sendable, Equatable {
    /// The URL probed, http or https.
    var url: String { get }
    /// The built-in set (several vendors), for when neither the configuration nor NetworkManager
    /// names an endpoint.
    static var builtInSet: [Self] { get }
    /// The probe NetworkManager's `ConnectivityCheckUri` makes: what NetworkManager itself
    /// accepts as online.
    static func networkManagerProbe(uri: String) -> Self
}

/// NetworkManager's connectivity settings (manager properties `ConnectivityCheckEnabled` and
/// `ConnectivityCheckUri`).
public struct NetworkManagerCheck: Sendable, Equatable {
    /// Whether NetworkManager's check is enabled (the system has not opted out).
    public var enabled: Bool
    /// The URI it probes; empty when none is configured.
    public var uri: String

    public init(enabled: Bool, uri: String) {
        self.enabled = enabled
        self.uri = uri
    }
}

/// Which endpoints the connectivity monitor probes, and whether it probes periodically: privacy
/// by default. Pure; the daemon feeds it the configuration and NetworkManager's own connectivity
/// settings, and again whenever NetworkManager's change.
///
/// - `[connectivity] probes=` set: those endpoints, and no other.
/// - otherwise NetworkManager's `ConnectivityCheckUri` when it has one: the machine already
///   tells that endpoint it is online, so the daemon adds no other party. The built-in set
///   (several vendors) only when NetworkManager has no URI, since portal detection needs some
///   endpoint.
/// - `ConnectivityCheckEnabled` false (the system opted out of connectivity checks): no periodic
///   probe. The monitor probes once when a network is joined and while a helper evaluates, signs
///   in or maintains, never on its own schedule.
/// - NetworkManager not saying (not running, too old): as if enabled with no URI.
public struct ProbePolicy<Probe: ProbeEndpoint>: Sendable, Equatable {
    /// The endpoints to probe.
    public var probes: [Probe]
    /// Whether the monitor re-checks on its schedule while a network stays joined.
    public var periodic: Bool
    /// Where the endpoints come from.
    public var source: ProbePolicySource
    /// What NetworkManager said, for the explanation.
    public var networkManager: NetworkManagerCheck?

    public typealias Source = ProbePolicySource

    public init(probes: [Probe], periodic: Bool, source: ProbePolicySource, networkManager: NetworkManagerCheck?) {
        self.probes = probes
        self.periodic = periodic
        self.source = source
        self.networkManager = networkManager
    }

    /// The probe NetworkManager's URI makes.
    public static func probe(networkManagerURI uri: String) -> Probe { Probe.networkManagerProbe(uri: uri) }

    /// The policy for `configured` (`probes=`, nil when unset) and NetworkManager's settings
    /// (nil when it does not say).
    public static func decide(configured: [Probe]?, networkManager nm: NetworkManagerCheck?) -> ProbePolicy {
        let uri = nm.map { blanksTrimmed($0.uri) } ?? ""
        let usable = uri.lowercased().hasPrefix("http://") || uri.lowercased().hasPrefix("https://")
        let periodic = nm?.enabled ?? true
        if let configured, !configured.isEmpty {
            return ProbePolicy(probes: configured, periodic: periodic, source: .configured, networkManager: nm)
        }
        if usable {
            return ProbePolicy(probes: [probe(networkManagerURI: uri)], periodic: periodic, source: .networkManager, networkManager: nm)
        }
        return ProbePolicy(probes: Probe.builtInSet, periodic: periodic, source: .builtIn, networkManager: nm)
    }

    /// One line for `hotspotctl status` and the journal: the endpoints and why.
    public var explanation: String {
        let urls = probes.map(\.url).joined(separator: ", ")
        let whence: String
        switch source {
        case .configured: whence = "[connectivity] probes="
        case .networkManager: whence = "NetworkManager's ConnectivityCheckUri"
        case .builtIn: whence = networkManager == nil ? "built-in set; NetworkManager does not say how it checks"
                                                      : "built-in set; NetworkManager has no ConnectivityCheckUri"
        }
        let when = periodic ? "periodic checks" : "NetworkManager's connectivity check is off: probing only while joining, evaluating or signing in"
        return "probes: \(urls) (\(whence); \(when))"
    }

    /// Spaces and tabs removed from both ends.
    private static func blanksTrimmed(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[first...last])
    }
}

/// Where a ``ProbePolicy``'s endpoints come from.
public enum ProbePolicySource: String, Sendable, Equatable {
    case configured, networkManager = "network-manager", builtIn = "built-in"
}
