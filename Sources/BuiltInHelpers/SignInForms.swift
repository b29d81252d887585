// SPDX-License-Identifier: Apache-2.0
import Connectivity
import FoundationEssentials
import HotspotCore
import Synchronization

/// What the interface's `SignInForm` property says: the portal's form for a person to fill, or why
/// only a browser can sign in. Every string in it comes from the page: escaped (`UntrustedText`)
/// and bounded; field names and preset values are kept only when they need no escaping, so what
/// the dialog sends back is what the page named.
public struct SignInFormDescription: Sendable, Hashable {
    /// "form" or "browser".
    public enum Kind: String, Sendable, Hashable {
        case form, browser
    }

    /// One visible field, in page order.
    public struct Field: Sendable, Hashable {
        public var name: String
        /// text, email, number, tel, password, checkbox, select.
        public var kind: String
        public var label: String
        public var required: Bool
        /// The page's preset value ("" for a password).
        public var value: String
        /// A select's options (value, label).
        public var options: [HTMLForm.Control.Choice] = []
        /// A checkbox's text and the link in it.
        public var terms = ""
        public var termsURL = ""
    }

    public var kind: Kind
    public var reason = ""
    public var portalURL = ""
    public var actionHost = ""
    public var actionScheme = ""
    public var fields: [Field] = []
    public var message = ""
    public var remembered = false

    /// What is typed would go over plain http.
    public var plainHTTP: Bool { kind == .form && actionScheme == "http" }

    /// A description saying only a browser can sign in, and why.
    public static func browser(_ reason: String, portalURL: String) -> SignInFormDescription {
        SignInFormDescription(kind: .browser, reason: SignInFormReader.bounded(reason, 300), portalURL: portalURL)
    }
}

/// A sign-in waiting for the user on one interface: what is published and what the daemon keeps
/// to submit it (the form with its hidden fields, where the page was).
public struct PendingSignIn: Sendable {
    /// The network it is for: a form read on one network is never published or used on another.
    public var ssid: SSID
    public var description: SignInFormDescription
    /// The sign-in page, read again before submitting (fresh hidden fields and tokens).
    public var pageURL: String
    /// The form, hidden fields included (nil for "browser").
    public var form: HTMLForm?
    /// The visible fields' names, in page order, and the host the form posts to (lower case):
    /// what must not change between asking the user and posting.
    public var fieldNames: [String] = []
    public var actionHost = ""

    public init(ssid: SSID, description: SignInFormDescription, pageURL: String, form: HTMLForm? = nil,
                fieldNames: [String] = [], actionHost: String = "") {
        self.ssid = ssid
        self.description = description
        self.pageURL = pageURL
        self.form = form
        self.fieldNames = fieldNames
        self.actionHost = actionHost
    }
}

/// The sign-ins waiting for the user, per interface name. The built-in helpers put one here when
/// they answer ui-required; the daemon publishes it as `SignInForm` and submits it on `SignIn`.
public final class SignInForms: Sendable {
    private let pending = Mutex<[String: PendingSignIn]>([:])
    private let changed: @Sendable (String) -> Void

    /// A store; `changed` hears the interface name after every change.
    public init(changed: @escaping @Sendable (String) -> Void = { _ in }) { self.changed = changed }

    public func set(_ p: PendingSignIn, on interface: String) {
        pending.withLock { $0[interface] = p }
        changed(interface)
    }

    public func get(_ interface: String) -> PendingSignIn? { pending.withLock { $0[interface] } }

    public func clear(_ interface: String) {
        let had = pending.withLock { $0.removeValue(forKey: interface) != nil }
        if had { changed(interface) }
    }
}

/// Turns a portal page into a ``PendingSignIn``: the one form a person can fill, or "needs the
/// browser" with the reason.
public enum SignInFormReader {
    /// Visible fields described at most; a form with more needs the browser.
    public static let maxFields = 32
    /// Options of a select described at most.
    public static let maxOptions = 64
    /// Characters of a label, terms text; of a reason or a message.
    public static let labelLimit = 200
    public static let messageLimit = 300

