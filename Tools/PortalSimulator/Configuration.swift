// SPDX-License-Identifier: Apache-2.0
import Foundation

/// How the simulated hotspot behaves.
public enum PortalMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// No portal: every probe gets its expected answer.
    case open
    /// Probes are redirected to a terms page; POST /portal/accept with accept=yes signs in.
    case clickThrough = "click-through"
    /// Probes are redirected to /login; POST /login with `username` and `password` signs in.
    case form
    /// A WISPr 1.0 (or 2.0) gateway: Redirect in the 302 body; POST UserName/Password to LoginURL.
    case wispr
    /// An RFC 8908 API at /api/captive with a session of `sessionSeconds` that expires.
    case capport
    /// Click-through, but `evasiveHosts` get online answers (a portal that whitelists probe hosts).
    case evasive
    /// Click-through, every answer delayed by `slowDelay`.
    case slow
    /// A WISPr gateway with the real-world quirks (broken closing tag, unquoted attribute,
    /// line-wrapped tags, bare XML, `&amp;` in URLs).
    case broken
    /// Hostile answers chosen by `hostile`.
    case hostile
    /// An openNDS-like gateway: probes get a 307 to a splash page on `splashPort` with the
    /// session's state in a long query string; a GET form ("Continue") leads to a second page
    /// with another GET form, whose submission signs in and redirects to a meta refresh. With
    /// `detailsForm`, the second page asks for a name and an e-mail address (POST) instead.
    case getForms = "get-forms"
    /// A venue's sign-in form a person fills in (hotel, voucher, café, conference…), chosen by
    /// `venue` (Venues.swift).
    case venue
}

/// What a hostile portal does.
public enum HostileKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// A 200 with a body of `hugeBodyBytes` (100 MB by default).
    case hugeBody = "huge-body"
    /// 302 to /loop/N+1, forever.
    case redirectLoop = "redirect-loop"
    /// A 200 whose body trickles out one byte per second.
    case slowLoris = "slow-loris"
    /// A 200 with broken WISPr XML.
    case malformedXML = "malformed-xml"
    /// Click-through probes and an RFC 8908 API answering garbage JSON.
    case malformedJSON = "malformed-json"
    /// Every request answered with a 64 KiB terms page: one form whose single `<label>` holds
    /// 9,300 `<input>`s (a shape that once cost the form reader quadratic work).
    case hugeForm = "huge-form"
}

/// The simulator's settings.
public struct PortalSimulatorConfiguration: Sendable, Hashable {
    /// The mode.
    public var mode: PortalMode
    /// WISPr version for `wispr` and `broken`: 1 or 2.
    public var wisprVersion: Int
    /// The credentials the form and WISPr modes accept. User names "radius-error", "no-radius" and
    /// "gateway-error" provoke WISPr replies 102, 105 and 255.
    public var username: String
    /// See `username`.
    public var password: String
    /// WISPr: answer 201 pending and sign in on the first poll of LoginResultsURL.
    public var pending: Bool
    /// The capport session length in seconds.
    public var sessionSeconds: Int
    /// Hosts (Host header, without port) that `evasive` answers as if online.
    public var evasiveHosts: [String]
    /// The delay of `slow`.
    public var slowDelay: Duration
    /// The kind of `hostile`.
    public var hostile: HostileKind
    /// The body size of `huge-body`.
    public var hugeBodyBytes: Int
    /// Base of https URLs the simulator hands out (user-portal-url), e.g. "https://portal.example:8443",
    /// when TLS is terminated in front of it; default: "https://" + the request's Host.
    public var httpsBase: String?
    /// Hosts that never get an answer (the connection stays open): a dead probe endpoint.
    public var blackholeHosts: [String]
    /// Peers (a TLS front on another address) whose `X-Forwarded-For` names the real client, so
    /// sessions follow the client's address as it would behind a real portal's TLS terminator.
    public var trustedProxies: [String] = []
    /// A gateway that adds a new client to its firewall only a while after its first packet:
    /// every connection from a client is reset (TCP RST, no answer) for this long after its first
    /// one. Zero: never.
    public var refuseSeconds: Double = 0
    /// A gateway that builds its first pages slowly: the first this many requests of each client
    /// are answered `slowDelay` late.
    public var slowFirstRequests: Int = 0
    /// A portal that flaps: for `flapSeconds` out of every `2 × flapSeconds`, requests of clients
    /// not signed in are answered only after `flapHang` (longer than a probe waits). Zero: never.
    public var flapSeconds: Double = 0
    /// How late a flapping portal answers.
    public var flapHang: Duration = .seconds(8)
    /// get-forms: the port of the splash page (the simulator listens there too); nil: the main port.
    public var splashPort: UInt16?
    /// get-forms: the second page asks for a name and an e-mail address.
    public var detailsForm = false
    /// venue: which venue's form.
    public var venue = VenueForm.hotel
    /// venue: flipped by a test, the form changes (field names, host).
    public var venueSwitch = VenueSwitch()
    /// A slow router in front of the portal (``SlowRouterSettings``): one request at a time,
    /// each answered seconds late, interception starting a while after the first packet. Nil: none.
    public var slowRouter: SlowRouterSettings?

    /// A configuration; every mode works with the defaults.
    public init(mode: PortalMode = .clickThrough, wisprVersion: Int = 1, username: String = "user", password: String = "secret",
                pending: Bool = false, sessionSeconds: Int = 60, evasiveHosts: [String] = ["connectivitycheck.gstatic.com", "captive.apple.com"],
                slowDelay: Duration = .seconds(2), hostile: HostileKind = .hugeBody, hugeBodyBytes: Int = 100 * 1024 * 1024,
                httpsBase: String? = nil, blackholeHosts: [String] = []) {
        self.mode = mode
        self.wisprVersion = wisprVersion
        self.username = username
        self.password = password
        self.pending = pending
        self.sessionSeconds = sessionSeconds
        self.evasiveHosts = evasiveHosts
        self.slowDelay = slowDelay
        self.hostile = hostile
        self.hugeBodyBytes = hugeBodyBytes
        self.httpsBase = httpsBase
        self.blackholeHosts = blackholeHosts
    }
}

/// One thing a client did, as the simulator saw it. Credentials are never recorded: a login
/// event names the fields that were posted and whether they matched.
public struct SimulatorEvent: Sendable, Hashable, Codable {
    /// Seconds since the simulator started.
    public var time: Double
    /// The client's IP address.
    public var client: String
    /// The method.
    public var method: String
    /// The Host header without port.
    public var host: String
    /// The path.
    public var path: String
    /// What it was: probe-online, probe-portal, portal-page, accepted, refused, login-ok, login-failed,
    /// login-pending, poll, logoff, capport-api, extend, hostile, blackhole.
    public var kind: String
    /// Details (field names posted, WISPr codes sent).
    public var detail: String
}
