// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Synchronization
import SystemSupport

/// The state an RFC 8908 Captive Portal API reports.
public struct CaptivePortalStatus: Sendable, Hashable {
    /// `captive`: true while the client has not satisfied the portal's conditions.
    public var captive: Bool
    /// `user-portal-url` (https).
    public var userPortalURL: String?
    /// `venue-info-url`.
    public var venueInfoURL: String?
    /// `seconds-remaining` (dropped while captive).
    public var secondsRemaining: Int64?
    /// `bytes-remaining` (dropped while captive).
    public var bytesRemaining: Int64?
    /// `can-extend-session`.
    public var canExtendSession: Bool?

    /// A state.
    public init(captive: Bool, userPortalURL: String? = nil, venueInfoURL: String? = nil, secondsRemaining: Int64? = nil,
                bytesRemaining: Int64? = nil, canExtendSession: Bool? = nil) {
        self.captive = captive
        self.userPortalURL = userPortalURL
        self.venueInfoURL = venueInfoURL
        self.secondsRemaining = secondsRemaining
        self.bytesRemaining = bytesRemaining
        self.canExtendSession = canExtendSession
    }
}

/// Why an RFC 8908 answer was not used.
public struct CaptivePortalAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds.
    public enum Kind: String, Sendable, Hashable {
        /// The body is not a JSON object.
        case notJSON
        /// `captive` is absent or not a boolean.
        case missingCaptive
        /// A key has the wrong JSON type.
        case wrongType
        /// A URL is not https (user-portal-url) or not a valid http(s) URL (venue-info-url).
        case invalidURL
        /// `captive` is true without a user-portal-url.
        case missingPortalURL
        /// `seconds-remaining` or `bytes-remaining` is negative.
        case negativeRemaining
        /// The API URL is not https, so it must not be used.
        case insecureAPIURL
        /// The answer is not 200 or not `application/captive+json`.
        case badResponse
        /// The request failed (DNS, TLS including certificate checks, timeout, refused).
        case transport
    }
    /// The kind.
    public var kind: Kind
    /// Details for a person.
    public var detail: String
    /// An error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }
    public var description: String { "\(kind.rawValue): \(detail)" }
}

/// Parses RFC 8908 API documents. Every key is read; unknown keys are ignored; a document that
/// breaks a rule is rejected whole with the reason. Pure.
public enum CaptivePortalAPIDocument {
    /// The largest document accepted (Android reads at most 4 096 characters; we allow 64 KiB).
    public static let maxLength = 64 * 1024

    /// Parses `data`.
    public static func parse(_ data: Data) -> Result<CaptivePortalStatus, CaptivePortalAPIError> {
        guard data.count <= maxLength else { return .failure(CaptivePortalAPIError(.notJSON, "document larger than \(maxLength) bytes")) }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data), case .object(let o) = value else {
            return .failure(CaptivePortalAPIError(.notJSON, "the body is not a JSON object"))
        }
        guard let c = o["captive"] else { return .failure(CaptivePortalAPIError(.missingCaptive, "the required key 'captive' is missing")) }
        guard case .bool(let captive) = c else { return .failure(CaptivePortalAPIError(.missingCaptive, "'captive' is not a boolean")) }
        var status = CaptivePortalStatus(captive: captive)
        switch o["user-portal-url"] {
        case nil, .null?: break
        case .string(let s)?:
            guard isURL(s, schemes: ["https"]) else {
                return .failure(CaptivePortalAPIError(.invalidURL, "user-portal-url must be an https URL, got '\(s)'"))
            }
            status.userPortalURL = s
        default: return .failure(CaptivePortalAPIError(.wrongType, "user-portal-url is not a string"))
        }
        switch o["venue-info-url"] {
        case nil, .null?: break
        case .string(let s)?:
            guard isURL(s, schemes: ["https", "http"]) else {
                return .failure(CaptivePortalAPIError(.invalidURL, "venue-info-url is not a valid URL: '\(s)'"))
            }
            status.venueInfoURL = s
        default: return .failure(CaptivePortalAPIError(.wrongType, "venue-info-url is not a string"))
        }
        switch o["can-extend-session"] {
        case nil, .null?: break
        case .bool(let b)?: status.canExtendSession = b
        default: return .failure(CaptivePortalAPIError(.wrongType, "can-extend-session is not a boolean"))
        }
        for key in ["seconds-remaining", "bytes-remaining"] {
            switch o[key] {
            case nil, .null?: continue
            case .number(let n)?:
                guard n >= 0 else { return .failure(CaptivePortalAPIError(.negativeRemaining, "\(key) is negative (\(n))")) }
                guard n.isFinite, n < 9.2e18 else { return .failure(CaptivePortalAPIError(.wrongType, "\(key) is out of range")) }
                if key == "seconds-remaining" { status.secondsRemaining = Int64(n) } else { status.bytesRemaining = Int64(n) }
            default: return .failure(CaptivePortalAPIError(.wrongType, "\(key) is not a number"))
            }
        }
        if captive {
            guard status.userPortalURL != nil else {
                return .failure(CaptivePortalAPIError(.missingPortalURL, "captive is true but there is no user-portal-url"))
            }
            status.secondsRemaining = nil
            status.bytesRemaining = nil
        }
        return .success(status)
    }

    static func isURL(_ s: String, schemes: Set<String>) -> Bool {
        guard let c = URLComponents(string: s), let scheme = c.scheme?.lowercased(), schemes.contains(scheme),
              let host = c.host, !host.isEmpty else { return false }
        return true
    }
}