    /// Input types shown as text fields.
    static let textKinds: Set<String> = ["text", "search", "url", "textarea", "date", "datetime-local", "month", "week", "time"]
    static let kinds: Set<String> = ["email", "number", "tel", "password", "checkbox", "select"]

    /// `text` escaped, whitespace collapsed, and at most `limit` characters.
    public static func bounded(_ text: String, _ limit: Int) -> String {
        let collapsed = HTMLFormReader.collapse(text)
        var out = UntrustedText.forLog(collapsed, limit: limit)
        if out.count > limit { out = String(out.prefix(limit - 1)) + "…" }
        return out
    }

    /// `url` when it may be published and opened as a sign-in page (``SignInURL``: http or https
    /// with a host), else "".
    public static func safeURL(_ url: String) -> String {
        SignInURL.isAllowed(url) ? url : ""
    }

    /// The sign-in page at `url` (its body `body`) on the network `ssid`, described.
    public static func describe(body: [UInt8], url: String, ssid: SSID) -> PendingSignIn {
        let portalURL = safeURL(url)
        func browser(_ why: String) -> PendingSignIn {
            PendingSignIn(ssid: ssid, description: .browser(why, portalURL: portalURL), pageURL: url)
        }
        let reading = HTMLFormReader.read(body)
        if reading.exhausted { return browser("the sign-in page is too complex to read; sign in with a browser") }
        let t = reading.traits
        if t.captcha { return browser("the sign-in page has a captcha, which only a browser can show") }
        let candidates = reading.forms.filter { f in f.controls.contains { !$0.disabled } && !PortalSignIn.isLogoff(f) }
        let typed = candidates.filter { !$0.isClickThrough }
        let form: HTMLForm
        switch (typed.count, candidates.count) {
        case (1, _): form = typed[0]
        case (0, 1): form = candidates[0]
        case (0, 0):
            if t.iframe { return browser("the sign-in form is inside a frame of the page; sign in with a browser") }
            if t.scripts { return browser("the sign-in page signs in with scripts, which only a browser runs") }
            return browser("the sign-in page has no form")
        default: return browser("the sign-in page has several forms; sign in with a browser to choose")
        }
        if form.controls.contains(where: { $0.type == "file" && !$0.disabled }) {
            return browser("the sign-in form asks for a file; sign in with a browser")
        }
        if form.scripted { return browser("the sign-in form runs a script when sent, which only a browser runs") }
        guard let target = ProbeClassifier.resolve(form.action ?? url, against: url) else {
            return browser("the sign-in form's address is not a web address")
        }
        let scheme = target.lowercased().hasPrefix("https:") ? "https" : target.lowercased().hasPrefix("http:") ? "http" : ""
        guard !scheme.isEmpty, let host = LoginHosts.host(of: target)?.lowercased(), !host.isEmpty, UntrustedText.isPlain(host) else {
            return browser("the sign-in form sends to an address that is not http or https")
        }
        var fields: [SignInFormDescription.Field] = []
        var names: [String] = []
        for c in form.controls where !c.disabled {
            switch c.type {
            case "hidden", "submit", "image", "button", "reset": continue
            case "radio": return browser("the sign-in form has choices (radio buttons) only a browser shows")
            default: break
            }
            if names.contains(c.name) {
                if c.type == "select" { continue }  // a multiple select's further choices
                return browser("the sign-in form has two fields named alike; sign in with a browser")
            }
            guard !c.name.isEmpty, c.name.utf8.count <= 200, UntrustedText.isPlain(c.name) else {
                return browser("the sign-in form has a field whose name cannot be shown; sign in with a browser")
            }
            guard fields.count < maxFields else { return browser("the sign-in form has more than \(maxFields) fields; sign in with a browser") }
            let kind = textKinds.contains(c.type) ? "text" : kinds.contains(c.type) ? c.type : "text"
            let before = Self.trimmedLead(c.before)
            let words = [c.label, c.placeholder, c.ariaLabel, before].first { !HTMLFormReader.collapse($0).isEmpty } ?? c.name
            var f = SignInFormDescription.Field(name: c.name, kind: kind, label: bounded(kind == "checkbox" ? (c.ariaLabel.isEmpty ? c.name : c.ariaLabel) : words, labelLimit),
                                                required: c.required, value: "")
            if kind != "password", kind != "checkbox", c.value.utf8.count <= 200, UntrustedText.isPlain(c.value) { f.value = c.value }
            if kind == "checkbox" {
                f.terms = bounded(c.label.isEmpty ? words : c.label, labelLimit)
                if !c.label.isEmpty || !words.isEmpty { f.label = f.terms }
                if !c.link.isEmpty, let resolved = ProbeClassifier.resolve(c.link, against: url) { f.termsURL = safeURL(resolved) }
                f.value = ""
            }
            if kind == "select" {
                f.options = c.choices.prefix(maxOptions).compactMap { o in
                    guard o.value.utf8.count <= 200, UntrustedText.isPlain(o.value) else { return nil }
                    return HTMLForm.Control.Choice(value: o.value, label: bounded(o.label.isEmpty ? o.value : o.label, labelLimit))
                }
            }
            fields.append(f)
            names.append(c.name)
        }
        if fields.isEmpty { return browser("the sign-in page has no field to fill") }
        var d = SignInFormDescription(kind: .form, portalURL: portalURL, actionHost: bounded(host, labelLimit), actionScheme: scheme)
        d.fields = fields
        return PendingSignIn(ssid: ssid, description: d, pageURL: url, form: form, fieldNames: names, actionHost: host)
    }

