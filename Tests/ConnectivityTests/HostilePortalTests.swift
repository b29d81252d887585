// SPDX-License-Identifier: Apache-2.0
import Connectivity
import Foundation
import HotspotTesting
import PortalSimulator
import Testing

/// Hostile portals: bounded time and memory, a clear verdict, no crash.
@Suite struct HostilePortalTests {
    func run(_ kind: HostileKind, _ body: (LoopbackHotspot) async throws -> Void) async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .hostile, hostile: kind), body)
    }

    @Test func hundredMegabyteBodyIsCutAndJudgedAPortalPage() async throws {
        try await run(.hugeBody) { h in
            let url = h.probes[1].url, options = TransferOptions.patient(dnsServers: h.dnsServers, maxBodyBytes: 256 * 1024)
            // Bounded time: the transfer ends at the cap, long before 100 MB could be read.
            let a = try await within("the 100 MB answer is cut at 256 KiB") { try await HTTPTransfer.perform(HTTPRequestSpec(url: url), options: options).get() }
            #expect(a.bodyTruncated)
            #expect(a.body.count == 256 * 1024, "memory is bounded by the cap, not the 100 MB body")
            // Patient: on a machine running every suite at once, four 100 MB answers being generated
            // took the default 5 s check past its deadline (a fresh-clone run saw "none, timeout").
            let v = await h.check(timeout: SafetyNet.wait, patient: true)
            #expect(v.state == .portal, "\(v)")
            #expect(v.reason == .unexpectedContent(status: 200))
        }
    }

    @Test func endlessRedirectsAreNotFollowed() async throws {
        try await run(.redirectLoop) { h in
            let v = await h.check()
            #expect(v.state == .portal, "one redirect is a portal; probes never follow it")
            #expect(v.signInURL?.contains("/loop/1") == true)
            let result = await h.wisprClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "u", password: "p"),
                                                     interface: nil, dnsServers: h.dnsServers)
            // Given up after the redirect limit (said, and counted at the portal), not at a timeout.
            #expect(result.outcome == .noGateway)
            #expect(result.detail.contains("redirects") == true, "\(result.detail)")
            #expect(h.sim.events().count <= 1 + 4 + 6, "at most maxRedirects + 1 hops")
        }
    }

    @Test func slowLorisIsATimeout() async throws {
        try await run(.slowLoris) { h in
            // The low-speed limit ends it: the check's own deadline (600 s) is far past the safety net.
            let verdict = try await within("the low-speed limit ends the slow loris's check") { await h.check(timeout: .seconds(600), patient: false) }
            #expect(verdict.state == ProbeVerdict.State.none)
            #expect(verdict.reason == .timeout)
        }
    }

    @Test func malformedXMLIsAPortalPageWithoutWISPr() async throws {
        try await run(.malformedXML) { h in
            let v = await h.check()
            #expect(v.state == .portal)
            #expect(v.wispr == nil)
            #expect(v.signInURL == v.results.first { $0.outcome == .portal }?.probe.url)
            let r = await h.wisprClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "u", password: "p"),
                                                interface: nil, dnsServers: h.dnsServers)
            #expect(r.outcome == .noGateway || r.outcome == .unexpectedReply(nil))
        }
    }

    @Test func deadProbeDoesNotHoldUpAPortalVerdict() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .clickThrough, blackholeHosts: ["nmcheck.gnome.org"])) { h in
            // Patient: nothing but the 600 s timeout ends the dead probe, so a verdict within the
            // safety net was not held up by it.
            let v = try await within("a portal verdict while the dead probe still waits") { await h.check(timeout: .seconds(600), patient: true) }
            #expect(v.state == .portal)
        }
    }

    @Test func deadProbeHoldsUpOnlineOnlyForTheGracePeriod() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .open, blackholeHosts: ["nmcheck.gnome.org"])) { h in
            // The dead probe can end only by being cancelled once the grace period is over: its
            // connect and overall timeouts are far beyond it.
            let v = try await within("online decided after the grace period (the check's timeout is 600 s)") { await h.check(timeout: .seconds(600), patient: true) }
            #expect(v.state == .online)
            #expect(v.results.contains { $0.reason == .cancelled }, "the dead probe was not cancelled: \(v.results.map(\.reason))")
        }
    }
}
