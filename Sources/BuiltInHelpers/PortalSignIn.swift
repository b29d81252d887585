// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore
import FoundationEssentials

/// Signs in to a captive portal with a profile's method: accepts terms, fills forms, runs the
/// WISPr smart client, or follows an RFC 8908 API's user portal. Details never contain a secret.
public struct PortalSignIn: Sendable {
    /// Where the helper runs.
    public let environment: any PortalEnvironment

    /// A sign-in runner.
    public init(environment: any PortalEnvironment) {
        self.environment = environment
    }

    /// Signs in on `interface` behind the portal of `verdict` with `method`.
    public func signIn(_ method: SignInMethod, interface: String, verdict: ProbeVerdict) async -> SignInOutcome {
        switch method {
        case .none:
            return .needsUser("the profile has no sign-in method")
        case .clickThrough:
            guard let url = verdict.signInURL else { return .unavailable("the portal gave no sign-in page") }
            return await acceptTerms(at: url, interface: interface, requireClickThrough: false)
        case .form(let formURL, let fields, let hosts):
            guard let hosts else { return Self.noLoginHosts }
            guard let url = formURL ?? verdict.signInURL else { return .unavailable("the portal gave no sign-in page") }
            // A portal that answers a probe in place (511, its page instead of the probe's answer)
            // names no host of its own: that page's URL is our probe's, not a stranger's redirect.
            let answeredProbe = formURL == nil && verdict.results.contains { $0.probe.url == url }
            return await submitForm(pageURL: url, postDirectly: formURL != nil, fields: fields, loginHosts: hosts, interface: interface,
                                    pageIsProbe: answeredProbe)
        case .wispr(let credentials, let hosts):
            guard let hosts else { return Self.noLoginHosts }
            return await wispr(credentials, loginHosts: hosts, interface: interface, verdict: verdict)
        case .capport(let apiURL):
            return await capport(apiURL: apiURL, interface: interface, verdict: verdict, extending: false)
        }
    }

    /// Extends an RFC 8908 session (maintain before `seconds-remaining` runs out) by accepting its
    /// user portal's form again.
    public func extendSession(apiURL: String, interface: String, verdict: ProbeVerdict) async -> SignInOutcome {
        await capport(apiURL: apiURL, interface: interface, verdict: verdict, extending: true)
    }

    /// A profile with credentials but no `login-hosts=` sends none (issue 14).
    static let noLoginHosts = SignInOutcome.needsUser(
        "the profile has credentials but no login-hosts=, so none were sent; add login-hosts= naming the portal's sign-in hosts (docs/CONNECTIVITY.md)")

    /// The refusal when `url` (a sign-in page, a redirect to it, a form's action) is on a host the
    /// profile does not name.
    static func strangerHost(_ url: String, _ what: String) -> SignInOutcome {
        .rejected("\(what) is on host '\(UntrustedText.forLog(LoginHosts.host(of: url) ?? url))', which login-hosts= does not name; credentials were not sent")
    }

    // MARK: - Methods

    /// Accepts a terms page: its one form, with only the boxes it requires ticked. A page with more
    /// than one candidate form, or a form with fields only a person can fill, is left to the user.
    /// With `requireClickThrough`, a form that asks for anything typed is left to the user.
    public func acceptTerms(at url: String, interface: String, requireClickThrough: Bool) async -> SignInOutcome {
        let page: HTTPAnswer
        switch await fetchPage(url, interface: interface) {
        case .success(let a): page = a
        case .failure(let outcome): return outcome
        }
        let form: HTMLForm
        switch Self.choose(HTMLFormReader.forms(in: [UInt8](page.body)), filling: [], page: page.url) {
        case .success(let f): form = f
        case .failure(let outcome): return outcome
        }
        if requireClickThrough && !form.isClickThrough {
            let typed = form.controls.filter { !$0.disabled && HTMLForm.typedTypes.contains($0.type) }.map(\.name)
            return .needsUser("the sign-in page asks for \(Self.names(typed))")
        }
        return await post(form, page: page, filling: [], interface: interface, loginHosts: nil)
    }

