// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Connectivity
import Foundation
import PortalSimulator

@main
struct HotspotPortalSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotspot-portal-sim",
        abstract: "A simulated Wi-Fi hotspot with a captive portal, a connectivity probe and a detection benchmark.",
        discussion: """
        serve (the default) runs an HTTP server that answers any Host header as a captive portal in one of \
        these modes: open, click-through, form, wispr (1.0/2.0, credentials, optional 201 pending), capport \
        (RFC 8908 API at /api/captive with expiring sessions), evasive (some probe hosts answered as online), \
        slow, broken (WISPr quirks), hostile (huge-body, redirect-loop, slow-loris, malformed-xml, \
        malformed-json), get-forms (openNDS-like) and venue (a form a person fills in; --venue picks which: \
        \(VenueForm.allCases.map(\.rawValue).joined(separator: ", "))). With --dns-listen it also answers \
        every DNS A question with --dns-answer, so probe host names lead to it. What clients did is served as JSON at /__sim/events; /__sim/reset forgets \
        sessions and events; /__sim/venue-change changes a venue's form (changing-fields, moving-host; \
        the hotel's guest moves to room 415). It has no TLS: put a TLS terminator in front (tests use socat \
        with a test CA) and pass --https-base.

        probe runs one connectivity check (the Connectivity library) and prints the verdict as JSON. \
        benchmark measures portal detection with four probes where one never answers.
        """,
        subcommands: [Serve.self, Probe.self, Benchmark.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the simulated hotspot (default).")

    @Option(help: "Mode: \(PortalMode.allCases.map(\.rawValue).joined(separator: ", ")) (default: click-through, or venue with --venue).")
    var mode: String?
    @Option(help: ArgumentHelp("venue: whose sign-in form: \(Self.venueHelp)", valueName: "name"))
    var venue: String?
    @Option(help: "HTTP listen address host:port (IPv4; port 0 picks one).")
    var listen: String = "127.0.0.1:8080"
    @Option(help: "Also answer DNS on this host:port (UDP).")
    var dnsListen: String?
    @Option(help: "The IPv4 address every DNS A question is answered with (default: the HTTP host).")
    var dnsAnswer: String?
    @Option(help: "User name accepted by form and wispr (radius-error, no-radius, gateway-error provoke 102, 105, 255).")
    var username: String = "user"
    @Option(help: "Password accepted by form and wispr.")
    var password: String = "secret"
    @Option(help: "WISPr version: 1 or 2.") var wisprVersion: Int = 1
    @Flag(help: "WISPr: answer 201 pending, then 50 on the first poll of LoginResultsURL.") var pending = false
    @Option(help: "capport: session length in seconds.") var sessionSeconds: Int = 60
    @Option(help: "evasive: a host answered as if online (repeatable).") var evasiveHost: [String] = []
    @Option(help: "slow: delay of every answer in milliseconds.") var slowDelayMs: Int = 2000
    @Option(help: "hostile: \(HostileKind.allCases.map(\.rawValue).joined(separator: ", ")).") var hostile: String = HostileKind.hugeBody.rawValue
    @Option(help: "hostile huge-body: body size in bytes.") var hugeBodyBytes: Int = 100 * 1024 * 1024
    @Option(help: "Base of https URLs handed out (user-portal-url), e.g. https://portal.example:8443.") var httpsBase: String?
    @Option(help: "A host that never gets an answer (repeatable).") var blackholeHost: [String] = []
    @Option(help: "A TLS front's address whose X-Forwarded-For header names the client (repeatable).") var trustedProxy: [String] = []
    @Option(help: "Reset every connection of a client for this many seconds after its first (a gateway slow to let a new client through).")
    var refuseSeconds: Double = 0
    @Option(help: "Answer the first N requests of each client --slow-delay-ms late (a gateway building its first pages slowly).")
    var slowFirstRequests: Int = 0
    @Option(help: "Flap: every other period of this many seconds, answer clients not signed in only after --flap-hang-ms.")
    var flapSeconds: Double = 0
    @Option(help: "How late a flapping portal answers, in milliseconds.") var flapHangMs: Int = 8000
    @Option(help: "get-forms: also listen on this port, where the splash page is.") var splashPort: UInt16?
    @Flag(help: "get-forms: the second page asks for a name and an e-mail address.") var detailsForm = false
    @Option(help: "A slow router in front: one request at a time, each answered MIN-MAX seconds late (e.g. 6-10; openNDS on a small router).")
    var slowRouter: String?
    @Option(help: "With --slow-router: reset a client's connections for this many seconds after its first, then intercept.")
    var interceptAfter: Double = 3
    @Flag(help: "With --slow-router: before interception answer nothing at all (connections held open) instead of resetting.")
    var silentBeforeInterception = false
    @Flag(help: "Run the detection benchmark instead (same as the benchmark subcommand).") var benchmark = false

    func run() async throws {
        if benchmark { try await DetectionBenchmark.run(rounds: 5); return }
        let mode = mode ?? (venue == nil ? PortalMode.clickThrough.rawValue : PortalMode.venue.rawValue)
        guard let m = PortalMode(rawValue: mode) else { throw ValidationError("unknown mode '\(mode)' (expected: \(PortalMode.allCases.map(\.rawValue).joined(separator: ", ")))") }
        let form = try Self.venueForm(venue, mode: m)
        guard let h = HostileKind(rawValue: hostile) else { throw ValidationError("unknown hostile kind '\(hostile)'") }
        let (host, port) = try splitHostPort(listen)
        var config = PortalSimulatorConfiguration(mode: m, wisprVersion: wisprVersion, username: username, password: password,
                                                  pending: pending, sessionSeconds: sessionSeconds, slowDelay: .milliseconds(slowDelayMs),
                                                  hostile: h, hugeBodyBytes: hugeBodyBytes, httpsBase: httpsBase, blackholeHosts: blackholeHost)
        if !evasiveHost.isEmpty { config.evasiveHosts = evasiveHost }
        config.trustedProxies = trustedProxy
        config.refuseSeconds = refuseSeconds
        config.slowFirstRequests = slowFirstRequests
        config.flapSeconds = flapSeconds
        config.flapHang = .milliseconds(flapHangMs)
        config.splashPort = splashPort
        config.detailsForm = detailsForm
        config.venue = form
        if let slowRouter {
            let parts = slowRouter.split(separator: "-").compactMap { Double($0) }
            guard let low = parts.first, let high = parts.last, parts.count <= 2, low >= 0, low <= high else {
                throw ValidationError("--slow-router takes seconds or a range MIN-MAX, e.g. 6-10; got '\(slowRouter)'")
            }
            config.slowRouter = SlowRouterSettings(delay: low...high, interceptAfter: interceptAfter, silentBeforeInterception: silentBeforeInterception)
        }
        let sim = PortalSimulator(configuration: config)
        let bound = try await sim.start(host: host, port: port)
        emit("listening on http://\(host):\(bound) mode \(m.rawValue)" + (m == .venue ? " venue \(form.rawValue)" : ""))
        if let dnsListen {
            let (dh, dp) = try splitHostPort(dnsListen)
            let dns = try SimulatorDNS(host: dh, port: dp, answer: dnsAnswer ?? host)
            emit("dns on \(dh):\(dns.port)")
        }
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}

struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run one connectivity check and print the verdict as JSON.")

    @Option(help: "Bind probes to this interface.") var interface: String?
    @Option(help: "A DNS server of that link (repeatable; host or host:port).") var dns: [String] = []
    @Option(help: "A probe: URL, or EXPECT@URL with EXPECT = 204 | contains:TEXT | equals:TEXT | header:NAME:VALUE (repeatable; default: the built-in set).")
    var url: [String] = []
    @Option(help: "Per-probe timeout in milliseconds.") var timeoutMs: Int = 5000
    @Option(help: "An RFC 8908 API URL to query as well.") var capport: String?
    @Option(help: "A PEM CA file to trust instead of the system store.") var caFile: String?

    func run() async throws {
        let probes = try url.isEmpty ? ConnectivityProbe.defaultSet : url.map(parseProbe)
        var transfer = TransferOptions(timeout: .milliseconds(timeoutMs), connectTimeout: .milliseconds(min(timeoutMs, 3000)))
        transfer.caFile = caFile
        let checker = ConnectivityChecker(configuration: ConnectivityConfiguration(probes: probes, transfer: transfer))
        let client = capport.map { CaptivePortalAPIClient(url: $0, options: transfer) }
        let v = await checker.check(interface: interface, dnsServers: dns, capport: client)
        var out: [String: Any] = [
            "state": v.state.rawValue, "reason": v.reason.description, "successes": v.successes, "total": v.total,
            "elapsedMs": Int(Double(v.elapsed.components.seconds) * 1000 + Double(v.elapsed.components.attoseconds) / 1e15),
            "results": v.results.map { ["url": $0.probe.url, "outcome": $0.outcome.rawValue, "reason": $0.reason.description, "detail": $0.detail ?? ""] },
        ]
        if let s = v.signInURL { out["signInURL"] = s }
        if let w = v.wispr?.loginURL { out["wisprLoginURL"] = w }
        if let c = v.capport { out["capportCaptive"] = c.captive; out["secondsRemaining"] = c.secondsRemaining ?? -1 }
        let data = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    func parseProbe(_ s: String) throws -> ConnectivityProbe {
        guard let at = s.range(of: "@http") else { return ConnectivityProbe(url: s, expectation: .status(204)) }
        let spec = String(s[..<at.lowerBound])
        let u = String(s[s.index(after: at.lowerBound)...])
        if spec == "204" || Int(spec) != nil { return ConnectivityProbe(url: u, expectation: .status(Int(spec)!)) }
        if spec.hasPrefix("contains:") { return ConnectivityProbe(url: u, expectation: .bodyContains(String(spec.dropFirst(9)))) }
        if spec.hasPrefix("equals:") { return ConnectivityProbe(url: u, expectation: .bodyEquals(String(spec.dropFirst(7)))) }
        if spec.hasPrefix("header:") {
            let parts = spec.dropFirst(7).split(separator: ":", maxSplits: 1).map(String.init)
            return ConnectivityProbe(url: u, expectation: .header(name: parts[0], value: parts.count > 1 ? parts[1] : ""))
        }
        throw ValidationError("unknown expectation '\(spec)'")
    }
}

struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Portal detection time with four probes where one never answers.")
    @Option(help: "Rounds per scenario.") var rounds: Int = 5
    @Flag(help: "Print the figures as figure<TAB>value<TAB>unit<TAB>baseline<TAB>baseline-unit<TAB>ratio<TAB>goal lines; the rest on stderr.")
    var tsv = false
    func run() async throws { try await DetectionBenchmark.run(rounds: rounds, tsv: tsv) }
}

