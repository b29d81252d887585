// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import Connectivity

@Suite struct ClassificationTests {
    let p204 = ConnectivityProbe(url: "http://connectivitycheck.gstatic.com/generate_204", expectation: .status(204))
    let apple = ConnectivityProbe(url: "http://captive.apple.com/hotspot-detect.html", expectation: .bodyContains("Success"))
    let msft = ConnectivityProbe(url: "http://www.msftconnecttest.com/connecttest.txt", expectation: .bodyEquals("Microsoft Connect Test"))
    let nm = ConnectivityProbe(url: "http://nmcheck.gnome.org/check_network_status.txt",
                               expectation: .anyOf([.header(name: "X-NetworkManager-Status", value: "online"), .bodyPrefix("NetworkManager is online")]))
    let https = ConnectivityProbe(url: "https://www.google.com/generate_204", expectation: .status(204))

    func answer(_ status: Int, _ body: String = "", headers: [HTTPField] = [], url: String = "http://x/") -> Result<HTTPAnswer, TransferError> {
        .success(HTTPAnswer(status: status, headers: headers, body: Data(body.utf8), url: url))
    }

    @Test func status204IsOnline() {
        let r = ProbeClassifier.classify(p204, answer(204))
        #expect(r.outcome == .online)
        #expect(r.reason == .expected)
    }

    @Test func redirectWithLocationIsPortalAtLocation() {
        let r = ProbeClassifier.classify(p204, answer(302, headers: [HTTPField("Location", "https://portal.example/login?x=1")]))
        #expect(r.outcome == .portal)
        #expect(r.reason == .redirect(status: 302))
        #expect(r.signInURL == "https://portal.example/login?x=1")
    }

    @Test(arguments: [301, 303, 307, 308])
    func everyRedirectStatusIsPortal(status: Int) {
        let r = ProbeClassifier.classify(p204, answer(status, headers: [HTTPField("location", "/splash")]))
        #expect(r.outcome == .portal)
        #expect(r.signInURL == "http://connectivitycheck.gstatic.com/splash", "a relative Location resolves against the probe URL")
    }

    @Test func redirectWithoutLocationUsesTheProbeURL() {
        let r = ProbeClassifier.classify(p204, answer(302))
        #expect(r.outcome == .portal)
        #expect(r.signInURL == p204.url)
    }

    @Test func pageWithContentInsteadOf204IsPortalAtProbeURL() {
        let r = ProbeClassifier.classify(p204, answer(200, "<html>Welcome to the hotel Wi-Fi</html>"))
        #expect(r.outcome == .portal)
        #expect(r.reason == .unexpectedContent(status: 200))
        #expect(r.signInURL == p204.url)
    }

    @Test func emptyOrTiny200IsFailedNotPortal() {
        #expect(ProbeClassifier.classify(p204, answer(200)).outcome == .failed)
        #expect(ProbeClassifier.classify(p204, answer(200, "ok\n")).reason == .status(200))
    }

    @Test func status511IsPortal() {
        let r = ProbeClassifier.classify(p204, answer(511, "sign in"))
        #expect(r.outcome == .portal)
        #expect(r.reason == .networkAuthenticationRequired)
    }

    @Test(arguments: [400, 403, 404, 500, 502, 503])
    func errorStatusesAreFailedWithTheStatus(status: Int) {
        let r = ProbeClassifier.classify(p204, answer(status, "error page"))
        #expect(r.outcome == .failed)
        #expect(r.reason == .status(status))
    }

    @Test func bodyContainsSuccess() {
        #expect(ProbeClassifier.classify(apple, answer(200, "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>\n")).outcome == .online)
        #expect(ProbeClassifier.classify(apple, answer(200, "<html>Login</html>")).outcome == .portal)
        #expect(ProbeClassifier.classify(apple, answer(404, "Success")).outcome == .failed, "a 404 is not success even with the word")
    }

    @Test func bodyEqualsTrimsWhiteSpace() {
        #expect(ProbeClassifier.classify(msft, answer(200, "Microsoft Connect Test\n")).outcome == .online)
        #expect(ProbeClassifier.classify(msft, answer(200, "Microsoft Connect Test, sort of")).outcome == .portal)
    }

