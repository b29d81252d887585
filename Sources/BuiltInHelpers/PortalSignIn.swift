// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore
import FoundationEssentials

/// Signs in to a captive portal with a profile's method: accepts terms, fills forms, runs the
/// WISPr smart client, or follows an RFC 8908 API's user portal. Details never contain a secret.
public struct PortalSignIn: Sendable {
    /// Where the helper runs.
    public let environment: any PortalEnvironment
    /// The longest a meta refresh's delay is waited for (a browser waits it out; a fuzzer cannot).
    public let longestRefreshWait: Duration

    /// A sign-in runner.
    public init(environment: any PortalEnvironment, longestRefreshWait: Duration = .seconds(5)) {
        self.environment = environment
        self.longestRefreshWait = longestRefreshWait
    }

    /// Signs in on `interface` behind the portal of `verdict` with `method`. With `plainHTTPLogin`
    /// (the profile's `plain-http-login=true`) its credentials may go over plain http; steps
    /// that carry none (a terms page) may always.
    public func signIn(_ method: SignInMethod, interface: String, verdict: ProbeVerdict, plainHTTPLogin: Bool = false) async -> SignInOutcome {
        await session(method, interface: interface, verdict: verdict, plainHTTPLogin: plainHTTPLogin).outcome
    }

    /// ``signIn(_:interface:verdict:plainHTTPLogin:)``, with what the session needs later: the
    /// WISPr gateway's logoff URL, as a value of its own.
    public func session(_ method: SignInMethod, interface: String, verdict: ProbeVerdict, plainHTTPLogin: Bool = false) async -> SignInSession {
        switch method {
        case .none:
            return SignInSession(outcome: .needsUser("the profile has no sign-in method"))
        case .clickThrough:
            guard let url = verdict.signInURL else { return SignInSession(outcome: .unavailable("the portal gave no sign-in page")) }
            return SignInSession(outcome: await acceptTerms(at: url, interface: interface, requireClickThrough: false))
        case .form(let formURL, let fields, let hosts):
            guard let hosts else { return SignInSession(outcome: Self.noLoginHosts) }
            guard let url = formURL ?? verdict.signInURL else { return SignInSession(outcome: .unavailable("the portal gave no sign-in page")) }
            // A portal that answers a probe in place (511, its page instead of the probe's answer)
            // names no host of its own: that page's URL is our probe's, not a stranger's redirect.
            let answeredProbe = formURL == nil && verdict.results.contains { $0.probe.url == url }
            return SignInSession(outcome: await submitForm(pageURL: url, postDirectly: formURL != nil, fields: fields, loginHosts: hosts,
                                                           interface: interface, pageIsProbe: answeredProbe, plainHTTPLogin: plainHTTPLogin))
        case .wispr(let credentials, let hosts):
            guard let hosts else { return SignInSession(outcome: Self.noLoginHosts) }
            return await wispr(credentials, loginHosts: hosts, interface: interface, verdict: verdict, plainHTTPLogin: plainHTTPLogin)
        case .capport(let apiURL):
            return SignInSession(outcome: await capport(apiURL: apiURL, interface: interface, verdict: verdict, extending: false))
        }
    }

    /// Extends an RFC 8908 session (maintain before `seconds-remaining` runs out) by accepting its
    /// user portal's form again.
    public func extendSession(apiURL: String, interface: String, verdict: ProbeVerdict) async -> SignInOutcome {
        await capport(apiURL: apiURL, interface: interface, verdict: verdict, extending: true)
    }

    /// A profile with credentials but no `login-hosts=` sends none.
    static let noLoginHosts = SignInOutcome.needsUser(
        "the profile has credentials but no login-hosts=, so none were sent; add login-hosts= naming the portal's sign-in hosts (docs/CONNECTIVITY.md)")

