// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

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

        /// A configuration.
        public init(transfer: TransferOptions = TransferOptions(timeout: .seconds(10)), allowPlainHTTPLogin: Bool = false,
                    maxPolls: Int = 5, maxDelay: Duration = .seconds(10), maxRedirects: Int = 5) {
            self.transfer = transfer
            self.allowPlainHTTPLogin = allowPlainHTTPLogin
            self.maxPolls = maxPolls
            self.maxDelay = maxDelay
            self.maxRedirects = maxRedirects
        }
    }

    /// The configuration.
    public var configuration: Configuration

    /// A client.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Fetches `probeURL` (no automatic redirects) and returns the gateway's Redirect message,
    /// following Location hops and Proxy (110) NextURLs until one is found.
    public func discover(probeURL: String, interface: String?, dnsServers: [String]) async -> Result<WISPrMessage, TransferError> {
        var url = probeURL
        for _ in 0...configuration.maxRedirects {
            switch await get(url, interface: interface, dnsServers: dnsServers) {
            case .failure(let e): return .failure(e)
            case .success(let answer):
                if let m = WISPrParser.parse(answer.text) {
                    if m.kind == .proxy || m.messageType == 110, let next = m.nextURL {
                        try? await Task.sleep(for: cappedDelay(m.delay))
                        url = ProbeClassifier.resolve(next, against: url) ?? next
                        continue
                    }
                    return .success(m)
                }
                guard (300...399).contains(answer.status), let loc = answer.header("Location"),
                      let next = ProbeClassifier.resolve(loc, against: url) else {
                    return .failure(TransferError(.other, "no WISPr gateway message at \(url) (HTTP \(answer.status))"))
                }
                url = next
            }
        }
        return .failure(TransferError(.other, "no WISPr gateway message after \(configuration.maxRedirects) redirects"))
    }

    /// Signs in at `gateway`'s LoginURL. `originatingURL` is the URL the user (or probe) wanted.
    public func login(gateway: WISPrMessage, credentials: WISPrCredentials, originatingURL: String,
                      interface: String?, dnsServers: [String]) async -> WISPrLoginResult {
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
        switch await discover(probeURL: probeURL, interface: interface, dnsServers: dnsServers) {
        case .failure(let e): return WISPrLoginResult(outcome: e.kind == .other ? .noGateway : .transport(e.kind), detail: e.detail)
        case .success(let gateway):
            return await login(gateway: gateway, credentials: credentials, originatingURL: probeURL,
                               interface: interface, dnsServers: dnsServers)
        }
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
            switch await HTTPTransfer.perform(current, options: options) {
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
        return await HTTPTransfer.perform(HTTPRequestSpec(url: url), options: options)
    }

    private func cappedDelay(_ seconds: Int?) -> Duration {
        min(.seconds(max(0, seconds ?? 1)), configuration.maxDelay)
    }
}