    @Test func networkManagerHeaderOrBodyPrefix() {
        #expect(ProbeClassifier.classify(nm, answer(200, "", headers: [HTTPField("X-NetworkManager-Status", "Online")])).outcome == .online)
        #expect(ProbeClassifier.classify(nm, answer(204, "", headers: [HTTPField("x-networkmanager-status", "online")])).outcome == .online)
        #expect(ProbeClassifier.classify(nm, answer(200, "NetworkManager is online\n")).outcome == .online)
        #expect(ProbeClassifier.classify(nm, answer(200, "NetworkManager is offline, sign in")).outcome == .portal)
        #expect(ProbeClassifier.classify(nm, answer(200, "x", headers: [HTTPField("X-NetworkManager-Status", "offline")])).outcome == .failed)
    }

    @Test func truncatedBodyNeverMatchesABodyExpectation() {
        let big = HTTPAnswer(status: 200, body: Data("Success".utf8), bodyTruncated: true, url: apple.url)
        #expect(ProbeClassifier.classify(apple, .success(big)).outcome == .portal)
    }

    @Test func wisprInA302BodyGivesLoginURL() {
        let body = WISPrFixtures.redirect1
        let r = ProbeClassifier.classify(p204, answer(302, body, headers: [HTTPField("Location", "http://gw/splash")]))
        #expect(r.outcome == .portal)
        #expect(r.reason == .wispr)
        #expect(r.signInURL == "https://gw.example/login?res=wispr&uamip=10.1.0.1")
        #expect(r.wispr?.kind == .redirect)
    }

    @Test func httpsUnexpectedAnswerIsFailedNotPortal() {
        let r = ProbeClassifier.classify(https, answer(302, headers: [HTTPField("Location", "http://portal/")]))
        #expect(r.outcome == .failed)
        #expect(r.reason == .status(302))
        #expect(ProbeClassifier.classify(https, answer(204)).outcome == .online)
    }

    @Test(arguments: [(TransferError.Kind.dns, ProbeReason.dns), (.tls, .tls), (.timeout, .timeout), (.refused, .refused), (.other, .transport)])
    func transportFailuresKeepTheirReason(kind: TransferError.Kind, reason: ProbeReason) {
        let r = ProbeClassifier.classify(p204, .failure(TransferError(kind, "x")))
        #expect(r.outcome == .failed)
        #expect(r.reason == reason)
    }
}

@Suite struct AggregatorTests {
    let http = (0..<4).map { ConnectivityProbe(url: "http://h\($0).test/generate_204", expectation: .status(204)) }
    let https = (0..<2).map { ConnectivityProbe(url: "https://s\($0).test/generate_204", expectation: .status(204)) }

    func online(_ p: ConnectivityProbe) -> ProbeResult { ProbeResult(probe: p, outcome: .online, reason: .expected) }
    func portal(_ p: ConnectivityProbe, _ url: String = "http://portal/") -> ProbeResult {
        ProbeResult(probe: p, outcome: .portal, reason: .redirect(status: 302), signInURL: url)
    }
    func failed(_ p: ConnectivityProbe, _ r: ProbeReason) -> ProbeResult { ProbeResult(probe: p, outcome: .failed, reason: r) }

    func state(_ d: VerdictAggregator.Decision) -> ProbeVerdict.State? {
        if case .decided(let v) = d { return v.state }
        return nil
    }

    @Test func requiredIsTheThresholdRoundedUp() {
        #expect(VerdictAggregator(probes: http, policy: VerdictPolicy()).required == 2)
        #expect(VerdictAggregator(probes: Array(http.prefix(3)), policy: VerdictPolicy()).required == 2)
        #expect(VerdictAggregator(probes: http, policy: VerdictPolicy(successThreshold: 0.75)).required == 3)
        #expect(VerdictAggregator(probes: [], policy: VerdictPolicy()).required == 1)
    }

    @Test func firstPortalAnswerDecidesAtOnce() {
        var a = VerdictAggregator(probes: http, policy: VerdictPolicy())
        a.record(2, portal(http[2], "http://portal/login"))
        guard case .decided(let v) = a.evaluate(elapsed: .zero) else { Issue.record("not decided"); return }
        #expect(v.state == .portal)
        #expect(v.signInURL == "http://portal/login")
    }

