// SPDX-License-Identifier: Apache-2.0
import Connectivity
import FoundationEssentials
import HotspotTesting
import Testing

/// The checker, the WISPr and RFC 8908 clients through the transport seam: no
/// sockets, a script answers, and what was asked of which host is read back.
@Suite struct ScriptedTransportTests {
    static let probes = [
        ConnectivityProbe(url: "http://probe-a.test/generate_204", expectation: .status(204)),
        ConnectivityProbe(url: "http://probe-b.test/hotspot", expectation: .bodyContains("Success")),
    ]

    func checker(_ transport: ScriptedTransport) -> ConnectivityChecker {
        ConnectivityChecker(configuration: ConnectivityConfiguration(probes: Self.probes), transport: transport)
    }

    @Test func expectedAnswersAreOnlineAndEveryProbeIsAskedThroughTheLink() async {
        let transport = ScriptedTransport { request in
            request.url.contains("generate_204") ? .success(.scripted(request.url, status: 204))
                                                  : .success(.scripted(request.url, status: 200, body: "<html>Success</html>"))
        }
        let verdict = await checker(transport).check(interface: "wlan0", dnsServers: ["192.0.2.53"])
        #expect(verdict.state == .online)
        #expect(Set(transport.requests.compactMap(\.host)) == ["probe-a.test", "probe-b.test"])
        #expect(transport.requests.allSatisfy { $0.options.interface == "wlan0" && $0.options.dnsServers == ["192.0.2.53"] })
    }

    @Test func aRedirectIsAPortalWithItsSignInPage() async {
        let transport = ScriptedTransport { request in
            .success(.scripted(request.url, status: 302, location: "https://portal.test/login?from=probe"))
        }
        let verdict = await checker(transport).check(interface: nil, dnsServers: [])
        #expect(verdict.state == .portal)
        #expect(verdict.signInURL == "https://portal.test/login?from=probe")
    }

    @Test func transportFailuresAreNoConnectivity() async {
        let transport = ScriptedTransport { _ in .failure(TransferError(.dns, "no such name")) }
        let verdict = await checker(transport).check(interface: nil, dnsServers: [])
        #expect(verdict.state == .none)
    }

    static func gateway(loginURL: String) -> String {
        """
        <html><!--<?xml version="1.0" encoding="UTF-8"?>
        <WISPAccessGatewayParam><Redirect><AccessProcedure>1.0</AccessProcedure><AccessLocation>x</AccessLocation>
        <LocationName>Lobby</LocationName><LoginURL>\(loginURL)</LoginURL><MessageType>100</MessageType><ResponseCode>0</ResponseCode>
        </Redirect></WISPAccessGatewayParam>--></html>
        """
    }

    static func reply(_ code: Int) -> String {
        "<WISPAccessGatewayParam><AuthenticationReply><MessageType>120</MessageType><ResponseCode>\(code)</ResponseCode>"
            + "<LogoffURL>https://login.hotel.test/logoff</LogoffURL></AuthenticationReply></WISPAccessGatewayParam>"
    }

    /// A gateway: the probe is redirected once to the hotel's start page, which carries the
    /// Redirect message naming `loginURL`; a POST there answers `code`.
    static func hotel(loginURL: String, code: Int) -> ScriptedTransport {
        ScriptedTransport { request in
            if request.method == "POST" { return .success(.scripted(request.url, status: 200, body: reply(code))) }
            if request.url.hasPrefix("http://probe") { return .success(.scripted(request.url, status: 302, location: "https://login.hotel.test/start")) }
            return .success(.scripted(request.url, status: 200, body: gateway(loginURL: loginURL)))
        }
    }

    func client(_ transport: ScriptedTransport) throws -> WISPrClient {
        WISPrClient(configuration: WISPrClient.Configuration(loginHosts: try LoginHosts(parsing: "login.hotel.test")), transport: transport)
    }

    @Test func wisprSignsInThroughARedirectAndPostsTheCredentialsToTheLoginURL() async throws {
        let transport = Self.hotel(loginURL: "https://login.hotel.test/wispr", code: 50)
        let result = try await client(transport).login(probeURL: "http://probe-a.test/generate_204",
                                                       credentials: WISPrCredentials(username: "guest", password: "room-412"),
                                                       interface: "wlan0", dnsServers: [])
        #expect(result.outcome == .succeeded)
        #expect(result.logoffURL == "https://login.hotel.test/logoff")
        let posts = transport.requests.filter { $0.spec.method == "POST" }
        #expect(posts.map(\.spec.url) == ["https://login.hotel.test/wispr"])
        #expect(posts.first?.bodyText.contains("Password=room-412") == true)
        #expect(transport.requests.map(\.spec.url).prefix(2) == ["http://probe-a.test/generate_204", "https://login.hotel.test/start"])
    }

    @Test func aRejectionIsReportedAsSuch() async throws {
        let transport = Self.hotel(loginURL: "https://login.hotel.test/wispr", code: 100)
        let result = try await client(transport).login(probeURL: "http://probe-a.test/generate_204",
                                                       credentials: WISPrCredentials(username: "guest", password: "wrong"),
                                                       interface: nil, dnsServers: [])
        #expect(result.outcome == .rejected)
    }

    @Test func credentialsNeverGoToAHostLoginHostsDoesNotName() async throws {
        // An evil twin: the gateway names a LoginURL elsewhere.
        let transport = Self.hotel(loginURL: "https://collector.evil.test/wispr", code: 50)
        let result = try await client(transport).login(probeURL: "http://probe-a.test/generate_204",
                                                       credentials: WISPrCredentials(username: "guest", password: "room-412"),
                                                       interface: nil, dnsServers: [])
        #expect(result.outcome == .hostNotAllowed)
        #expect(!transport.requests.contains { $0.host == "collector.evil.test" })
        #expect(!transport.requests.contains { $0.bodyText.contains("room-412") })
    }

    @Test func rfc8908AnswersAreReadFromTheAPI() async {
        let document = #"{"captive": false, "user-portal-url": "https://portal.test/", "venue-info-url": "https://venue.test/", "seconds-remaining": 1800}"#
        let transport = ScriptedTransport { request in
            .success(.scripted(request.url, status: 200, body: document, headers: [HTTPField("Content-Type", "application/captive+json")]))
        }
        let api = CaptivePortalAPIClient(url: "https://api.test/capport", transport: transport)
        let answer = await api.fetch(interface: "wlan0", dnsServers: [])
        #expect(answer.status?.captive == false)
        #expect(answer.status?.secondsRemaining == 1800)
        #expect(answer.status?.venueInfoURL == "https://venue.test/")
        #expect(transport.requests.first?.spec.headers.contains("Accept: application/captive+json") == true)
        // A plain-http API is never asked.
        let insecure = CaptivePortalAPIClient(url: "http://api.test/capport", transport: transport)
        _ = await insecure.fetch(interface: nil, dnsServers: [])
        #expect(transport.requests.count == 1)
    }
}
