// SPDX-License-Identifier: Apache-2.0
import CCurl
import FoundationEssentials
import HotspotCore

/// The hosts a profile's credentials may be sent to (the profile key `login-hosts=`):
/// a WISPr LoginURL, a form's action and every portal redirect before them must be on one of them.
///
/// Each entry is either a host name (or IP address), matched exactly, or `*.example.org`, which
/// matches every name ending in `.example.org` at any depth but not `example.org` itself (list both
/// to allow both). Matching ignores ASCII case, a trailing dot and the port. A wildcard needs at
/// least two labels after `*.` (`*.com` is refused) and `*` may appear nowhere else. The host of a
/// URL is the one libcurl connects to (its own URL parser decides), so a URL cannot name one host
/// to the check and another to the transfer.
public struct LoginHosts: Sendable, Hashable, CustomStringConvertible {
    /// The entries, lowercased: `host` or `*.suffix`.
    public let entries: [String]

    /// Parses `login-hosts=` (entries separated by `;`, blanks around them ignored); the error says
    /// which entry (by position) is wrong and why, without quoting the text.
    public init(parsing text: String) throws(LoginHostsError) {
        var entries: [String] = []
        for (i, raw) in text.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let entry = Self.normalised(String(raw.filter { $0 != " " && $0 != "\t" }))
            if entry.isEmpty { continue }
            if let problem = Self.problem(with: entry) { throw LoginHostsError("entry \(i + 1) \(problem)") }
            entries.append(entry)
        }
        guard !entries.isEmpty else { throw LoginHostsError("names no host") }
        self.entries = entries
    }

    /// Whether `host` is one of the entries.
    public func allows(host: String) -> Bool {
        let h = Self.normalised(host)
        guard !h.isEmpty else { return false }
        return entries.contains { e in
            e.hasPrefix("*.") ? h.hasSuffix(String(e.dropFirst())) && h.count > e.count - 1 : h == e
        }
    }

    /// Whether `url` is http(s) and its host (as libcurl parses it) is one of the entries.
    public func allows(url: String) -> Bool { Self.host(of: url).map(allows(host:)) ?? false }

    /// The host libcurl connects to for an http(s) URL (brackets of an IPv6 literal removed), or nil.
    public static func host(of url: String) -> String? {
        guard let u = curl_url() else { return nil }
        defer { curl_url_cleanup(u) }
        guard curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(u, which, &out, 0) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        guard let scheme = part(CURLUPART_SCHEME)?.lowercased(), scheme == "http" || scheme == "https",
              var host = part(CURLUPART_HOST), !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    public var description: String { entries.joined(separator: ";") }

    static func normalised(_ host: String) -> String {
        var h = String(host.lowercased())
        if h.hasSuffix(".") { h.removeLast() }
        return h
    }

    static func problem(with entry: String) -> String? {
        if IPAddress.isLiteral(entry) { return nil }
        let name = entry.hasPrefix("*.") ? String(entry.dropFirst(2)) : entry
        guard !name.contains("*") else { return "has a '*' that is not a leading '*.' (write *.example.org)" }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 }), name.count <= 253 else { return "is not a host name (an empty or overlong label)" }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }) else {
            return "is not a host name (only letters, digits, '-', '.' and a leading '*.'; no scheme, port or path)"
        }
        if entry.hasPrefix("*.") && labels.count < 2 { return "is a wildcard over a whole top-level domain; name at least two labels (*.example.org)" }
        if entry.hasPrefix("*.") && labels.last?.allSatisfy(\.isNumber) == true { return "is a wildcard over IP addresses; list each address" }
        return nil
    }
}

/// Why `login-hosts=` could not be parsed.
public struct LoginHostsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, without the text.
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A user name and password for a WISPr gateway. Its description never shows the password.
public struct WISPrCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The user name.
    public var username: String
    /// The password.
    public var password: String
    /// Credentials.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
    public var description: String { "WISPrCredentials(username: \(username), password: <redacted>)" }
}