    @Test func portalVetoesOnlineQuorum() {
        var a = VerdictAggregator(probes: http, policy: VerdictPolicy())
        a.record(0, online(http[0]))
        a.record(1, online(http[1]))
        a.record(2, portal(http[2]))
        #expect(state(a.evaluate(elapsed: .zero)) == .portal)
    }

    @Test func quorumWithPendingHTTPWaitsForGraceThenOnline() {
        var a = VerdictAggregator(probes: http, policy: VerdictPolicy())
        a.record(0, online(http[0]))
        #expect(a.evaluate(elapsed: .zero) == .pending)
        a.record(1, online(http[1]))
        #expect(a.evaluate(elapsed: .zero) == .settledButForPendingHTTP)
        #expect(state(a.evaluate(elapsed: .zero, force: true)) == .online)
    }

    @Test func quorumDecidesAtOnceWhenOnlyHTTPSIsPending() {
        let probes = Array(http.prefix(2)) + https
        var a = VerdictAggregator(probes: probes, policy: VerdictPolicy())
        a.record(0, online(probes[0]))
        a.record(2, online(probes[2]))
        #expect(a.evaluate(elapsed: .zero) == .settledButForPendingHTTP)
        a.record(1, online(probes[1]))
        #expect(state(a.evaluate(elapsed: .zero)) == .online, "2 of 4 and the remaining probe is HTTPS: settled")
    }

    @Test func unreachableQuorumIsNoneWithTheDominantReason() {
        var a = VerdictAggregator(probes: http, policy: VerdictPolicy())
        a.record(0, failed(http[0], .dns))
        a.record(1, failed(http[1], .dns))
        a.record(2, failed(http[2], .timeout))
        // Not online is settled, but the last HTTP probe could still show a portal: wait for it.
        #expect(a.evaluate(elapsed: .zero) == .pending)
        a.record(3, failed(http[3], .dns))
        guard case .decided(let v) = a.evaluate(elapsed: .zero) else { Issue.record("not decided"); return }
        #expect(v.state == .none)
        #expect(v.reason == .dns)
    }

    @Test func anHTTPSFailureArrivingFirstWaitsForTheHTTPProbesBeforeSayingPartial() {
        let probes = Array(http.prefix(2)) + https.prefix(1)
        var a = VerdictAggregator(probes: probes, policy: VerdictPolicy())
        a.record(2, failed(probes[2], .tls))
        #expect(a.evaluate(elapsed: .seconds(1)) == .pending, "HTTP answers decide between partial, portal and none")
        a.record(0, online(probes[0]))
        a.record(1, online(probes[1]))
        guard case .decided(let v) = a.evaluate(elapsed: .seconds(1)) else { Issue.record("not decided"); return }
        #expect(v.state == .partial)
        #expect(v.reason == .tls)
    }

    @Test func httpWorksHTTPSFailsIsPartial() {
        let probes = Array(http.prefix(2)) + https
        var a = VerdictAggregator(probes: probes, policy: VerdictPolicy())
        a.record(0, online(probes[0]))
        a.record(1, online(probes[1]))
        a.record(2, failed(probes[2], .tls))
        #expect(a.evaluate(elapsed: .zero) == .pending, "an HTTPS probe is still out: it may yet succeed")
        a.record(3, failed(probes[3], .tls))
        guard case .decided(let v) = a.evaluate(elapsed: .zero) else { Issue.record("not decided"); return }
        #expect(v.state == .partial)
        #expect(v.reason == .tls)
    }

    @Test func waitForAllNeverDecidesEarly() {
        var a = VerdictAggregator(probes: http, policy: VerdictPolicy(waitForAll: true))
        a.record(0, portal(http[0]))
        #expect(a.evaluate(elapsed: .zero) == .pending)
        for i in 1..<4 { a.record(i, online(http[i])) }
        #expect(state(a.evaluate(elapsed: .zero)) == .portal)
    }