    /// The refusal when `url` (a sign-in page, a redirect to it, a form's action) is on a host the
    /// profile does not name.
    static func strangerHost(_ url: String, _ what: String) -> SignInOutcome {
        .rejected("\(what) is on host '\(UntrustedText.forLog(LoginHosts.host(of: url) ?? url))', which login-hosts= does not name; credentials were not sent")
    }

    // MARK: - Methods

    /// The most forms one sign-in submits: real portals chain a terms page, a details page and a
    /// confirmation, rarely more.
    static let maxFormSteps = 4

    /// What one sign-in may send, and where.
    struct Chain {
        /// The profile's fields (none for terms pages).
        var fields: [FormField] = []
        /// With credentials, the only hosts a page, a redirect or a form's target may be on.
        var loginHosts: LoginHosts?
        /// Whether the profile lets its fields go over plain http.
        var plainHTTPLogin = false
        /// Leave to the user any form that asks for something typed (the portal helper).
        var requireClickThrough = false
    }

    /// Accepts a terms page: its one form, with only the boxes it requires ticked, and the forms
    /// that follow it (``maxFormSteps``). A page with more than one candidate form, or a form with
    /// fields only a person can fill, is left to the user. With `requireClickThrough`, a form that
    /// asks for anything typed is left to the user. No credentials are involved, so plain http is fine.
    public func acceptTerms(at url: String, interface: String, requireClickThrough: Bool) async -> SignInOutcome {
        let page: HTTPAnswer
        switch await fetchPage(url, interface: interface) {
        case .success(let a): page = a
        case .failure(let outcome): return outcome
        }
        return await follow(from: page, chain: Chain(requireClickThrough: requireClickThrough), interface: interface)
    }

    /// Fills and submits the profile's fields, going through the forms before and after the one
    /// that takes them (a terms page first, a confirmation after). The sign-in page, every
    /// redirect on the way and every form's target must be on `loginHosts`: a page that came from
    /// another host is a stranger's page, whatever its form says.
    func submitForm(pageURL: String, postDirectly: Bool, fields: [FormField], loginHosts: LoginHosts, interface: String,
                    pageIsProbe: Bool = false, plainHTTPLogin: Bool = false) async -> SignInOutcome {
        let chain = Chain(fields: fields, loginHosts: loginHosts, plainHTTPLogin: plainHTTPLogin)
        if postDirectly {
            let form = HTMLForm(action: pageURL, method: "POST", controls: [])
            switch await submit(form, page: HTTPAnswer(status: 200, url: pageURL), filling: fields, chain: chain, interface: interface) {
            case .success(let (next, detail)): return await follow(from: next, chain: chain, interface: interface, submitted: 1, detail: detail)
            case .failure(let outcome): return outcome
            }
        }
        let page: HTTPAnswer
        switch await fetchPage(pageURL, interface: interface, loginHosts: loginHosts, firstIsProbe: pageIsProbe) {
        case .success(let a): page = a
        case .failure(let outcome): return outcome
        }
        return await follow(from: page, chain: chain, interface: interface)
    }