/// A JSON value, decoded without Foundation's number/boolean ambiguity.
enum JSONValue: Decodable, Hashable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }
}

/// When to run maintain so that it comes before `seconds-remaining` runs out, instead of blindly
/// every 300 s. Pure.
public enum MaintainSchedule {
    /// The delay from `elapsedSinceAnswer` after an answer with `status` until maintain should run:
    /// `lead` = min(60 s, max(2 s, 25 % of the remaining time)) before expiry, never later than
    /// `fallback`, never sooner than 0.5 s. Without `seconds-remaining`: `fallback`.
    public static func delay(for status: CaptivePortalStatus, elapsedSinceAnswer: Duration = .zero,
                             fallback: Duration = .seconds(300)) -> Duration {
        guard !status.captive, let seconds = status.secondsRemaining else { return fallback }
        let remaining = Duration.seconds(seconds) - elapsedSinceAnswer
        let lead = min(.seconds(60), max(.seconds(2), remaining / 4))
        return min(fallback, max(.milliseconds(500), remaining - lead))
    }
}

/// What one RFC 8908 query gave.
public struct CaptivePortalAPIAnswer: Sendable, Hashable {
    /// The state to apply: this answer when valid, else the last valid one (RFC 8908 §5), else nil.
    public var status: CaptivePortalStatus?
    /// True when `status` came from this query.
    public var isFresh: Bool
    /// Why this query's answer was not used.
    public var error: CaptivePortalAPIError?
    /// When the applied status was received.
    public var receivedAt: ContinuousClock.Instant?
}

/// An RFC 8908 client for one API URL: HTTPS only with certificate checks (the system store, or
/// `caFile` in tests), `Accept: application/captive+json`, and the last valid answer kept when the
/// API misbehaves.
public final class CaptivePortalAPIClient: Sendable {
    /// The API URL (from a profile, the configuration, or the network).
    public let url: String
    private let options: TransferOptions
    private let transport: any HTTPTransport
    private let lastValid = Mutex<(CaptivePortalStatus, ContinuousClock.Instant)?>(nil)

    /// A client for `url`; `options` give the timeouts and `caFile` (interface and DNS come per fetch).
    public init(url: String, options: TransferOptions = TransferOptions(maxBodyBytes: 64 * 1024), transport: any HTTPTransport = CurlTransport()) {
        self.url = url
        self.transport = transport
        var o = options
        o.maxBodyBytes = min(o.maxBodyBytes, CaptivePortalAPIDocument.maxLength + 1)
        self.options = o
    }

    /// The last valid state and when it arrived.
    public var lastValidStatus: (status: CaptivePortalStatus, receivedAt: ContinuousClock.Instant)? {
        lastValid.withLock { $0.map { (status: $0.0, receivedAt: $0.1) } }
    }

    /// Queries the API through `interface`, resolving through `dnsServers`.
    public func fetch(interface: String?, dnsServers: [String]) async -> CaptivePortalAPIAnswer {
        guard URLParts(url)?.scheme == "https" else {
            return stale(CaptivePortalAPIError(.insecureAPIURL, "the API URL \(url) is not https; it is not used"))
        }
        var o = options
        o.interface = interface
        o.dnsServers = dnsServers
        let result = await transport.perform(HTTPRequestSpec(url: url, headers: ["Accept: application/captive+json"]), options: o)
        switch result {
        case .failure(let e):
            return stale(CaptivePortalAPIError(.transport, "\(url): \(e.description)"))
        case .success(let answer):
            guard answer.status == 200 else { return stale(CaptivePortalAPIError(.badResponse, "\(url): HTTP \(answer.status)")) }
            let type = answer.header("Content-Type")?.split(separator: ";").first?.trimmingWhitespace.lowercased()
            guard type == "application/captive+json" || type == "application/json" else {
                return stale(CaptivePortalAPIError(.badResponse, "\(url): Content-Type \(type ?? "none"), expected application/captive+json"))
            }
            guard !answer.bodyTruncated else { return stale(CaptivePortalAPIError(.notJSON, "\(url): document too large")) }
            switch CaptivePortalAPIDocument.parse(answer.body) {
            case .failure(let e): return stale(e)
            case .success(let status):
                let now = ContinuousClock.now
                lastValid.withLock { $0 = (status, now) }
                return CaptivePortalAPIAnswer(status: status, isFresh: true, error: nil, receivedAt: now)
            }
        }
    }

    /// Forgets the last valid answer (a new attachment: the API may differ).
    public func reset() { lastValid.withLock { $0 = nil } }

    private func stale(_ error: CaptivePortalAPIError) -> CaptivePortalAPIAnswer {
        let last = lastValid.withLock { $0 }
        return CaptivePortalAPIAnswer(status: last?.0, isFresh: false, error: error, receivedAt: last?.1)
    }
}