/// How a WISPr sign-in ended.
public struct WISPrLoginResult: Sendable, Hashable {
    /// The outcomes, named after WISPr response codes where there is one.
    public enum Outcome: Sendable, Hashable {
        /// 50: signed in.
        case succeeded
        /// 100: the gateway rejected the credentials.
        case rejected
        /// 102: the RADIUS server failed or timed out.
        case radiusError
        /// 105: the network administrator has no RADIUS for this realm.
        case radiusNotEnabled
        /// 255: the access gateway failed internally.
        case gatewayError
        /// 201 was still the answer after the configured number of polls.
        case pendingTimedOut
        /// No WISPr gateway message was found.
        case noGateway
        /// A reply that is not a login answer (the code, when there was one).
        case unexpectedReply(Int?)
        /// The LoginURL is plain http and `allowPlainHTTPLogin` is off: no credentials were sent.
        case insecureLoginURL
        /// The LoginURL, or a redirect on the way to the gateway's message, is on a host that
        /// `loginHosts` does not name: no credentials were sent.
        case hostNotAllowed
        /// The exchange failed at the transport level.
        case transport(TransferError.Kind)
    }
    /// The outcome.
    public var outcome: Outcome
    /// The last WISPr message received.
    public var reply: WISPrMessage?
    /// The LogoffURL to keep for `logoff` (from the success reply).
    public var logoffURL: String?
    /// A human-readable line; never contains credentials.
    public var detail: String

    /// A result.
    public init(outcome: Outcome, reply: WISPrMessage? = nil, logoffURL: String? = nil, detail: String = "") {
        self.outcome = outcome
        self.reply = reply
        self.logoffURL = logoffURL
        self.detail = detail
    }
}

/// A WISPr 1.0/2.0 smart client: finds the gateway's Redirect, posts the credentials with the form
/// fields real gateways expect, follows 201 pending with polls of LoginResultsURL, and logs off.
public struct WISPrClient: Sendable {
    /// Tuning.
    public struct Configuration: Sendable, Hashable {
        /// Transfer limits; `interface` and `dnsServers` are replaced per call.
        public var transfer: TransferOptions
        /// Send credentials to an http LoginURL. Off by default: a password is only sent over TLS.
        public var allowPlainHTTPLogin: Bool
        /// Polls of LoginResultsURL before giving up on 201.
        public var maxPolls: Int
        /// The longest wait honoured from a gateway's Delay.
        public var maxDelay: Duration
        /// Redirects followed to find a message.
        public var maxRedirects: Int
        /// The only hosts credentials are posted to; the LoginURL and every redirect or NextURL
        /// that led to the gateway's message (after the probe URL) must be on one of them. Nil: any
        /// host (a library caller that checks itself; the profile helper always sets it).
        public var loginHosts: LoginHosts?

        /// A configuration.
        public init(transfer: TransferOptions = TransferOptions(timeout: .seconds(10)), allowPlainHTTPLogin: Bool = false,
                    maxPolls: Int = 5, maxDelay: Duration = .seconds(10), maxRedirects: Int = 5, loginHosts: LoginHosts? = nil) {
            self.loginHosts = loginHosts
            self.transfer = transfer
            self.allowPlainHTTPLogin = allowPlainHTTPLogin
            self.maxPolls = maxPolls
            self.maxDelay = maxDelay
            self.maxRedirects = maxRedirects
        }
    }

    /// The configuration.
    public var configuration: Configuration
    /// Where its requests go (libcurl on the link in the daemon; a script in tests).
    public let transport: any HTTPTransport

    /// A client.
    public init(configuration: Configuration = Configuration(), transport: any HTTPTransport = CurlTransport()) {
        self.configuration = configuration
        self.transport = transport
    }

    /// Fetches `probeURL` (no automatic redirects) and returns the gateway's Redirect message,
    /// following Location hops and Proxy (110) NextURLs until one is found.
    public func discover(probeURL: String, interface: String?, dnsServers: [String]) async -> Result<WISPrMessage, TransferError> {
        await discoverTracing(probeURL: probeURL, interface: interface, dnsServers: dnsServers).map(\.message)
    }