    /// Submits the page's form, then each form the answer leads to, until a page with no form to
    /// go through, the link online, or ``maxFormSteps`` forms. The profile's fields go only into
    /// a form that names one of them; every other step is a terms page, submitted as it is.
    func follow(from first: HTTPAnswer, chain: Chain, interface: String, submitted already: Int = 0, detail previous: String = "") async -> SignInOutcome {
        var page = first
        var detail = previous
        var steps = already
        let names = Set(chain.fields.map(\.name))
        var filled = already > 0 && !names.isEmpty
        while steps < Self.maxFormSteps {
            let forms = HTMLFormReader.forms(in: [UInt8](page.body)).filter { !Self.isLogoff($0) }
            if steps > 0 {
                // After a submission: a page without a form is the end; so is the link being online
                // (a welcome page may carry a form of its own: a search box, a survey). A form that
                // asks for the profile's fields, not sent yet, is the sign-in itself: no check
                // before it (at a gateway serving one request at a time, one costs an answer's wait).
                if !forms.contains(where: { $0.controls.contains { !$0.disabled } }) { return .signedIn(detail) }
                let asksForOurs = !filled && forms.contains { $0.controls.contains { names.contains($0.name) } }
                if !asksForOurs, await environment.verdict(for: interface, fresh: true).state == .online { return .signedIn(detail) }
            }
            let form: HTMLForm
            switch Self.choose(forms, filling: chain.fields, page: page.url) {
            case .success(let f): form = f
            case .failure(let outcome): return outcome
            }
            let filling = form.controls.contains { names.contains($0.name) } ? chain.fields : []
            if !filling.isEmpty { filled = true }
            // The profile's fields go only into a page its login hosts served (the first one was
            // checked on the way in).
            if !filling.isEmpty, steps > 0, let hosts = chain.loginHosts, !hosts.allows(url: page.url) {
                return Self.strangerHost(page.url, "a page the sign-in led to")
            }
            if chain.requireClickThrough && !form.isClickThrough {
                let typed = form.controls.filter { !$0.disabled && HTMLForm.typedTypes.contains($0.type) }.map(\.name)
                return .needsUser("the sign-in page asks for \(Self.names(typed))")
            }
            switch await submit(form, page: page, filling: filling, chain: chain, interface: interface) {
            case .success(let (next, what)):
                page = next
                detail = detail.isEmpty ? what : detail + "; then " + what
                steps += 1
            case .failure(let outcome):
                return outcome
            }
        }
        return .signedIn(detail + " (\(Self.maxFormSteps) forms, the most one sign-in submits)")
    }

    /// A form that ends a session rather than starting one (a welcome page's "log out").
    static func isLogoff(_ form: HTMLForm) -> Bool {
        let words = ["logout", "log out", "logoff", "log off", "sign out", "signout", "disconnect"]
        let text = ([form.action ?? ""] + form.controls.flatMap { [$0.name, $0.value] }).joined(separator: " ").lowercased()
        return words.contains { text.contains($0) }
    }

    /// The form to submit: the one form that has a field the profile fills, else the page's only
    /// candidate (a form with an enabled control). Several candidates are never guessed between.
    static func choose(_ forms: [HTMLForm], filling fields: [FormField], page: String) -> Result<HTMLForm, SignInOutcome> {
        let candidates = forms.filter { $0.controls.contains { !$0.disabled } }
        let names = Set(fields.map(\.name))
        let matching = candidates.filter { f in f.controls.contains { names.contains($0.name) } }
        let where_ = UntrustedText.forLog(page)
        if matching.count == 1 { return .success(matching[0]) }
        if matching.count > 1 {
            return .failure(.needsUser("the sign-in page \(where_) has \(matching.count) forms with the profile's fields; not guessing which"))
        }
        switch candidates.count {
        case 0 where HTMLFormReader.unavailableReason != nil:
            return .failure(.unavailable("the sign-in page \(where_) could not be read: \(HTMLFormReader.unavailableReason ?? "")"))
        case 0: return .failure(.needsUser("the sign-in page \(where_) has no form"))
        case 1: return .success(candidates[0])
        default: return .failure(.needsUser("the sign-in page \(where_) has \(candidates.count) forms; not guessing which to submit"))
        }
    }

    /// Field names from a page, safe for a message.
    static func names(_ names: [String]) -> String {
        UntrustedText.forLog(names.prefix(8).joined(separator: ", ") + (names.count > 8 ? ", …" : ""))
    }