    /// Words before a field, as a label: without the colon or asterisk that leads into it.
    static func trimmedLead(_ s: String) -> String {
        var t = HTMLFormReader.collapse(s)
        while let last = t.last, last == ":" || last == "*" || last == " " { t.removeLast() }
        return t
    }

    /// The session cookies a page set (its `Set-Cookie` headers' name=value parts), to send back
    /// with its form: at most 16, each at most 1 KiB, only those without control characters.
    public static func cookies(of page: HTTPAnswer) -> [String] {
        page.headers.filter { $0.name.lowercased() == "set-cookie" }.prefix(16).compactMap { field in
            let pair = MetaRefresh.trim(String(field.value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""))
            guard pair.contains("="), !pair.hasPrefix("="), pair.utf8.count <= 1024,
                  pair.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "," }) else { return nil }
            return pair
        }
    }

    /// `message` with what the user typed in text-like fields (text, e-mail, number, tel, password,
    /// and any name the form does not describe) blanked as "…": a portal's refusal may repeat it
    /// ("the code X is not valid"), and it is never published. Values of 3 characters or more only,
    /// longest first; a checkbox's or a select's value is the page's own (a badge, "agreed"), so
    /// the portal's words that happen to contain it stay as they are.
    public static func blankingTyped(_ message: String, values: [String: String], fields: [SignInFormDescription.Field]) -> String {
        let pageProvided = Set(fields.filter { $0.kind == "checkbox" || $0.kind == "select" }.map(\.name))
        let typed = values.filter { !pageProvided.contains($0.key) && $0.value.count >= 3 }.map(\.value).sorted { $0.count > $1.count }
        return typed.reduce(message) { m, v in m.replacing(v, with: "…").replacing(UntrustedText.forLog(v, limit: 4096), with: "…") }
    }

    /// The portal's error text on a page (its first error notice), escaped and bounded; "" none.
    public static func message(in body: [UInt8]) -> String {
        bounded(HTMLFormReader.read(body).traits.message, messageLimit)
    }
}

/// How a sign-in with what the user typed (or what was remembered) ended.
public enum UserSignInResult: Sendable {
    case signedIn
    /// The portal did not accept it; its message (escaped, bounded), or ours.
    case rejected(String)
    /// Only a browser can sign in now (the page changed to need one).
    case needsBrowser(String)
    /// The form has other fields or posts elsewhere now: the fresh description.
    case formChanged(PendingSignIn)
    /// The page could not be read or the answer not fetched.
    case unavailable(String)
}

