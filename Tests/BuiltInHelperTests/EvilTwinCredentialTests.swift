// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import HotspotTesting
import Connectivity
import Foundation
import HotspotCore
import PortalSimulator
import Testing

extension PortalScenario {
    /// `login-hosts=` naming every host the simulator is reached by in a scenario (the probes' names,
    /// all resolved to it): the hosts a profile's credentials may go to, over plain http (the
    /// simulator has no https).
    static let loginHosts = "login-hosts=connectivitycheck.gstatic.com;captive.apple.com;www.msftconnecttest.com;nmcheck.gnome.org\n"
        + "plain-http-login=true\n"
}

/// A profile's credentials go only to the hosts its `login-hosts=` names. An evil
/// twin of a known network (same SSID, its own gateway) that names another host as its WISPr
/// LoginURL, or serves its sign-in page from another host, gets nothing.
@Suite struct EvilTwinLoginHostTests {
    @Test func exactEntriesMatchOnlyThatHostAndWildcardsOnlyNamesBelowIt() throws {
        let hosts = try LoginHosts(parsing: " Portal.Example.NET ; *.example.org;")
        #expect(hosts.entries == ["portal.example.net", "*.example.org"])
        #expect(hosts.allows(url: "https://portal.example.net/login"))
        #expect(hosts.allows(url: "https://PORTAL.example.net.:8443/login"), "case, a trailing dot and the port do not matter")
        #expect(hosts.allows(url: "https://a.b.example.org/x"), "a wildcard matches any depth below it")
        #expect(!hosts.allows(url: "https://example.org/x"), "but not the name itself")
        #expect(!hosts.allows(url: "https://evil-example.org/x"))
        #expect(!hosts.allows(url: "https://portal.example.net.evil.example/x"))
        #expect(!hosts.allows(url: "https://anything-else/"))
        #expect(!hosts.allows(url: "https://portal.example.net@evil.example/login"), "user info does not name the host")
        #expect(!hosts.allows(url: "ftp://portal.example.net/"))
        #expect(!hosts.allows(url: "not a url"))
    }

    @Test(arguments: ["", " ; ", "*", "*.com", "a.*.example.org", "https://portal.example.net/", "portal.example.net:443", "a..b", "*.0.0.10"])
    func entriesThatCannotBeMatchedSafelyAreRefused(text: String) {
        #expect(throws: LoginHostsError.self) { try LoginHosts(parsing: text) }
    }

    /// A gateway message that was reached through a redirect on a stranger's host is the
    /// stranger's, even when its LoginURL names a listed host.
    @Test func wisprMessageReachedThroughAStrangersRedirectGetsNoCredentials() async throws {
        var config = WISPrClient.Configuration(transfer: TransferOptions(dnsServers: ["127.0.0.1:1"], timeout: .seconds(1)),
                                               loginHosts: try LoginHosts(parsing: "portal.example.net"))
        config.maxPolls = 0
        var gateway = WISPrMessage()
        gateway.loginURL = "https://portal.example.net/login"
        let creds = WISPrCredentials(username: "u", password: "hop-secret-1")
        let viaStranger = await WISPrClient(configuration: config).login(gateway: gateway, credentials: creds, originatingURL: "http://probe/",
                                                                         interface: nil, dnsServers: ["127.0.0.1:1"],
                                                                         via: ["https://portal.example.net/a", "http://stranger.example/b"])
        #expect(viaStranger.outcome == .hostNotAllowed)
        #expect(viaStranger.detail.contains("came through 'stranger.example'"), "\(viaStranger.detail)")
        #expect(!viaStranger.detail.contains("hop-secret-1"))
        gateway.loginURL = "https://anything-else/login"
        let elsewhere = await WISPrClient(configuration: config).login(gateway: gateway, credentials: creds, originatingURL: "http://probe/",
                                                                       interface: nil, dnsServers: ["127.0.0.1:1"])
        #expect(elsewhere.outcome == .hostNotAllowed)
        #expect(elsewhere.detail.contains("'anything-else' is not in login-hosts="), "\(elsewhere.detail)")
    }