    func wispr(_ credentials: WISPrCredentials, loginHosts: LoginHosts, interface: String, verdict: ProbeVerdict,
               plainHTTPLogin: Bool) async -> SignInSession {
        var config = WISPrClient.Configuration(allowPlainHTTPLogin: plainHTTPLogin, loginHosts: loginHosts)
        config.transfer = await environment.transferOptions(for: interface)
        let client = WISPrClient(configuration: config, transport: environment.transport)
        let answered = verdict.results.first { $0.wispr != nil }?.probe.url
        let probe: String
        if let answered { probe = answered } else { probe = await environment.wisprProbeURL }
        let result = await client.login(probeURL: probe, credentials: credentials, interface: config.transfer.interface,
                                        dnsServers: config.transfer.dnsServers)
        switch result.outcome {
        case .succeeded:
            return SignInSession(outcome: .signedIn("WISPr login accepted"), logoffURL: result.logoffURL)
        case .rejected:
            return SignInSession(outcome: .rejected("the WISPr gateway rejected the credentials (code 100): \(result.detail)"))
        case .insecureLoginURL:
            return SignInSession(outcome: .rejected("the WISPr LoginURL is plain http; credentials are not sent there (\(result.detail))"))
        case .hostNotAllowed:
            return SignInSession(outcome: .rejected("WISPr: \(result.detail)"))
        case .noGateway:
            return SignInSession(outcome: .needsUser("no WISPr gateway found: \(result.detail)"))
        case .radiusError, .radiusNotEnabled, .gatewayError, .pendingTimedOut, .unexpectedReply, .transport:
            return SignInSession(outcome: .unavailable("WISPr: \(result.detail)"))
        }
    }

    func capport(apiURL: String, interface: String, verdict: ProbeVerdict, extending: Bool) async -> SignInOutcome {
        var options = await environment.transferOptions(for: interface)
        options.maxBodyBytes = 64 * 1024
        let client = CaptivePortalAPIClient(url: apiURL, options: options, transport: environment.transport)
        let answer = await client.fetch(interface: options.interface, dnsServers: options.dnsServers)
        guard let status = answer.status ?? verdict.capport else {
            return .unavailable("the RFC 8908 API \(apiURL) gave no usable answer: \(answer.error?.description ?? "none")")
        }
        if !status.captive && !extending { return .signedIn("the RFC 8908 API says the session is up") }
        if !status.captive && status.canExtendSession == false { return .signedIn("the session cannot be extended; it stays until it ends") }
        guard let portal = status.userPortalURL else { return .needsUser("the RFC 8908 API names no user portal") }
        return await acceptTerms(at: portal, interface: interface, requireClickThrough: false)
    }

    // MARK: - HTTP

    /// GETs a page, following up to 5 redirects and meta refreshes itself (each hop resolved and
    /// bound like a probe). With `loginHosts`, the page and every hop must be on one of its hosts
    /// (the first one excepted when it is our own probe URL, which the portal answered in place).
    func fetchPage(_ url: String, interface: String, loginHosts: LoginHosts? = nil, firstIsProbe: Bool = false) async -> Result<HTTPAnswer, SignInOutcome> {
        let options = await environment.transferOptions(for: interface)
        let answer = await environment.transport.perform(HTTPRequestSpec(url: url), options: options)
        return await arrive(answer, from: url, interface: interface, loginHosts: loginHosts, firstIsProbe: firstIsProbe, what: "the sign-in page")
    }