extension PortalSignIn {
    /// Reads the sign-in page at `url` on `interface` and describes it for the network `ssid`.
    public func describe(pageAt url: String, interface: String, ssid: SSID) async -> Result<PendingSignIn, SignInOutcome> {
        switch await fetchPage(url, interface: interface) {
        case .success(let page): return .success(SignInFormReader.describe(body: [UInt8](page.body), url: page.url, ssid: ssid))
        case .failure(let outcome): return .failure(outcome)
        }
    }

    /// Signs in with `values` (field name → value; a ticked checkbox has any value, an unticked
    /// one none) into the form of `expected`: the page is read again (fresh hidden fields and
    /// tokens), its form must still have the same visible field names and post to the same host,
    /// else nothing is sent (``UserSignInResult/formChanged(_:)``). What is typed goes only to
    /// that host, over https unless `allowPlainHTTP`; a redirect after it is followed by GET
    /// without it. Signed in is the link online afterwards.
    public func userSignIn(expected: PendingSignIn, pageURL: String, values: [String: String], allowPlainHTTP: Bool,
                           interface: String) async -> UserSignInResult {
        let result = await userSignInUnredacted(expected: expected, pageURL: pageURL, values: values, allowPlainHTTP: allowPlainHTTP,
                                                interface: interface)
        // A portal's message may repeat what was typed ("the code X is not valid"): never published.
        guard case .rejected(let message) = result else { return result }
        return .rejected(SignInFormReader.blankingTyped(message, values: values, fields: expected.description.fields))
    }

    func userSignInUnredacted(expected: PendingSignIn, pageURL: String, values: [String: String], allowPlainHTTP: Bool,
                              interface: String) async -> UserSignInResult {
        let fresh: PendingSignIn
        let cookies: [String]
        switch await fetchPage(pageURL, interface: interface) {
        case .success(let page):
            fresh = SignInFormReader.describe(body: [UInt8](page.body), url: page.url, ssid: expected.ssid)
            cookies = SignInFormReader.cookies(of: page)
        case .failure(let outcome):
            if await environment.verdict(for: interface, fresh: true).state == .online { return .signedIn }
            return .unavailable(outcome.reason ?? "the sign-in page could not be read")
        }
        if fresh.description.kind == .browser { return .needsBrowser(fresh.description.reason) }
        guard let form = fresh.form, fresh.fieldNames == expected.fieldNames, fresh.actionHost == expected.actionHost,
              fresh.description.actionScheme == expected.description.actionScheme || fresh.description.actionScheme == "https" else {
            return .formChanged(fresh)
        }
        if fresh.description.actionScheme != "https" && !allowPlainHTTP {
            return .rejected("the form sends what is typed over plain http, which was not accepted")
        }
        // The visible fields take the user's values (an unticked checkbox is left out); hidden
        // fields and the submit button stay as the page set them.
        var filled = form
        var filling: [FormField] = []
        let visible = Set(fresh.fieldNames)
        filled.controls = form.controls.compactMap { c in
            guard visible.contains(c.name), !c.disabled else { return c }
            guard let v = values[c.name] else { return nil }
            var h = c
            h.type = "hidden"
            h.value = c.type == "checkbox" ? (c.value.isEmpty ? "on" : c.value) : v
            return h
        }
        // A multiple select left several controls with one name: keep one.
        var seen: Set<String> = []
        filled.controls = filled.controls.filter { c in
            guard visible.contains(c.name) else { return true }
            return seen.insert(c.name).inserted
        }
        for c in filled.controls where visible.contains(c.name) { filling.append(FormField(name: c.name, value: c.value)) }
        let hosts: LoginHosts
        do { hosts = try LoginHosts(parsing: fresh.actionHost) } catch {
            return .needsBrowser("the form's host cannot be used: \(error)")
        }
        let page = HTTPAnswer(status: 200, url: fresh.pageURL)
        let chain = Chain(fields: filling, loginHosts: hosts, plainHTTPLogin: allowPlainHTTP)
        let next: HTTPAnswer
        switch await submitTyped(filled, page: page, filling: filling, chain: chain, interface: interface, cookies: cookies) {
        case .success(let a): next = a
        case .failure(let outcome):
            if case .rejected(let why) = outcome { return .rejected(why) }
            return .unavailable(outcome.reason ?? "the form could not be sent")
        }
        if await environment.verdict(for: interface, fresh: true).state == .online { return .signedIn }
        // The same form again: the portal refused what was typed, and says why on the page.
        let again = SignInFormReader.describe(body: [UInt8](next.body), url: next.url, ssid: expected.ssid)
        if (400..<500).contains(next.status) || (again.description.kind == .form && again.fieldNames == fresh.fieldNames) {
            let said = SignInFormReader.message(in: [UInt8](next.body))
            return .rejected(said.isEmpty ? "the portal did not accept what was typed" : said)
        }
        // A confirmation or terms page after it: gone through as a terms page (nothing typed goes
        // there).
        let outcome = await follow(from: next, chain: Chain(requireClickThrough: true), interface: interface, submitted: 1)
        if await environment.verdict(for: interface, fresh: true).state == .online { return .signedIn }
        let said = SignInFormReader.message(in: [UInt8](next.body))
        return .rejected(said.isEmpty ? "the portal still intercepts after the sign-in (\(outcome.reason ?? "no reason given"))" : said)
    }