    /// Fills and posts the profile's fields. The sign-in page, every redirect to it and the form's
    /// action (or `form-url=`) must be on `loginHosts`: a page that came from another host is a
    /// stranger's page, whatever its form says.
    func submitForm(pageURL: String, postDirectly: Bool, fields: [FormField], loginHosts: LoginHosts, interface: String,
                    pageIsProbe: Bool = false) async -> SignInOutcome {
        if postDirectly {
            let form = HTMLForm(action: pageURL, method: "POST", controls: [])
            return await post(form, page: HTTPAnswer(status: 200, url: pageURL), filling: fields, interface: interface, loginHosts: loginHosts)
        }
        let page: HTTPAnswer
        switch await fetchPage(pageURL, interface: interface, loginHosts: loginHosts, firstIsProbe: pageIsProbe) {
        case .success(let a): page = a
        case .failure(let outcome): return outcome
        }
        switch Self.choose(HTMLFormReader.forms(in: [UInt8](page.body)), filling: fields, page: page.url) {
        case .success(let form): return await post(form, page: page, filling: fields, interface: interface, loginHosts: loginHosts)
        case .failure(let outcome): return outcome
        }
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

    func wispr(_ credentials: WISPrCredentials, loginHosts: LoginHosts, interface: String, verdict: ProbeVerdict) async -> SignInOutcome {
        var config = WISPrClient.Configuration(allowPlainHTTPLogin: environment.allowPlainHTTPLogin, loginHosts: loginHosts)
        config.transfer = await environment.transferOptions(for: interface)
        let client = WISPrClient(configuration: config, transport: environment.transport)
        let answered = verdict.results.first { $0.wispr != nil }?.probe.url
        let probe: String
        if let answered { probe = answered } else { probe = await environment.wisprProbeURL }
        let result = await client.login(probeURL: probe, credentials: credentials, interface: config.transfer.interface,
                                        dnsServers: config.transfer.dnsServers)
        switch result.outcome {
        case .succeeded:
            return .signedIn("WISPr login accepted\(result.logoffURL.map { "; logoff at \($0)" } ?? "")")
        case .rejected:
            return .rejected("the WISPr gateway rejected the credentials (code 100): \(result.detail)")
        case .insecureLoginURL:
            return .rejected("the WISPr LoginURL is plain http; credentials are not sent there (\(result.detail))")
        case .hostNotAllowed:
            return .rejected("WISPr: \(result.detail)")
        case .noGateway:
            return .needsUser("no WISPr gateway found: \(result.detail)")
        case .radiusError, .radiusNotEnabled, .gatewayError, .pendingTimedOut, .unexpectedReply, .transport:
            return .unavailable("WISPr: \(result.detail)")
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

    /// GETs a page, following up to 5 redirects itself (each hop resolved and bound like a probe).
    /// With `loginHosts`, the page and every hop must be on one of its hosts (the first one
    /// excepted when it is our own probe URL, which the portal answered in place).
    func fetchPage(_ url: String, interface: String, loginHosts: LoginHosts? = nil, firstIsProbe: Bool = false) async -> Result<HTTPAnswer, SignInOutcome> {
        let options = await environment.transferOptions(for: interface)
        var current = url
        for hop in 0..<5 {
            if let loginHosts, !(hop == 0 && firstIsProbe), !loginHosts.allows(url: current) {
                return .failure(Self.strangerHost(current, hop == 0 ? "the sign-in page" : "a redirect on the way to the sign-in page"))
            }
            switch await environment.transport.perform(HTTPRequestSpec(url: current), options: options) {
            case .failure(let e):
                return .failure(.unavailable("the sign-in page \(current) could not be fetched: \(e)"))
            case .success(let answer):
                if (300..<400).contains(answer.status), let location = answer.header("Location"),
                    let next = ProbeClassifier.resolve(location, against: current)
                {
                    current = next
                    continue
                }
                guard (200..<300).contains(answer.status) else {
                    return .failure(.unavailable("the sign-in page \(current) answered HTTP \(answer.status)"))
                }
                return .success(answer)
            }
        }
        return .failure(.unavailable("the sign-in page \(url) redirects more than 5 times"))
    }

    /// Posts `form`; with `loginHosts` (the profile's fields are in it) only over https (unless the
    /// plain-http opt-in is on) and only to one of its hosts.
    func post(_ form: HTMLForm, page: HTTPAnswer, filling: [FormField], interface: String, loginHosts: LoginHosts?) async -> SignInOutcome {
        let hasCredentials = loginHosts != nil
        guard let target = ProbeClassifier.resolve(form.action ?? page.url, against: page.url) else {
            return .needsUser("the form's action '\(UntrustedText.forLog(form.action ?? ""))' is not a URL")
        }
        let shownTarget = UntrustedText.forLog(target)
        if hasCredentials && !target.lowercased().hasPrefix("https:") && !environment.allowPlainHTTPLogin {
            return .rejected("the form posts to plain-http \(shownTarget); credentials are not sent there (allow-plain-http-login=false)")
        }
        if let loginHosts, !loginHosts.allows(url: target) { return Self.strangerHost(target, "the form's target") }
        let fields: [FormPair]
        switch form.submission(filling: filling) {
        case .needsUser(let unfilled):
            return .needsUser("the sign-in form at \(shownTarget) needs \(Self.names(unfilled)), which the profile does not fill")
        case .ready(let pairs):
            fields = pairs
        }
        let body = FormEncoding.body(fields.map { ($0.name, $0.value) })
        let options = await environment.transferOptions(for: interface)
        let spec: HTTPRequestSpec
        if form.method == "GET" {
            spec = HTTPRequestSpec(url: target + (target.contains("?") ? "&" : "?") + body)
        } else {
            spec = HTTPRequestSpec(url: target, method: "POST", headers: ["Content-Type: application/x-www-form-urlencoded"], body: Data(body.utf8))
        }
        let names = Self.names(fields.map(\.name))
        switch await environment.transport.perform(spec, options: options) {
        case .failure(let e):
            return .unavailable("posting the form to \(shownTarget) failed: \(e)")
        case .success(let answer):
            if (400..<500).contains(answer.status) {
                return .rejected("the portal refused the form (fields \(names)) with HTTP \(answer.status)")
            }
            guard answer.status < 500 else { return .unavailable("the portal answered HTTP \(answer.status) to the form") }
            return .signedIn("posted \(names) to \(shownTarget) (HTTP \(answer.status))")
        }
    }
}