    /// `discover`, with the URLs the gateway sent the client through after the probe URL.
    func discoverTracing(probeURL: String, interface: String?, dnsServers: [String]) async -> Result<(message: WISPrMessage, hops: [String]), TransferError> {
        var url = probeURL
        var hops: [String] = []
        for _ in 0...configuration.maxRedirects {
            switch await get(url, interface: interface, dnsServers: dnsServers) {
            case .failure(let e): return .failure(e)
            case .success(let answer):
                if let m = WISPrParser.parse(answer.text) {
                    if m.kind == .proxy || m.messageType == 110, let next = m.nextURL {
                        try? await Task.sleep(for: cappedDelay(m.delay))
                        url = ProbeClassifier.resolve(next, against: url) ?? next
                        hops.append(url)
                        continue
                    }
                    return .success((m, hops))
                }
                guard (300...399).contains(answer.status), let loc = answer.header("Location"),
                      let next = ProbeClassifier.resolve(loc, against: url) else {
                    return .failure(TransferError(.other, "no WISPr gateway message at \(url) (HTTP \(answer.status))"))
                }
                url = next
                hops.append(url)
            }
        }
        return .failure(TransferError(.other, "no WISPr gateway message after \(configuration.maxRedirects) redirects"))
    }

    /// Signs in at `gateway`'s LoginURL. `originatingURL` is the URL the user (or probe) wanted.
    /// With `loginHosts` set, `hops` (the redirects that led to `gateway`) and the LoginURL must
    /// all be on its hosts, or nothing is sent.
    public func login(gateway: WISPrMessage, credentials: WISPrCredentials, originatingURL: String,
                      interface: String?, dnsServers: [String], via hops: [String] = []) async -> WISPrLoginResult {
        guard let loginURL = gateway.loginURL else {
            return WISPrLoginResult(outcome: .noGateway, reply: gateway, detail: "the gateway message has no LoginURL")
        }
        guard let parts = URLParts(loginURL) else {
            return WISPrLoginResult(outcome: .unexpectedReply(gateway.responseCode), reply: gateway, detail: "LoginURL is not an http(s) URL")
        }
        if parts.scheme != "https" && !configuration.allowPlainHTTPLogin {
            return WISPrLoginResult(outcome: .insecureLoginURL, reply: gateway,
                                    detail: "LoginURL \(loginURL) is not https; credentials were not sent (allowPlainHTTPLogin is off)")
        }
        if let allowed = configuration.loginHosts {
            if let stranger = hops.first(where: { !allowed.allows(url: $0) }) {
                return WISPrLoginResult(outcome: .hostNotAllowed, reply: gateway,
                                        detail: "the gateway's message came through \(Self.hostForLog(stranger)), which login-hosts= does not name; credentials were not sent")
            }
            guard allowed.allows(url: loginURL) else {
                return WISPrLoginResult(outcome: .hostNotAllowed, reply: gateway,
                                        detail: "the LoginURL's host \(Self.hostForLog(loginURL)) is not in login-hosts=; credentials were not sent")
            }
        }
        if let code = gateway.responseCode, code == 105 || code == 255 {
            return result(for: gateway, url: loginURL)
        }
        let form = FormEncoding.body([("UserName", credentials.username), ("Password", credentials.password), ("button", "Login"),
                                      ("FNAME", "0"), ("OriginatingServer", originatingURL)])
        let request = HTTPRequestSpec(url: loginURL, method: "POST",
                                      headers: ["Content-Type: application/x-www-form-urlencoded"], body: Data(form.utf8))
        var reply: WISPrMessage
        switch await fetchReply(request, interface: interface, dnsServers: dnsServers) {
        case .failure(let e): return WISPrLoginResult(outcome: .transport(e.kind), detail: "login at \(loginURL): \(e.kind.rawValue)")
        case .success(nil): return WISPrLoginResult(outcome: .unexpectedReply(nil), detail: "no WISPr reply from \(loginURL)")
        case .success(let m?): reply = m
        }
        var polls = 0
        while reply.responseCode == 201 {
            guard let results = reply.loginResultsURL else {
                return WISPrLoginResult(outcome: .unexpectedReply(201), reply: reply, detail: "201 pending without LoginResultsURL")
            }
            guard polls < configuration.maxPolls else {
                return WISPrLoginResult(outcome: .pendingTimedOut, reply: reply, detail: "still pending after \(polls) polls")
            }
            polls += 1
            try? await Task.sleep(for: cappedDelay(reply.delay))
            let resultsURL = ProbeClassifier.resolve(results, against: loginURL) ?? results
            switch await fetchReply(HTTPRequestSpec(url: resultsURL), interface: interface, dnsServers: dnsServers) {
            case .failure(let e): return WISPrLoginResult(outcome: .transport(e.kind), reply: reply, detail: "poll: \(e.kind.rawValue)")
            case .success(nil): return WISPrLoginResult(outcome: .unexpectedReply(nil), reply: reply, detail: "no WISPr reply from LoginResultsURL")
            case .success(let m?): reply = m
            }
        }
        return result(for: reply, url: loginURL)
    }

