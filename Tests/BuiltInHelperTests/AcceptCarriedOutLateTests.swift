// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import HotspotTesting
import Synchronization
import Testing

/// A slow gateway that carried out a sign-in the daemon stopped waiting for (the authenticate
/// command's deadline passed while the accept was queued at a gateway serving one request at a
/// time): the retry finds the portal's page without a form, because the link is online already.
/// The helper answers success, not ui-required: the desktop must not be told to sign in on a
/// network that lets it through.
@Suite struct AcceptCarriedOutLateTests {
    /// The daemon's view: the verdict it had (portal) until a fresh check, which finds the link online.
    final class LateOnline: PortalEnvironment {
        let transport: any HTTPTransport
        let freshChecks = Mutex(0)
        init(_ transport: any HTTPTransport) { self.transport = transport }
        func transferOptions(for interface: String) async -> TransferOptions { TransferOptions(interface: interface, timeout: .seconds(2)) }
        func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict {
            if fresh { freshChecks.withLock { $0 += 1 } }
            return fresh ? ProbeVerdict(state: .online, reason: .expected)
                         : ProbeVerdict(state: .portal, reason: .redirect(status: 302), signInURL: "http://gw.test/portal")
        }
        var wisprProbeURL: String { "http://probe.test/" }
    }

    /// The gateway's page once the client is let through: a welcome page with no form.
    static func welcomePage() -> ScriptedTransport {
        ScriptedTransport { request in .success(.scripted(request.url, status: 200, body: "<html><body><p>Enjoy your stay</p></body></html>")) }
    }

    static func authenticate(_ network: Network) -> WireCommand {
        WireCommand(type: .authenticate, interface: "wlan0", network: network, isChosenHelper: true, networks: [], deadline: nil)
    }

    @Test func thePortalHelpersRetryFindsTheLinkOnlineAndAnswersSuccess() async {
        let environment = LateOnline(Self.welcomePage())
        let helper = PortalHelper(environment: environment)
        let inProcess = InProcessHelper(options: PortalHelper.options, handler: helper.handle)
        let answer = await inProcess.answer(Self.authenticate(Network(ssid: SSID("CityFree"))))
        #expect(answer.result == .success, "\(answer)")
        #expect(environment.freshChecks.withLock { $0 } >= 1, "the helper checked the link before asking for the user")
    }

    @Test func aPageWithoutAFormOnALinkStillBehindThePortalStillAsksTheUser() async {
        final class StillPortal: PortalEnvironment {
            let transport: any HTTPTransport = AcceptCarriedOutLateTests.welcomePage()
            func transferOptions(for interface: String) async -> TransferOptions { TransferOptions(interface: interface, timeout: .seconds(2)) }
            func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict {
                ProbeVerdict(state: .portal, reason: .redirect(status: 302), signInURL: "http://gw.test/portal")
            }
            var wisprProbeURL: String { "http://probe.test/" }
        }
        let helper = PortalHelper(environment: StillPortal())
        let inProcess = InProcessHelper(options: PortalHelper.options, handler: helper.handle)
        let answer = await inProcess.answer(Self.authenticate(Network(ssid: SSID("CityFree"))))
        #expect(answer.result == .uiRequired, "\(answer)")
    }
}
