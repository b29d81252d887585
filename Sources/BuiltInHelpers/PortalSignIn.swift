import Connectivity
import Foundation

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
        case .form(let formURL, let fields):
            guard let url = formURL ?? verdict.signInURL else { return .unavailable("the portal gave no sign-in page") }
            return await submitForm(pageURL: url, postDirectly: formURL != nil, fields: fields, interface: interface)
        case .wispr(let credentials):
            return await wispr(credentials, interface: interface, verdict: verdict)
        case .capport(let apiURL):
            return await capport(apiURL: apiURL, interface: interface, verdict: verdict, extending: false)
        }
    }

    /// Extends an RFC 8908 session (maintain before `seconds-remaining` runs out) by accepting its
    /// user portal's form again.
    public func extendSession(apiURL: String, interface: String, verdict: ProbeVerdict) async -> SignInOutcome {
        await capport(apiURL: apiURL, interface: interface, verdict: verdict, extending: true)
    }

    // MARK: - Methods

    /// Accepts a terms page: its first form, boxes ticked. With `requireClickThrough`, a form that
    /// asks for typed input is left to the user.
    public func acceptTerms(at url: String, interface: String, requireClickThrough: Bool) async -> SignInOutcome {
        let page: HTTPAnswer
        switch await fetchPage(url, interface: interface) {
        case .success(let a): page = a
        case .failure(let outcome): return outcome
        }
        guard let form = HTMLForm.parse(page.text).first(where: { $0.method == "POST" }) ?? HTMLForm.parse(page.text).first else {
            return .needsUser("the sign-in page \(page.url) has no form to accept")
        }
        if requireClickThrough && !form.isClickThrough {
            return .needsUser("the sign-in page asks for \(form.inputs.filter { !["checkbox", "hidden", "submit", "radio"].contains($0.type) }.map(\.name).joined(separator: ", "))")
        }
        return await post(form, page: page, overrides: [], interface: interface, hasCredentials: false)
    }

    func submitForm(pageURL: String, postDirectly: Bool, fields: [FormField], interface: String) async -> SignInOutcome {
        if postDirectly {
            let form = HTMLForm(action: pageURL, method: "POST", inputs: [])
            return await post(form, page: HTTPAnswer(status: 200, url: pageURL), overrides: fields, interface: interface, hasCredentials: true)
        }
        let page: HTTPAnswer
        switch await fetchPage(pageURL, interface: interface) {
        case .success(let a): page = a
        case .failure(let outcome): return outcome
        }
        let forms = HTMLForm.parse(page.text)
        let names = Set(fields.map(\.name))
        guard let form = forms.first(where: { f in f.inputs.contains { names.contains($0.name) } }) ?? forms.first else {
            return .needsUser("the sign-in page \(page.url) has no form")
        }
        return await post(form, page: page, overrides: fields, interface: interface, hasCredentials: true)
    }

    func wispr(_ credentials: WISPrCredentials, interface: String, verdict: ProbeVerdict) async -> SignInOutcome {
        var config = WISPrClient.Configuration(allowPlainHTTPLogin: environment.allowPlainHTTPLogin)
        config.transfer = await environment.transferOptions(for: interface)
        let client = WISPrClient(configuration: config)
        let probe = verdict.results.first { $0.wispr != nil }?.probe.url ?? environment.wisprProbeURL
        let result = await client.login(probeURL: probe, credentials: credentials, interface: config.transfer.interface,
                                        dnsServers: config.transfer.dnsServers)
        switch result.outcome {
        case .succeeded:
            return .signedIn("WISPr login accepted\(result.logoffURL.map { "; logoff at \($0)" } ?? "")")
        case .rejected:
            return .rejected("the WISPr gateway rejected the credentials (code 100): \(result.detail)")
        case .insecureLoginURL:
            return .rejected("the WISPr LoginURL is plain http; credentials are not sent there (\(result.detail))")
        case .noGateway:
            return .needsUser("no WISPr gateway found: \(result.detail)")
        case .radiusError, .radiusNotEnabled, .gatewayError, .pendingTimedOut, .unexpectedReply, .transport:
            return .unavailable("WISPr: \(result.detail)")
        }
    }

    func capport(apiURL: String, interface: String, verdict: ProbeVerdict, extending: Bool) async -> SignInOutcome {
        var options = await environment.transferOptions(for: interface)
        options.maxBodyBytes = 64 * 1024
        let client = CaptivePortalAPIClient(url: apiURL, options: options)
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
    func fetchPage(_ url: String, interface: String) async -> Result<HTTPAnswer, SignInOutcome> {
        let options = await environment.transferOptions(for: interface)
        var current = url
        for _ in 0..<5 {
            switch await HTTPTransfer.perform(HTTPRequestSpec(url: current), options: options) {
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

    func post(_ form: HTMLForm, page: HTTPAnswer, overrides: [FormField], interface: String, hasCredentials: Bool) async -> SignInOutcome {
        guard let target = ProbeClassifier.resolve(form.action ?? page.url, against: page.url) else {
            return .needsUser("the form's action '\(form.action ?? "")' is not a URL")
        }
        if hasCredentials && !target.lowercased().hasPrefix("https:") && !environment.allowPlainHTTPLogin {
            return .rejected("the form posts to plain-http \(target); credentials are not sent there (allow-plain-http-login=false)")
        }
        let fields = form.submission(overrides: overrides)
        let body = fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        let options = await environment.transferOptions(for: interface)
        let spec: HTTPRequestSpec
        if form.method == "GET" {
            spec = HTTPRequestSpec(url: target + (target.contains("?") ? "&" : "?") + body)
        } else {
            spec = HTTPRequestSpec(url: target, method: "POST", headers: ["Content-Type: application/x-www-form-urlencoded"], body: Data(body.utf8))
        }
        let names = fields.map(\.0).joined(separator: ",")
        switch await HTTPTransfer.perform(spec, options: options) {
        case .failure(let e):
            return .unavailable("posting the form to \(target) failed: \(e)")
        case .success(let answer):
            if (400..<500).contains(answer.status) {
                return .rejected("the portal refused the form (fields \(names)) with HTTP \(answer.status)")
            }
            guard answer.status < 500 else { return .unavailable("the portal answered HTTP \(answer.status) to the form") }
            return .signedIn("posted \(names) to \(target) (HTTP \(answer.status))")
        }
    }

    static func formEncode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (s.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(of: "%20", with: "+")
    }
}
