// SPDX-License-Identifier: Apache-2.0
import Connectivity
import NetworkManager

/// Which endpoints the connectivity monitor probes, and whether it probes periodically: privacy
/// by default. Pure; `Daemon` feeds it the configuration and NetworkManager's
/// own connectivity settings, and again whenever NetworkManager's change.
///
/// - `[connectivity] probes=` set: those endpoints, and no other.
/// - otherwise NetworkManager's `ConnectivityCheckUri` when it has one: the machine already
///   tells that endpoint it is online, so the daemon adds no other party. The built-in set
///   (`ConnectivityProbe.defaultSet`, several vendors) only when NetworkManager has no URI, since
///   portal detection needs some endpoint.
/// - `ConnectivityCheckEnabled` false (the system opted out of connectivity checks): no periodic
///   probe. The monitor probes once when a network is joined and while a helper evaluates, signs
///   in or maintains, never on its own schedule.
/// - NetworkManager not saying (not running, too old): as if enabled with no URI, the behaviour
///   before this policy.
public struct ProbePolicy: Sendable, Equatable {
    /// The endpoints to probe.
    public var probes: [ConnectivityProbe]
    /// Whether the monitor re-checks on its schedule while a network stays joined.
    public var periodic: Bool
    /// Where the endpoints come from.
    public var source: Source
    /// What NetworkManager said, for the explanation.
    public var networkManager: NetworkManagerCheck?

    public enum Source: String, Sendable, Equatable {
        case configured, networkManager = "network-manager", builtIn = "built-in"
    }

    /// NetworkManager's connectivity settings (manager properties `ConnectivityCheckEnabled`
    /// and `ConnectivityCheckUri`), as the NetworkManager module reads them.
    public typealias NetworkManagerCheck = ConnectivityCheckSettings

    /// The probe NetworkManager's URI makes: what NetworkManager itself accepts as online
    /// (`X-NetworkManager-Status: online`, its default `response=` text, or an empty 204).
    public static func probe(networkManagerURI uri: String) -> ConnectivityProbe {
        ConnectivityProbe(url: uri, expectation: .anyOf([.header(name: "X-NetworkManager-Status", value: "online"),
                                                          .bodyPrefix("NetworkManager is online"), .status(204)]))
    }

    /// The policy for `configured` (`probes=`, nil when unset) and NetworkManager's settings
    /// (nil when it does not say).
    public static func decide(configured: [ConnectivityProbe]?, networkManager nm: NetworkManagerCheck?) -> ProbePolicy {
        let uri = nm.map { $0.uri.trimmingBlanks } ?? ""
        let usable = uri.lowercased().hasPrefix("http://") || uri.lowercased().hasPrefix("https://")
        let periodic = nm?.enabled ?? true
        if let configured, !configured.isEmpty {
            return ProbePolicy(probes: configured, periodic: periodic, source: .configured, networkManager: nm)
        }
        if usable {
            return ProbePolicy(probes: [probe(networkManagerURI: uri)], periodic: periodic, source: .networkManager, networkManager: nm)
        }
        return ProbePolicy(probes: ConnectivityProbe.defaultSet, periodic: periodic, source: .builtIn, networkManager: nm)
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
}

extension String {
    fileprivate var trimmingBlanks: String { trimmed(self) }
}