    /// Follows an answer's redirects (3xx with Location) and meta refreshes to the page they lead
    /// to, at most 5 hops: each a GET, as a browser makes it after a form too.
    func arrive(_ first: Result<HTTPAnswer, TransferError>, from url: String, interface: String, loginHosts: LoginHosts?,
                firstIsProbe: Bool = false, what: String) async -> Result<HTTPAnswer, SignInOutcome> {
        let options = await environment.transferOptions(for: interface)
        var answer = first
        var current = url
        for hop in 0...5 {
            if let loginHosts, !(hop == 0 && firstIsProbe), !loginHosts.allows(url: current) {
                return .failure(Self.strangerHost(current, hop == 0 ? what : "a redirect on the way from \(what)"))
            }
            if hop > 0 { answer = await environment.transport.perform(HTTPRequestSpec(url: current), options: options) }
            switch answer {
            case .failure(let e):
                return .failure(.unavailable("\(what) \(UntrustedText.forLog(current)) could not be fetched: \(e)"))
            case .success(let a):
                if (300..<400).contains(a.status), let location = a.header("Location"), let next = ProbeClassifier.resolve(location, against: current) {
                    current = next
                    continue
                }
                guard (200..<300).contains(a.status) else {
                    return .failure(.unavailable("\(what) \(UntrustedText.forLog(current)) answered HTTP \(a.status)"))
                }
                // A page that only sends the browser on (<meta http-equiv="refresh">) is not where to stop.
                if let refresh = MetaRefresh.find(in: a.body), refresh.delay <= 10,
                    !HTMLFormReader.forms(in: [UInt8](a.body)).contains(where: { $0.controls.contains { !$0.disabled } }),
                    let next = ProbeClassifier.resolve(refresh.url, against: current)
                {
                    if refresh.delay > 0 { try? await Task.sleep(for: min(.seconds(refresh.delay), longestRefreshWait)) }
                    current = next
                    continue
                }
                var page = a
                page.url = current
                return .success(page)
            }
        }
        return .failure(.unavailable("\(what) \(UntrustedText.forLog(url)) redirects more than 5 times"))
    }

    /// Submits `form` as a browser does (GET: the fields replace the action's query; POST: a
    /// urlencoded body) and follows the answer to the next page; returns it with what was done.
    /// With `filling` (the profile's fields) only over https unless the profile allows plain http,
    /// and only to the profile's login hosts.
    func submit(_ form: HTMLForm, page: HTTPAnswer, filling: [FormField], chain: Chain, interface: String) async -> Result<(HTTPAnswer, String), SignInOutcome> {
        let hasCredentials = !filling.isEmpty
        guard let target = ProbeClassifier.resolve(form.action ?? page.url, against: page.url) else {
            return .failure(.needsUser("the form's action '\(UntrustedText.forLog(form.action ?? ""))' is not a URL"))
        }
        let shownTarget = UntrustedText.forLog(target)
        if hasCredentials && !target.lowercased().hasPrefix("https:") && !chain.plainHTTPLogin {
            return .failure(.rejected("the form sends the profile's fields to plain-http \(shownTarget); they are not sent there "
                                      + "(a profile for a portal without https may allow it with plain-http-login=true)"))
        }
        if hasCredentials, let loginHosts = chain.loginHosts, !loginHosts.allows(url: target) {
            return .failure(Self.strangerHost(target, "the form's target"))
        }
        let fields: [FormPair]
        switch form.submission(filling: filling) {
        case .needsUser(let unfilled):
            return .failure(.needsUser("the sign-in form at \(shownTarget) needs \(Self.names(unfilled)), which the profile does not fill"))
        case .ready(let pairs):
            fields = pairs
        }
        let body = FormEncoding.body(fields.map { ($0.name, $0.value) })
        let options = await environment.transferOptions(for: interface)
        let spec: HTTPRequestSpec
        let url: String
        if form.method == "GET" {
            url = Self.replacingQuery(of: target, with: body)
            spec = HTTPRequestSpec(url: url)
        } else {
            url = target
            spec = HTTPRequestSpec(url: target, method: "POST", headers: ["Content-Type: application/x-www-form-urlencoded"], body: Data(body.utf8))
        }
        let names = Self.names(fields.map(\.name))
        let verb = form.method == "GET" ? "sent" : "posted"
        let answer = await environment.transport.perform(spec, options: options)
        if case .success(let a) = answer, (400..<500).contains(a.status) {
            return .failure(.rejected("the portal refused the form (fields \(names)) with HTTP \(a.status)"))
        }
        if case .failure(let e) = answer { return .failure(.unavailable("\(verb == "sent" ? "sending" : "posting") the form to \(shownTarget) failed: \(e)")) }
        let status = (try? answer.get())?.status ?? 0
        let done = "\(verb) \(names) to \(shownTarget) (HTTP \(status))"
        // The next page, through the portal's redirects, wherever they lead (a GET with no fields);
        // the fields go into a later form only on a login host (``follow``). A page after the form
        // that cannot be loaded (a redirect to the open Internet, a 5xx) ends the forms: whether
        // the sign-in worked is for the fresh verdict after it to say, not for that page.
        switch await arrive(answer, from: url, interface: interface, loginHosts: nil, firstIsProbe: false, what: "the page after the form") {
        case .success(let next):
            return .success((next, done))
        case .failure(let outcome):
            return .success((HTTPAnswer(status: status, url: url), done + "; \(outcome.reason ?? "")"))
        }
    }

