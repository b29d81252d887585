// SPDX-License-Identifier: Apache-2.0
@testable import BuiltInHelpers
import Connectivity
import FoundationEssentials
import HotspotTesting
import Synchronization
import Testing

/// Sign-in as real portal pages do it, through a scripted transport: GET forms, a form leading to
/// another, the submit control's name and value, relative actions and query strings, redirects
/// and meta refresh between steps, and plain http only for what the profile allows.
@Suite struct FormChainTests {
    final class Scripted: PortalEnvironment {
        let transport: any HTTPTransport
        let online = Mutex(false)
        init(_ transport: any HTTPTransport) {
            self.transport = transport
        }
        func transferOptions(for interface: String) async -> TransferOptions { TransferOptions(interface: interface, timeout: .seconds(2)) }
        func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict {
            ProbeVerdict(state: online.withLock { $0 } ? .online : .portal, reason: .expected)
        }
        var wisprProbeURL: String { "http://probe.test/" }
    }

    /// A gateway like openNDS's: a 307 to a splash page on another port with its state in a long
    /// query string; a GET form "Continue" to a second page with another GET form; then a
    /// redirect and a meta refresh to the end page.
    static func twoGetForms(token: String = String(repeating: "f4a9", count: 64)) -> ScriptedTransport {
        ScriptedTransport { request in
            let url = request.url
            if url.hasPrefix("http://gw.test:2050/splash?fas=\(token)") {
                return .success(.scripted(url, status: 200, body: """
                    <html><body><form action="/opennds_preauth/" method="get">
                    <input type="hidden" name="fas" value="\(token)"><input type="hidden" name="landing" value="1">
                    <input type="submit" name="continue" value="Continue"></form></body></html>
                    """))
            }
            if url.hasPrefix("http://gw.test:2050/opennds_preauth/?") {
                guard url == "http://gw.test:2050/opennds_preauth/?fas=\(token)&landing=1&continue=Continue" else {
                    return .success(.scripted(url, status: 400, body: "bad first form"))
                }
                return .success(.scripted(url, status: 200, body: """
                    <html><body><p>Welcome</p><form action="auth?from=welcome" method="GET">
                    <input type="hidden" name="tok" value="t-77"><button type="submit" name="agree" value="yes">Continue</button>
                    </form></body></html>
                    """))
            }
            if url == "http://gw.test:2050/opennds_preauth/auth?tok=t-77&agree=yes" {
                return .success(.scripted(url, status: 302, location: "/done"))
            }
            if url == "http://gw.test:2050/done" {
                return .success(.scripted(url, status: 200, body: "<html><head><meta http-equiv=\"Refresh\" content=\"0; URL='http://gw.test:2050/granted'\"></head></html>"))
            }
            if url == "http://gw.test:2050/granted" { return .success(.scripted(url, status: 200, body: "<p>You are online</p>")) }
            if url.hasPrefix("http://probe.test/") {
                return .success(.scripted(url, status: 307, location: "http://gw.test:2050/splash?fas=\(token)&redir=http%3A%2F%2Fprobe.test%2F"))
            }
            return .success(.scripted(url, status: 404))
        }
    }

    static let portalVerdict = ProbeVerdict(state: .portal, reason: .redirect(status: 307), signInURL: "http://probe.test/generate_204")

    @Test func clickThroughGoesThroughTwoGetFormsOverPlainHTTP() async {
        let transport = Self.twoGetForms()
        let outcome = await PortalSignIn(environment: Scripted(transport)).signIn(.clickThrough, interface: "wlan0", verdict: Self.portalVerdict)
        guard case .signedIn(let detail) = outcome else { Issue.record("\(outcome)"); return }
        let urls = transport.requests.map(\.spec.url)
        #expect(urls.contains("http://gw.test:2050/opennds_preauth/auth?tok=t-77&agree=yes"), "\(urls)")
        #expect(urls.last == "http://gw.test:2050/granted", "the meta refresh was followed: \(urls)")
        #expect(transport.requests.allSatisfy { $0.spec.method == "GET" })
        #expect(detail.contains("then sent"), "\(detail)")
    }

    @Test func thePortalHelpersClickThroughAlsoFollowsTheChain() async {
        let transport = Self.twoGetForms()
        let outcome = await PortalSignIn(environment: Scripted(transport)).acceptTerms(at: "http://probe.test/", interface: "wlan0",
                                                                                       requireClickThrough: true)
        guard case .signedIn = outcome else { Issue.record("\(outcome)"); return }
        #expect(transport.requests.contains { $0.spec.url.contains("agree=yes") })
    }