    /// The form-url of a profile is a post target like any other.
    @Test func formURLOnAStrangerHostIsNotPostedTo() async throws {
        let hosts = try LoginHosts(parsing: "portal.example.net")
        let outcome = await PortalSignIn(environment: NoNetwork()).signIn(
            .form(url: "https://anything-else.example/login", fields: [FormField(name: "pin", value: "4711-secret")], loginHosts: hosts),
            interface: "wlan0", verdict: ProbeVerdict(state: .portal, reason: .wispr))
        guard case .rejected(let why) = outcome else { Issue.record("\(outcome)"); return }
        #expect(why.contains("'anything-else.example', which login-hosts= does not name"), "\(why)")
        #expect(!why.contains("4711-secret"))
    }

    /// A portal that redirects to a page on a stranger's host is refused before the page is even
    /// fetched; one that answers our probe in place (no host of its own named) has its page fetched,
    /// and only the page's redirects and its form's action are held to the list.
    @Test func aRedirectToAStrangersPageIsRefusedButAProbeAnsweredInPlaceIsFetched() async throws {
        let hosts = try LoginHosts(parsing: "portal.example.net")
        let method = SignInMethod.form(url: nil, fields: [FormField(name: "pin", value: "1")], loginHosts: hosts)
        let probe = ConnectivityProbe(url: "http://probe.example/generate_204", expectation: .status(204))
        let redirected = ProbeVerdict(state: .portal, reason: .redirect(status: 302), signInURL: "http://stranger.example/login",
                                      results: [ProbeResult(probe: probe, outcome: .portal, reason: .redirect(status: 302), signInURL: "http://stranger.example/login")])
        guard case .rejected(let why) = await PortalSignIn(environment: NoNetwork()).signIn(method, interface: "wlan0", verdict: redirected) else {
            Issue.record("a stranger's page was fetched"); return
        }
        #expect(why.contains("the sign-in page is on host 'stranger.example'"), "\(why)")
        let inPlace = ProbeVerdict(state: .portal, reason: .unexpectedContent(status: 200), signInURL: probe.url,
                                   results: [ProbeResult(probe: probe, outcome: .portal, reason: .unexpectedContent(status: 200), signInURL: probe.url)])
        let outcome = await PortalSignIn(environment: NoNetwork()).signIn(method, interface: "wlan0", verdict: inPlace)
        guard case .unavailable(let detail) = outcome else { Issue.record("\(outcome)"); return }
        #expect(detail.contains("could not be fetched"), "the page was asked for (and failed: no network): \(detail)")
    }

    @Test func aProfileWithCredentialsAndNoLoginHostsSendsNoneAndTheLoaderSaysWhy() async throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let path = try d.write("roam.conf", "[Roam]\nssid=Roam\nsign-in=wispr\nusername=u\nuser-password=roam-secret-5\n")
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.problems.count == 1)
        let problem = try #require(set.problems.first)
        #expect(problem.hasPrefix("profile \(path) line 1: [Roam] has sign-in credentials but no login-hosts="), "\(problem)")
        #expect(!problem.contains("roam-secret-5"))
        let profile = try #require(set.index.profile(for: SSID("Roam")))
        let outcome = await PortalSignIn(environment: NoNetwork()).signIn(profile.signIn, interface: "wlan0",
                                                                           verdict: ProbeVerdict(state: .portal, reason: .wispr))
        guard case .needsUser(let why) = outcome else { Issue.record("\(outcome)"); return }
        #expect(why.contains("no login-hosts="))
    }
}

/// A portal environment whose transfers all fail at once: for refusals that must happen before
/// anything is sent.
struct NoNetwork: PortalEnvironment {
    func transferOptions(for interface: String) async -> TransferOptions {
        TransferOptions(dnsServers: ["127.0.0.1:1"], timeout: .seconds(1))
    }
    func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict { ProbeVerdict(state: .portal, reason: .wispr) }
    var allowPlainHTTPLogin: Bool { false }
    var wisprProbeURL: String { "http://probe.invalid/" }
}