    /// Sends a form that carries what a person typed: https unless allowed, only to the chain's
    /// login hosts; the answer is followed (GET, no body) to the page it leads to, whatever its
    /// status, so a refusal's page can be read.
    func submitTyped(_ form: HTMLForm, page: HTTPAnswer, filling: [FormField], chain: Chain, interface: String,
                     cookies: [String] = []) async -> Result<HTTPAnswer, SignInOutcome> {
        guard let target = ProbeClassifier.resolve(form.action ?? page.url, against: page.url) else {
            return .failure(.needsUser("the form's action is not a URL"))
        }
        if !target.lowercased().hasPrefix("https:") && !chain.plainHTTPLogin {
            return .failure(.rejected("the form sends what is typed over plain http, which was not accepted"))
        }
        guard let hosts = chain.loginHosts, hosts.allows(url: target) else {
            return .failure(Self.strangerHost(target, "the form's target"))
        }
        guard case .ready(let pairs) = form.submission(filling: filling) else {
            return .failure(.needsUser("the sign-in form needs fields that were not given"))
        }
        let body = FormEncoding.body(pairs.map { ($0.name, $0.value) })
        let options = await environment.transferOptions(for: interface)
        let url = form.method == "GET" ? Self.replacingQuery(of: target, with: body) : target
        // The page's session cookies go back with the form, to the page's own host only.
        var headers: [String] = []
        if !cookies.isEmpty, let pageHost = LoginHosts.host(of: page.url)?.lowercased(), LoginHosts.host(of: target)?.lowercased() == pageHost {
            headers.append("Cookie: " + cookies.joined(separator: "; "))
        }
        let spec = form.method == "GET" ? HTTPRequestSpec(url: url, headers: headers)
            : HTTPRequestSpec(url: target, method: "POST", headers: headers + ["Content-Type: application/x-www-form-urlencoded"], body: Data(body.utf8))
        let answer = await environment.transport.perform(spec, options: options)
        if case .success(let a) = answer, !(300..<400).contains(a.status) {
            var page = a
            page.url = url
            return .success(page)
        }
        if case .failure(let e) = answer { return .failure(.unavailable("sending the form to \(UntrustedText.forLog(target)) failed: \(e)")) }
        switch await arrive(answer, from: url, interface: interface, loginHosts: nil, firstIsProbe: false, what: "the page after the form") {
        case .success(let next): return .success(next)
        case .failure: return .success(HTTPAnswer(status: 200, url: url))
        }
    }
}