    @Test func aGetFormsFieldsReplaceItsActionsQueryAndDropTheFragment() {
        #expect(PortalSignIn.replacingQuery(of: "http://a.test/p?old=1#top", with: "x=1&y=2") == "http://a.test/p?x=1&y=2")
        #expect(PortalSignIn.replacingQuery(of: "http://a.test/p", with: "x=1") == "http://a.test/p?x=1")
    }

    @Test func theChainStopsOnceTheLinkIsOnline() async {
        // The welcome page has a form (a survey); the link is online already: it is not submitted.
        let transport = ScriptedTransport { request in
            if request.url.hasPrefix("http://p.test/accept") {
                return .success(.scripted(request.url, status: 200, body: "<form action='/survey' method='post'><input type='submit' value='Rate us'></form>"))
            }
            if request.url == "http://p.test/" {
                return .success(.scripted(request.url, status: 200, body: "<form action='/accept'><input type='hidden' name='a' value='1'><input type='submit'></form>"))
            }
            return .success(.scripted(request.url, status: 200, body: "thanks"))
        }
        let env = Scripted(transport)
        env.online.withLock { $0 = true }
        let outcome = await PortalSignIn(environment: env).acceptTerms(at: "http://p.test/", interface: "wlan0", requireClickThrough: false)
        guard case .signedIn = outcome else { Issue.record("\(outcome)"); return }
        #expect(!transport.requests.contains { $0.spec.url.contains("survey") })
        #expect(transport.requests.map(\.spec.url) == ["http://p.test/", "http://p.test/accept?a=1"])
    }

    @Test func aLogoutFormOnTheWelcomePageIsNeverSubmitted() async {
        let transport = ScriptedTransport { request in
            if request.url == "http://p.test/" {
                return .success(.scripted(request.url, status: 200, body: "<form action='/accept' method='post'><input type='submit' value='Accept'></form>"))
            }
            return .success(.scripted(request.url, status: 200, body: "<form action='/logout' method='post'><input type='submit' value='Log out'></form>"))
        }
        let outcome = await PortalSignIn(environment: Scripted(transport)).acceptTerms(at: "http://p.test/", interface: "wlan0", requireClickThrough: false)
        guard case .signedIn = outcome else { Issue.record("\(outcome)"); return }
        #expect(!transport.requests.contains { $0.spec.url.contains("logout") })
    }

    @Test func aChainIsBoundedInSteps() async {
        // Every page answers with another form to the next page: the sign-in stops after four.
        let transport = ScriptedTransport { request in
            .success(.scripted(request.url, status: 200, body: "<form action='/next' method='get'><input type='hidden' name='n' value='1'><input type='submit' name='go' value='Next'></form>"))
        }
        let outcome = await PortalSignIn(environment: Scripted(transport)).acceptTerms(at: "http://loop.test/", interface: "wlan0", requireClickThrough: false)
        #expect(transport.requests.filter { $0.spec.url.contains("/next?") }.count == 4)
        guard case .signedIn(let detail) = outcome else { Issue.record("\(outcome)"); return }
        #expect(detail.contains("4 forms"))
    }

    /// A terms page first, then a name and e-mail form the profile fills: the fields go into the
    /// second form only, and over plain http only because the profile says so.
    static func termsThenDetails() -> ScriptedTransport {
        ScriptedTransport { request in
            let url = request.url
            if url == "http://gw.test/splash" {
                return .success(.scripted(url, status: 200, body: "<form method='get' action='/step2'><input type='hidden' name='s' value='9'><input type='submit' name='c' value='Continue'></form>"))
            }
            if url.hasPrefix("http://gw.test/step2?") {
                return .success(.scripted(url, status: 200, body: """
                    <form method="post" action="/register"><input type="hidden" name="s" value="9">
                    <input type="text" name="name"><input type="email" name="email"><input type="submit" name="go" value="Connect"></form>
                    """))
            }
            if url == "http://gw.test/register" { return .success(.scripted(url, status: 303, location: "/ok")) }
            return .success(.scripted(url, status: 200, body: "ok"))
        }
    }

    static let details = SignInMethod.form(url: nil, fields: [FormField(name: "name", value: "Ada"), FormField(name: "email", value: "ada@example.org")],
                                           loginHosts: try! LoginHosts(parsing: "gw.test"))
    static let splash = ProbeVerdict(state: .portal, reason: .redirect(status: 302), signInURL: "http://gw.test/splash")