    /// Discovers the gateway from `probeURL` and signs in.
    public func login(probeURL: String, credentials: WISPrCredentials, interface: String?, dnsServers: [String]) async -> WISPrLoginResult {
        switch await discoverTracing(probeURL: probeURL, interface: interface, dnsServers: dnsServers) {
        case .failure(let e): return WISPrLoginResult(outcome: e.kind == .other ? .noGateway : .transport(e.kind), detail: e.detail)
        case .success(let found):
            return await login(gateway: found.message, credentials: credentials, originatingURL: probeURL,
                               interface: interface, dnsServers: dnsServers, via: found.hops)
        }
    }

    /// The host of an untrusted URL, bounded and escaped for a message.
    static func hostForLog(_ url: String) -> String {
        "'" + UntrustedText.forLog(LoginHosts.host(of: url) ?? url) + "'"
    }

    /// Logs off at a LogoffURL kept from a successful login; true when the gateway answered
    /// LogoffReply 150 (or any 2xx without a message).
    public func logoff(logoffURL: String, interface: String?, dnsServers: [String]) async -> Bool {
        switch await get(logoffURL, interface: interface, dnsServers: dnsServers) {
        case .failure: return false
        case .success(let answer):
            if let m = WISPrParser.parse(answer.text) { return m.responseCode == 150 }
            return (200...299).contains(answer.status)
        }
    }

    func result(for reply: WISPrMessage, url: String) -> WISPrLoginResult {
        let text = reply.replyMessage.map { ": \($0)" } ?? ""
        switch reply.responseCode {
        case 50:
            return WISPrLoginResult(outcome: .succeeded, reply: reply, logoffURL: reply.logoffURL, detail: "login succeeded")
        case 100: return WISPrLoginResult(outcome: .rejected, reply: reply, detail: "login rejected (100)\(text)")
        case 102: return WISPrLoginResult(outcome: .radiusError, reply: reply, detail: "RADIUS server error or timeout (102)\(text)")
        case 105: return WISPrLoginResult(outcome: .radiusNotEnabled, reply: reply, detail: "network administrator error: RADIUS not enabled (105)\(text)")
        case 255: return WISPrLoginResult(outcome: .gatewayError, reply: reply, detail: "access gateway internal error (255)\(text)")
        default:
            return WISPrLoginResult(outcome: .unexpectedReply(reply.responseCode), reply: reply,
                                    detail: "unexpected WISPr reply \(reply.messageType.map(String.init) ?? "?")/\(reply.responseCode.map(String.init) ?? "?")")
        }
    }

    private func fetchReply(_ request: HTTPRequestSpec, interface: String?, dnsServers: [String]) async -> Result<WISPrMessage?, TransferError> {
        var options = configuration.transfer
        options.interface = interface
        options.dnsServers = dnsServers
        var current = request
        for _ in 0...configuration.maxRedirects {
            switch await transport.perform(current, options: options) {
            case .failure(let e): return .failure(e)
            case .success(let answer):
                if let m = WISPrParser.parse(answer.text) { return .success(m) }
                guard (300...399).contains(answer.status), let loc = answer.header("Location"),
                      let next = ProbeClassifier.resolve(loc, against: current.url) else { return .success(nil) }
                current = HTTPRequestSpec(url: next)
            }
        }
        return .success(nil)
    }

    private func get(_ url: String, interface: String?, dnsServers: [String]) async -> Result<HTTPAnswer, TransferError> {
        var options = configuration.transfer
        options.interface = interface
        options.dnsServers = dnsServers
        return await transport.perform(HTTPRequestSpec(url: url), options: options)
    }

    private func cappedDelay(_ seconds: Int?) -> Duration {
        min(.seconds(max(0, seconds ?? 1)), configuration.maxDelay)
    }
}
