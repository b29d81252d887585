// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import PortalSimulator
import Testing

/// Real HTTP over loopback against the simulator in each mode.
@Suite struct LoopbackSimulatorTests {
    @Test func openNetworkIsOnlineAndNamesResolveThroughTheLinkDNS() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .open)) { h in
            let v = await h.check(patient: false)
            #expect(v.state == .online, "\(v.results.map(\.reason))")
            #expect(v.successes >= 2)
            #expect(h.dns.questions.contains("connectivitycheck.gstatic.com"), "probes used the link's DNS server")
        }
    }

    @Test func clickThroughIsPortalUntilTheTermsAreAccepted() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .clickThrough)) { h in
            let v = await h.check()
            #expect(v.state == .portal)
            #expect(v.signInURL?.contains("/portal?orig=") == true)
            _ = try await h.post("portal.test", "/portal/accept", "accept=no")
            #expect(await h.check().state == .portal, "refusing the terms keeps the portal")
            #expect(h.sim.events().contains { $0.kind == "refused" })
            _ = try await h.post("portal.test", "/portal/accept", "accept=yes")
            let after = await h.check()
            #expect(after.state == .online, "\(h.sim.events())")
        }
    }

    @Test func formModeNeedsTheRightFields() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .form, username: "u", password: "p")) { h in
            #expect(await h.check().signInURL?.hasSuffix("/login") == true)
            let wrong = try await h.post("portal.test", "/login", "username=u&password=nope")
            #expect(wrong.status == 403)
            #expect(await h.check().state == .portal)
            _ = try await h.post("portal.test", "/login", "username=u&password=p")
            #expect(await h.check().state == .online)
            let events = h.sim.events()
            #expect(events.contains { $0.kind == "login-failed" && $0.detail == "fields: password,username" })
            #expect(!events.contains { $0.detail.contains("nope") }, "passwords are never recorded")
        }
    }

    @Test(arguments: [1, 2])
    func wisprLoginLogoff(version: Int) async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .wispr, wisprVersion: version)) { h in
            let v = await h.check()
            #expect(v.state == .portal)
            #expect(v.reason == .wispr)
            #expect(v.wispr?.isVersion2 == (version == 2))
            #expect(v.signInURL?.contains("/wispr/login?res=wispr&uamip=") == true, "&amp; decoded")
            let client = h.wisprClient()
            let r = await client.login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "user", password: "secret"),
                                       interface: nil, dnsServers: h.dnsServers)
            #expect(r.outcome == .succeeded, "\(r.detail)")
            let logoff = try #require(r.logoffURL)
            #expect(await h.check().state == .online)
            #expect(await client.logoff(logoffURL: logoff, interface: nil, dnsServers: h.dnsServers))
            #expect(await h.check().state == .portal)
            let attempt = try #require(h.sim.events().first { $0.kind == "login-attempt" })
            #expect(attempt.detail == "fields: FNAME,OriginatingServer,Password,UserName,button")
        }
    }

    @Test func wisprPending201IsPolledUntilSuccess() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .wispr, wisprVersion: 2, pending: true)) { h in
            let r = await h.wisprClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "user", password: "secret"),
                                                interface: nil, dnsServers: h.dnsServers)
            #expect(r.outcome == .succeeded, "\(r.detail)")
            #expect(r.reply?.kind == .authenticationPollReply)
            let kinds = h.sim.events().map(\.kind)
            #expect(kinds.contains("login-pending") && kinds.contains("login-ok"))
        }
    }

    @Test(arguments: [("user", "wrong", "rejected"), ("radius-error", "x", "radiusError"),
                      ("no-radius", "x", "radiusNotEnabled"), ("gateway-error", "x", "gatewayError")])
    func wisprFailuresAreReported(user: String, password: String, outcome: String) async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .wispr)) { h in
            let r = await h.wisprClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: user, password: password),
                                                interface: nil, dnsServers: h.dnsServers)
            #expect(String(describing: r.outcome) == outcome, "\(r.detail)")
            #expect(!r.detail.contains(password) || password == "x")
            let after = await h.check()
            #expect(after.state == .portal, "\(after)")
        }
    }

    @Test func wisprOverPlainHTTPIsRefusedByDefault() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .wispr)) { h in
            let r = await WISPrClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "user", password: "secret"),
                                              interface: nil, dnsServers: h.dnsServers)
            #expect(r.outcome == .insecureLoginURL)
            #expect(!h.sim.events().contains { $0.kind == "login-attempt" }, "no credentials were sent")
        }
    }

    @Test func brokenGatewayQuirksStillSignIn() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .broken)) { h in
            let v = await h.check()
            #expect(v.state == .portal)
            #expect(v.reason == .wispr)
            let r = await h.wisprClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "user", password: "secret"),
                                                interface: nil, dnsServers: h.dnsServers)
            #expect(r.outcome == .succeeded, "\(r.detail)")
            #expect(r.logoffURL != nil)
        }
    }

    @Test func evasivePortalIsStillFound() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .evasive)) { h in
            let v = await h.check()
            #expect(v.state == .portal, "two probe hosts are whitelisted, the others see the portal")
            let online = v.results.filter { $0.outcome == .online }.map(\.probe.url)
            #expect(online.allSatisfy { $0.contains("gstatic") || $0.contains("apple") })
        }
    }

    @Test func slowPortalTimesOutWithShortDeadlinesAndIsFoundWithLongerOnes() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .slow, slowDelay: .milliseconds(1500))) { h in
            let short = await h.check(timeout: .milliseconds(700), patient: false)
            #expect(short.state == .none)
            #expect(short.reason == .timeout)
            let long = await h.check(timeout: .seconds(30), patient: true)
            #expect(long.state == .portal, "\(long.reason): \(long.results.map(\.reason))")
        }
    }

    @Test func eventsAreServedAsJSON() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .clickThrough)) { h in
            _ = await h.check()
            let o = TransferOptions.patient(dnsServers: h.dnsServers)
            let a = try await HTTPTransfer.perform(HTTPRequestSpec(url: h.url("sim.test", "/__sim/events")), options: o).get()
            let events = try JSONDecoder().decode([SimulatorEvent].self, from: a.body)
            #expect(events.filter { $0.kind == "probe-portal" }.count >= 1)
            #expect(Set(events.map(\.host)).contains("captive.apple.com"), "any Host header is answered")
        }
    }
}