    @Test func aTermsPageThenTheProfilesFieldsWithPlainHTTPAllowedByTheProfile() async {
        let transport = Self.termsThenDetails()
        let outcome = await PortalSignIn(environment: Scripted(transport)).signIn(Self.details, interface: "wlan0", verdict: Self.splash, plainHTTPLogin: true)
        guard case .signedIn = outcome else { Issue.record("\(outcome)"); return }
        let first = transport.requests.first { $0.spec.url.hasPrefix("http://gw.test/step2?") }
        #expect(first?.spec.url == "http://gw.test/step2?s=9&c=Continue", "the terms step carries no profile field")
        let post = transport.requests.first { $0.spec.method == "POST" }
        #expect(post?.spec.url == "http://gw.test/register")
        #expect(post?.bodyText == "s=9&name=Ada&email=ada%40example.org&go=Connect", "\(post?.bodyText ?? "")")
        #expect(transport.requests.last?.spec.url == "http://gw.test/ok")
    }

    @Test func withoutTheProfilesOptInNoFieldGoesOverPlainHTTP() async {
        let transport = Self.termsThenDetails()
        let outcome = await PortalSignIn(environment: Scripted(transport)).signIn(Self.details, interface: "wlan0", verdict: Self.splash)
        guard case .rejected(let why) = outcome else { Issue.record("\(outcome)"); return }
        #expect(why.contains("plain-http-login=true"), "\(why)")
        #expect(!transport.requests.contains { $0.spec.method == "POST" })
        #expect(!transport.requests.contains { $0.spec.url.contains("Ada") || $0.bodyText.contains("Ada") })
        // The terms step was still gone through: it carries nothing of the profile's.
        #expect(transport.requests.contains { $0.spec.url.hasPrefix("http://gw.test/step2?") })
    }

    @Test func theProfilesFieldsNeverGoIntoAPageFromAnotherHost() async {
        // The terms page's form leads to a stranger's host, whose form asks for the fields.
        let transport = ScriptedTransport { request in
            let url = request.url
            if url == "http://gw.test/splash" {
                return .success(.scripted(url, status: 200, body: "<form method='get' action='http://evil.test/step2'><input type='submit' value='Continue'></form>"))
            }
            return .success(.scripted(url, status: 200, body: "<form method='post' action='http://gw.test/register'><input name='name'><input name='email'></form>"))
        }
        let outcome = await PortalSignIn(environment: Scripted(transport)).signIn(Self.details, interface: "wlan0", verdict: Self.splash, plainHTTPLogin: true)
        guard case .rejected(let why) = outcome else { Issue.record("\(outcome)"); return }
        #expect(why.contains("'evil.test'"), "\(why)")
        #expect(!transport.requests.contains { $0.spec.method == "POST" })
    }

    /// After the form, the portal sends the browser to the open Internet, which the link cannot
    /// reach yet: the forms end there, and the fresh verdict after the sign-in decides.
    @Test func aPageAfterTheFormThatCannotBeLoadedEndsTheFormsWithoutFailing() async {
        let transport = ScriptedTransport { request in
            if request.url == "http://p.test/" {
                return .success(.scripted(request.url, status: 200, body: "<form action='/accept' method='post'><input type='submit' value='Accept'></form>"))
            }
            if request.url == "http://p.test/accept" { return .success(.scripted(request.url, status: 302, location: "http://www.example.org/")) }
            return .failure(TransferError(.timeout, "timed out"))
        }
        let outcome = await PortalSignIn(environment: Scripted(transport)).acceptTerms(at: "http://p.test/", interface: "wlan0", requireClickThrough: false)
        guard case .signedIn(let detail) = outcome else { Issue.record("\(outcome)"); return }
        #expect(detail.contains("could not be fetched"), "\(detail)")
    }

    @Test func metaRefreshIsReadWithItsDelayAndURL() {
        let page = Data("<html><HEAD><META HTTP-EQUIV='refresh' CONTENT='3;url=/Next?a=1&amp;b=2'></head>".utf8)
        #expect(MetaRefresh.find(in: page) == MetaRefresh(delay: 3, url: "/Next?a=1&b=2"))
        #expect(MetaRefresh.find(in: Data("<meta name='viewport' content='width=device-width'>".utf8)) == nil)
        #expect(MetaRefresh.find(in: Data("<meta http-equiv=\"refresh\" content=\"5\">".utf8)) == nil, "a reload of itself goes nowhere")
    }
}