    /// `url` with its query replaced by `query` and its fragment dropped, as a browser builds a
    /// GET form's URL from its action.
    static func replacingQuery(of url: String, with query: String) -> String {
        var base = url
        if let hash = base.firstIndex(of: "#") { base = String(base[..<hash]) }
        if let mark = base.firstIndex(of: "?") { base = String(base[..<mark]) }
        return base + "?" + query
    }
}

/// `<meta http-equiv="refresh" content="N; url=…">`, read from the head of a page (the first
/// 64 KiB): where a page sends the browser on, and after how long.
struct MetaRefresh: Equatable {
    var delay: Int
    var url: String

    static func find(in body: Data) -> MetaRefresh? {
        let bytes = [UInt8](body.prefix(64 * 1024))
        // ASCII lower case, byte for byte: offsets stay those of the original.
        let lower = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
        var from = 0
        while let open = lower[from...].firstRange(of: Array("<meta".utf8)) {
            guard let close = lower[open.upperBound...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
            from = close + 1
            let tag = Array(lower[open.upperBound..<close])
            guard tag.firstRange(of: Array("http-equiv".utf8)) != nil, tag.firstRange(of: Array("refresh".utf8)) != nil else { continue }
            // The content attribute, from the original bytes (the URL keeps its case).
            guard let c = attribute("content", lower: tag, original: Array(bytes[open.upperBound..<close])) else { continue }
            let parts = c.split(separator: ";", maxSplits: 1)
            let delay = Int(trim(parts.first.map(String.init) ?? "")) ?? 0
            guard parts.count == 2 else { continue }
            var rest = trim(String(parts[1]))
            if rest.lowercased().hasPrefix("url") {
                rest = trim(String(rest.dropFirst(3)))
                if rest.hasPrefix("=") { rest = trim(String(rest.dropFirst())) }
            }
            rest = trim(rest, also: ["'", "\""])
            guard !rest.isEmpty else { continue }
            return MetaRefresh(delay: max(0, delay), url: rest.replacing("&amp;", with: "&"))
        }
        return nil
    }

    /// An attribute's value in a tag: quoted with " or ', or bare.
    static func attribute(_ name: String, lower: [UInt8], original: [UInt8]) -> String? {
        var search = 0
        while let r = lower[search...].firstRange(of: Array(name.utf8)) {
            search = r.upperBound
            var i = r.upperBound
            while i < lower.count, lower[i] == 32 { i += 1 }
            guard i < lower.count, lower[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < lower.count, lower[i] == 32 { i += 1 }
            guard i < lower.count else { return nil }
            let quote = lower[i]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                guard let end = lower[(i + 1)...].firstIndex(of: quote) else { return nil }
                return String(decoding: original[(i + 1)..<end], as: UTF8.self)
            }
            let end = lower[i...].firstIndex { $0 == 32 || $0 == UInt8(ascii: "/") } ?? lower.count
            return String(decoding: original[i..<end], as: UTF8.self)
        }
        return nil
    }

    static func trim(_ s: String, also extra: Set<Character> = []) -> String {
        let drop: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || extra.contains($0) }
        return String(s.drop(while: drop).reversed().drop(while: drop).reversed())
    }
}
