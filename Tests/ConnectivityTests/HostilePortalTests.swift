// SPDX-License-Identifier: Apache-2.0
import Connectivity
import Foundation
import PortalSimulator
import Testing

/// Hostile portals: bounded time and memory, a clear verdict, no crash.
@Suite struct HostilePortalTests {
    func start(_ kind: HostileKind) async throws -> LoopbackHotspot {
        try await LoopbackHotspot.start(PortalSimulatorConfiguration(mode: .hostile, hostile: kind))
    }

    @Test func hundredMegabyteBodyIsCutAndJudgedAPortalPage() async throws {
        let h = try await start(.hugeBody)
        defer { Task { await h.stop() } }
        let clock = ContinuousClock()
        var answer: HTTPAnswer?
        let took = try await clock.measure {
            var o = TransferOptions(maxBodyBytes: 256 * 1024)
            o.dnsServers = h.dnsServers
            answer = try await HTTPTransfer.perform(HTTPRequestSpec(url: h.probes[1].url), options: o).get()
        }
        let a = try #require(answer)
        #expect(a.bodyTruncated)
        #expect(a.body.count == 256 * 1024, "memory is bounded by the cap, not the 100 MB body")
        #expect(took < .seconds(10))
        // Patient: on a machine running every suite at once, four 100 MB answers being generated
        // took the default 5 s check past its deadline (a fresh-clone run saw "none, timeout").
        let v = await h.check(timeout: .seconds(20), patient: true)
        #expect(v.state == .portal, "\(v)")
        #expect(v.reason == .unexpectedContent(status: 200))
        #expect(v.elapsed < .seconds(20))
    }

    @Test func endlessRedirectsAreNotFollowed() async throws {
        let h = try await start(.redirectLoop)
        defer { Task { await h.stop() } }
        let v = await h.check()
        #expect(v.state == .portal, "one redirect is a portal; probes never follow it")
        #expect(v.signInURL?.contains("/loop/1") == true)
        let clock = ContinuousClock()
        var result: WISPrLoginResult?
        let took = await clock.measure {
            result = await h.wisprClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "u", password: "p"),
                                                 interface: nil, dnsServers: h.dnsServers)
        }
        #expect(result?.outcome == .noGateway)
        #expect(result?.detail.contains("redirects") == true)
        #expect(took < .seconds(5))
        #expect(h.sim.events().count <= 1 + 4 + 6, "at most maxRedirects + 1 hops")
    }

    @Test func slowLorisIsATimeout() async throws {
        let h = try await start(.slowLoris)
        defer { Task { await h.stop() } }
        let clock = ContinuousClock()
        var verdict: ProbeVerdict?
        let took = await clock.measure { verdict = await h.check(timeout: .seconds(20), patient: false) }
        #expect(verdict?.state == ProbeVerdict.State.none)
        #expect(verdict?.reason == .timeout)
        #expect(took < .seconds(6), "the low-speed limit ends it long before the 20 s deadline (took \(took))")
    }

    @Test func malformedXMLIsAPortalPageWithoutWISPr() async throws {
        let h = try await start(.malformedXML)
        defer { Task { await h.stop() } }
        let v = await h.check()
        #expect(v.state == .portal)
        #expect(v.wispr == nil)
        #expect(v.signInURL == v.results.first { $0.outcome == .portal }?.probe.url)
        let r = await h.wisprClient().login(probeURL: h.probes[0].url, credentials: WISPrCredentials(username: "u", password: "p"),
                                            interface: nil, dnsServers: h.dnsServers)
        #expect(r.outcome == .noGateway || r.outcome == .unexpectedReply(nil))
    }

    @Test func deadProbeDoesNotHoldUpAPortalVerdict() async throws {
        let h = try await LoopbackHotspot.start(PortalSimulatorConfiguration(mode: .clickThrough, blackholeHosts: ["nmcheck.gnome.org"]))
        defer { Task { await h.stop() } }
        let v = await h.check(timeout: .seconds(10), patient: false)
        #expect(v.state == .portal)
        // Well below the dead probe's 10 s timeout (a generous bound: the machine may be busy).
        #expect(v.elapsed < .seconds(5))
    }

    @Test func deadProbeHoldsUpOnlineOnlyForTheGracePeriod() async throws {
        let h = try await LoopbackHotspot.start(PortalSimulatorConfiguration(mode: .open, blackholeHosts: ["nmcheck.gnome.org"]))
        defer { Task { await h.stop() } }
        // The dead probe can end only by being cancelled once the grace period is over: its
        // connect and overall timeouts are far beyond it.
        let v = await h.check(timeout: .seconds(60), patient: true)
        #expect(v.state == .online)
        #expect(v.results.contains { $0.reason == .cancelled }, "the dead probe was not cancelled: \(v.results.map(\.reason))")
        #expect(v.elapsed < .seconds(30), "decided after the grace period, not at the 60 s timeout")
    }
}