extension DaemonEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct EvilTwinEndToEndTests {
        /// The twin's gateway names its own host as LoginURL (the simulator answers under every
        /// name; the profile trusts only portal.example.net).
        @Test func evilTwinWISPrLoginURLGetsNoCredentials() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .wispr, username: "roamer", password: "twin-bait-31"),
                                         profile: "[CityFree]\nssid=CityFree\nsign-in=wispr\nusername=roamer\nuser-password=twin-bait-31\nlogin-hosts=portal.example.net\nplain-http-login=true\n") { s in
                try await s.join("CityFree")
                try await s.waitForDisconnect()
                #expect(s.events.contains("probe-portal"), "the twin's gateway was seen: \(s.events)")
                #expect(!s.sim.events().contains { $0.method == "POST" }, "nothing was posted: \(s.events)")
                #expect(!s.events.contains("login-attempt") && !s.events.contains("login-ok"))
                #expect(s.daemon.log.contains("is not in login-hosts=; credentials were not sent"), "the log says why")
                #expect(!s.daemon.log.contains("twin-bait-31"))
                // The reason outlives the disconnect it caused, for the person who asks.
                let reason = try await s.string("Reason")
                #expect(reason.hasPrefix("profile CityFree: ") && reason.contains("is not in login-hosts=; credentials were not sent"), "\(reason)")
            }
        }

        /// The twin redirects to a sign-in page on a host the profile does not name: the page is a
        /// stranger's, whatever its form's action says, and the fields are not posted.
        @Test func evilTwinFormPageOnAStrangerHostGetsNoFields() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .form, username: "alice", password: "twin-bait-32"),
                                         profile: "[CityFree]\nssid=CityFree\nsign-in=form\nform-field-username=alice\nform-field-password=twin-bait-32\nlogin-hosts=portal.example.net;*.example.org\n") { s in
                try await s.join("CityFree")
                try await s.waitForDisconnect()
                #expect(!s.sim.events().contains { $0.method == "POST" }, "nothing was posted: \(s.events)")
                #expect(s.daemon.log.contains("which login-hosts= does not name; credentials were not sent"), "the log says why")
                #expect(!s.daemon.log.contains("twin-bait-32"))
            }
        }

        @Test func profileWithoutLoginHostsSendsNoCredentialsAndTheLogNamesIt() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .wispr, username: "roamer", password: "twin-bait-33"),
                                         profile: "[CityFree]\nssid=CityFree\nsign-in=wispr\nusername=roamer\nuser-password=twin-bait-33\n") { s in
                try await s.join("CityFree")
                try await s.waitFor(state: "presenting-ui", connectivity: "portal")
                #expect(!s.sim.events().contains { $0.method == "POST" }, "nothing was posted: \(s.events)")
                #expect(s.daemon.log.contains("test.conf line 1: [CityFree] has sign-in credentials but no login-hosts="), "at start-up")
                #expect(s.daemon.log.contains("test.conf line 1) sign-in wispr: needs the user: the profile has credentials but no login-hosts="),
                        "at sign-in")
                #expect(!s.daemon.log.contains("twin-bait-33"))
                // hotspotctl status says why (the helper's reason, published as the interface's Reason).
                let status = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["status"])
                #expect(status.stdout.contains("says: profile CityFree: the profile has credentials but no login-hosts=, so none were sent"),
                        "\(status.stdout)\(status.stderr)")
                let json = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["--json", "status"])
                #expect(json.stdout.contains("\"reason\" : \"profile CityFree: the profile has credentials but no login-hosts=") ||
                        json.stdout.contains("\"reason\":\"profile CityFree: the profile has credentials but no login-hosts="), "\(json.stdout)")
                #expect(!status.stdout.contains("twin-bait-33") && !json.stdout.contains("twin-bait-33"))
            }
        }
    }
}