/// HTTPS: TLS terminated by socat with a test CA the test makes.
@Suite(.enabled(if: TLSFront.available, "needs socat and openssl (scripts/install-deps.sh)"))
struct TLSTests {
    /// socat starts an OpenSSL handshake per connection: on a machine running every suite at once
    /// that can take seconds, so the transfers here get more time than the daemon's defaults.
    static let tlsOptions = TransferOptions.patient()
    /// The session signed into: long enough for the fetches after the sign-in to see it live
    /// on a busy machine (each is a TLS handshake through socat; under make test-loaded the
    /// fetch after the sign-in once came more than 10 s later). The test waits for its end.
    static let session = 60

    @Test func capportSessionCaptiveSignedInExpiringAndLastValidKept() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .capport, sessionSeconds: Self.session)) { h in
            let tls = try await TLSFront.start(forwardingTo: h.port)
            defer { tls.stop() }
            var o = Self.tlsOptions
            o.caFile = tls.caFile
            let client = CaptivePortalAPIClient(url: "https://capport.test:\(tls.port)/api/captive", options: o)
            let first = await client.fetch(interface: nil, dnsServers: h.dnsServers)
            #expect(first.status?.captive == true, "\(String(describing: first.error))")
            #expect(first.status?.userPortalURL?.hasPrefix("https://") == true)
            let verdict = await h.checker(timeout: .seconds(20), patient: true).check(interface: nil, dnsServers: h.dnsServers, capport: client)
            #expect(verdict.state == .portal)
            #expect(verdict.reason == .capportCaptive)
            #expect(verdict.signInURL == first.status?.userPortalURL)

            _ = try await h.post("portal.test", "/portal/accept", "accept=yes")
            let live = await client.fetch(interface: nil, dnsServers: h.dnsServers)
            let status = try #require(live.status)
            #expect(!status.captive)
            let remaining = try #require(status.secondsRemaining)
            #expect((0...Int64(Self.session)).contains(remaining))
            #expect(status.canExtendSession == true)
            #expect(MaintainSchedule.delay(for: status) < .seconds(remaining), "maintain comes before the session runs out")
            #expect(await h.checker(timeout: .seconds(20), patient: true).check(interface: nil, dnsServers: h.dnsServers, capport: client).state == .online)

            // The session runs out (the API says captive again), whenever that is seen.
            var expired = await client.fetch(interface: nil, dnsServers: h.dnsServers)
            let deadline = ContinuousClock.now + .seconds(Self.session) + SafetyNet.wait
            while !(expired.isFresh && expired.status?.captive == true) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(250))
                expired = await client.fetch(interface: nil, dnsServers: h.dnsServers)
            }
            #expect(expired.isFresh && expired.status?.captive == true, "the session expired: \(String(describing: expired.error))")

            tls.stop()
            let stale = await client.fetch(interface: nil, dnsServers: h.dnsServers)
            #expect(!stale.isFresh)
            #expect(stale.error?.kind == .transport)
            #expect(stale.status?.captive == true, "the last valid answer is kept")
        }
    }

    @Test func capportCertificateIsChecked() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .capport)) { h in
            let tls = try await TLSFront.start(forwardingTo: h.port)
            defer { tls.stop() }
            let client = CaptivePortalAPIClient(url: "https://capport.test:\(tls.port)/api/captive")
            let a = await client.fetch(interface: nil, dnsServers: h.dnsServers)
            #expect(a.status == nil)
            #expect(a.error?.kind == .transport)
            #expect(a.error?.detail.hasPrefix("https://capport.test:\(tls.port)/api/captive: tls") == true, "\(String(describing: a.error))")
        }
    }

    @Test func malformedJSONIsRejected() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .hostile, hostile: .malformedJSON)) { h in
            let tls = try await TLSFront.start(forwardingTo: h.port)
            defer { tls.stop() }
            var o = Self.tlsOptions
            o.caFile = tls.caFile
            let a = await CaptivePortalAPIClient(url: "https://capport.test:\(tls.port)/api/captive", options: o)
                .fetch(interface: nil, dnsServers: h.dnsServers)
            #expect(a.status == nil)
            #expect(a.error?.kind == .notJSON)
        }
    }

    @Test func httpWorksHTTPSDoesNotIsPartial() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .open)) { h in
            let tls = try await TLSFront.start(forwardingTo: h.port)
            defer { tls.stop() }
            let https = ConnectivityProbe(url: "https://www.google.com:\(tls.port)/generate_204", expectation: .status(204))
            let probes = Array(h.probes.prefix(2)) + [https]
            let trusted = await h.checker(timeout: .seconds(30), probes: probes, caFile: tls.caFile, patient: true).check(interface: nil, dnsServers: h.dnsServers)
            #expect(trusted.state == .online, "\(trusted.results.map(\.reason))")
            let untrusted = await h.checker(timeout: .seconds(30), probes: probes, caFile: "/dev/null", patient: true).check(interface: nil, dnsServers: h.dnsServers)
            #expect(untrusted.state == .partial, "\(untrusted.results.map { "\($0.probe.url): \($0.reason)" })")
            #expect(untrusted.reason == .tls)
        }
    }
}
