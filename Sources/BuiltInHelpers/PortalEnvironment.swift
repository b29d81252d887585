// SPDX-License-Identifier: Apache-2.0
import Connectivity
import FoundationEssentials

/// What the built-in helpers need from the daemon about a link: how transfers leave through it
/// and the daemon's connectivity verdict for it. The daemon implements it with its connectivity
/// monitor; tests implement it with a checker on loopback.
public protocol PortalEnvironment: Sendable {
    /// Transfer options for `interface`: bound to it (unless binding is off), resolving through
    /// its DNS servers, with the configured CA file and timeouts.
    func transferOptions(for interface: String) async -> TransferOptions
    /// The connectivity verdict for `interface`: the one being made or a very recent one, or with
    /// `fresh` a new check (after a sign-in, for maintain).
    func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict
    /// The URL the WISPr client starts from (an HTTP probe that is redirected by a gateway), from
    /// the probes in use now (they follow NetworkManager's connectivity setting).
    var wisprProbeURL: String { get async }
    /// The RFC 8908 API `interface` is checked with, if any: a profile's `capport-url`, the one
    /// the network announced in DHCP option 114 (RFC 8910), or the configured one.
    func captivePortalAPI(for interface: String) async -> String?
    /// Where the sign-in's requests go: libcurl on the link (the default), a script in tests.
    var transport: any HTTPTransport { get }
}

extension PortalEnvironment {
    public var transport: any HTTPTransport { CurlTransport() }

    /// No API known (environments that do not learn one).
    public func captivePortalAPI(for interface: String) async -> String? { nil }
}

/// A sign-in's outcome, and what the session needs later.
public struct SignInSession: Sendable, Hashable {
    public var outcome: SignInOutcome
    /// Where to log off (a WISPr gateway's LogoffURL), when the sign-in gave one.
    public var logoffURL: String?
    public init(outcome: SignInOutcome, logoffURL: String? = nil) {
        self.outcome = outcome
        self.logoffURL = logoffURL
    }
}

/// How one sign-in attempt ended.
public enum SignInOutcome: Error, Sendable, Hashable, CustomStringConvertible {
    /// Signed in (or already online); the detail says how.
    case signedIn(String)
    /// The portal refused (wrong credentials, terms not accepted) — a failure.
    case rejected(String)
    /// A person has to act (a form with fields the profile does not fill, no profile).
    case needsUser(String)
    /// Could not be tried now (no portal reachable, transport errors, a RADIUS error).
    case unavailable(String)

    /// Why a sign-in did not happen, for the helper's answer (`reason`); nil once signed in.
    public var reason: String? {
        switch self {
        case .signedIn: nil
        case .rejected(let d), .needsUser(let d), .unavailable(let d): d
        }
    }

    public var description: String {
        switch self {
        case .signedIn(let d): "signed in: \(d)"
        case .rejected(let d): "rejected: \(d)"
        case .needsUser(let d): "needs the user: \(d)"
        case .unavailable(let d): "unavailable: \(d)"
        }
    }
}
