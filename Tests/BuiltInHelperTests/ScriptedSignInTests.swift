// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity
import FoundationEssentials
import HotspotTesting
import Testing

/// The sign-in through the transport seam: a form profile's fields go only to
/// the hosts it names, checked on the requests a scripted transport recorded, without sockets.
@Suite struct ScriptedSignInTests {
    struct Scripted: PortalEnvironment {
        let transport: any HTTPTransport
        let verdictAfter: ProbeVerdict.State
        func transferOptions(for interface: String) async -> TransferOptions { TransferOptions(interface: interface, timeout: .seconds(2)) }
        func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict { ProbeVerdict(state: verdictAfter, reason: .expected) }
        var allowPlainHTTPLogin: Bool { false }
        var wisprProbeURL: String { "http://probe.test/" }
    }

    static let page = """
        <html><body><form method="post" action="https://login.hotel.test/submit">
        <input type="hidden" name="token" value="t-1"><input type="text" name="room"><input type="password" name="pin">
        <input type="submit" name="go" value="Sign in"></form></body></html>
        """

    /// The portal page on `pageHost`; a POST anywhere answers 200.
    static func portal() -> ScriptedTransport {
        ScriptedTransport { request in
            request.method == "POST" ? .success(.scripted(request.url, status: 200, body: "welcome"))
                                     : .success(.scripted(request.url, status: 200, body: page))
        }
    }

    func signIn(_ transport: ScriptedTransport, hosts: String, page: String) async throws -> SignInOutcome {
        let method = SignInMethod.form(url: nil, fields: [FormField(name: "room", value: "412"), FormField(name: "pin", value: "pin-8841")],
                                       loginHosts: try LoginHosts(parsing: hosts))
        return await PortalSignIn(environment: Scripted(transport: transport, verdictAfter: .online))
            .signIn(method, interface: "wlan0", verdict: ProbeVerdict(state: .portal, reason: .redirect(status: 302), signInURL: page))
    }

    @Test func theFormIsPostedToTheNamedHostWithTheProfilesFields() async throws {
        let transport = Self.portal()
        let outcome = try await signIn(transport, hosts: "login.hotel.test", page: "https://login.hotel.test/portal")
        guard case .signedIn = outcome else { Issue.record("\(outcome)"); return }
        let posts = transport.requests.filter { $0.spec.method == "POST" }
        #expect(posts.map(\.spec.url) == ["https://login.hotel.test/submit"])
        let body = posts.first?.bodyText ?? ""
        #expect(body.contains("room=412") && body.contains("pin=pin-8841") && body.contains("token=t-1"), "\(body)")
        #expect(transport.requests.allSatisfy { $0.options.interface == "wlan0" })
    }

    @Test func aPageOnAnotherHostGetsNothing() async throws {
        let transport = Self.portal()
        let outcome = try await signIn(transport, hosts: "login.hotel.test", page: "https://lookalike.test/portal")
        if case .signedIn = outcome { Issue.record("signed in through a stranger's page") }
        #expect(!transport.requests.contains { $0.spec.method == "POST" })
        #expect(!transport.requests.contains { $0.bodyText.contains("pin-8841") })
    }
}