extension Serve {
    /// Every venue with what its form asks, for --help.
    static var venueHelp: String {
        VenueForm.allCases.map { "\($0.rawValue) (\(venueSummary($0)))" }.joined(separator: "; ") + "."
    }

    static func venueSummary(_ v: VenueForm) -> String {
        switch v {
        case .hotel: "room number and surname: 412 / Martin, 415 after /__sim/venue-change"
        case .voucher: "a voucher code: WIFI-2026"
        case .cafe: "an e-mail address and a terms checkbox"
        case .conference: "full name, e-mail and a badge select"
        case .changingFields: "the hotel's form, its fields renamed after /__sim/venue-change"
        case .otherHost: "the voucher form posting to login.venue-other.test"
        case .movingHost: "the voucher form, posting to another host after /__sim/venue-change"
        case .scripted: "a page that signs in only with scripts"
        case .hostileLabels: "labels with markup and bidi overrides, a 1 MiB placeholder, a password over http"
        case .manyFields: "10,000 fields"
        }
    }

    /// The venue `name` names (the hotel when none is given); only with the venue mode.
    static func venueForm(_ name: String?, mode: PortalMode) throws -> VenueForm {
        guard let name else { return .hotel }
        guard mode == .venue else {
            throw ValidationError("--venue picks the form of --mode venue; leave out --mode \(mode.rawValue) or use --mode venue")
        }
        guard let form = VenueForm(rawValue: name) else {
            throw ValidationError("unknown venue '\(name)' (expected one of: \(VenueForm.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return form
    }
}

func splitHostPort(_ s: String) throws -> (String, UInt16) {
    guard let colon = s.lastIndex(of: ":"), let port = UInt16(s[s.index(after: colon)...]) else {
        throw ValidationError("expected host:port, got '\(s)'")
    }
    return (String(s[..<colon]), port)
}

/// Writes a line to stdout at once (stdout is block-buffered when it is a pipe, and tests wait for
/// these lines).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