    @Test func capportCaptiveDecidesPortalWithUserPortalURL() {
        var a = VerdictAggregator(probes: http, policy: VerdictPolicy(), expectCapport: true)
        a.record(0, online(http[0]))
        a.record(1, online(http[1]))
        a.record(2, online(http[2]))
        a.record(3, online(http[3]))
        #expect(a.evaluate(elapsed: .zero) == .pending, "waits for the API")
        a.recordCapport(CaptivePortalStatus(captive: true, userPortalURL: "https://portal.example/"))
        guard case .decided(let v) = a.evaluate(elapsed: .zero) else { Issue.record("not decided"); return }
        #expect(v.state == .portal)
        #expect(v.reason == .capportCaptive)
        #expect(v.signInURL == "https://portal.example/")
    }

    @Test func capportNotCaptiveLeavesTheDecisionToProbes() {
        var a = VerdictAggregator(probes: http, policy: VerdictPolicy(), expectCapport: true)
        a.recordCapport(CaptivePortalStatus(captive: false, secondsRemaining: 30))
        for i in 0..<4 { a.record(i, failed(http[i], .timeout)) }
        guard case .decided(let v) = a.evaluate(elapsed: .zero) else { Issue.record("not decided"); return }
        #expect(v.state == .none)
        #expect(v.capport?.secondsRemaining == 30)
    }
}

@Suite struct ScheduleTests {
    let config = ConnectivitySchedule.Configuration(failuresBeforeLeavingOnline: 3, initialDelay: .seconds(1), interval: .seconds(60))

    @Test func onlineChecksEveryInterval() {
        var s = ConnectivitySchedule(configuration: config)
        #expect(s.isDue(at: .zero))
        let changed1 = s.record(.online, at: .seconds(0)); #expect(changed1)
        #expect(s.nextCheck == .seconds(60))
        #expect(!s.isDue(at: .seconds(59)))
        #expect(s.isDue(at: .seconds(60)))
    }

    @Test func leavingOnlineNeedsConsecutiveFailures() {
        var s = ConnectivitySchedule(configuration: config)
        s.record(.online, at: .zero)
        let changed2 = s.record(.portal, at: .seconds(60)); #expect(!changed2)
        #expect(s.published == .online)
        #expect(s.nextCheck == .seconds(61), "a doubt is confirmed after the initial delay")
        let changed3 = s.record(.portal, at: .seconds(61)); #expect(!changed3)
        #expect(s.published == .online)
        let changed4 = s.record(.portal, at: .seconds(63)); #expect(changed4)
        #expect(s.published == .portal)
    }

    @Test func aSuccessInBetweenResetsTheCount() {
        var s = ConnectivitySchedule(configuration: config)
        s.record(.online, at: .zero)
        s.record(.none, at: .seconds(1))
        s.record(.none, at: .seconds(2))
        s.record(.online, at: .seconds(3))
        #expect(s.consecutiveFailures == 0)
        s.record(.none, at: .seconds(4))
        #expect(s.published == .online)
    }

    @Test func backoffDoublesToTheIntervalWhileNotOnline() {
        var s = ConnectivitySchedule(configuration: config)
        var now = Duration.zero
        var delays: [Duration] = []
        for _ in 0..<9 {
            s.record(.portal, at: now)
            delays.append(s.currentDelay)
            now = s.nextCheck
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        #expect(s.published == .portal, "entering a non-online state from nothing is immediate")
    }

    @Test func stateChangeResetsBackoffAndOnlineIsImmediate() {
        var s = ConnectivitySchedule(configuration: config)
        s.record(.portal, at: .zero)
        s.record(.portal, at: .seconds(1))
        #expect(s.currentDelay == .seconds(2))
        s.record(.none, at: .seconds(3))
        #expect(s.currentDelay == .seconds(1))
        let changed5 = s.record(.online, at: .seconds(4)); #expect(changed5)
        #expect(s.published == .online)
    }

    @Test func recheckSoonMakesACheckDueNow() {
        var s = ConnectivitySchedule(configuration: config)
        s.record(.portal, at: .zero)
        s.record(.portal, at: .seconds(1))
        s.recheckSoon(at: .seconds(2))
        #expect(s.isDue(at: .seconds(2)))
        #expect(s.currentDelay == .seconds(1))
    }
}
