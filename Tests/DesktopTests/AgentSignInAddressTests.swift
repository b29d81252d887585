// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotProtocol
import Testing

extension DesktopTests.AgentTests {
    /// The agent checks a sign-in address again before it runs the browser command, which opens
    /// whatever the desktop registers for a scheme: an `smb:` address is not opened, and it says why.
    @Test func anAddressThatIsNotHTTPIsNeverOpened() async throws {
        let d = try await Desktop()
        let s = try await Session()
        // The daemon publishes no PortalUrl here, so the agent opens its fallback page: the one
        // address this test controls.
        let agent = try await startAgent(d, s, ["--no-portal-helper", "--fallback-url", "smb://198.51.100.7/hotspot-login"])
        try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired, .presentUI: .success])
        try await d.join("CityFree", accessPoint: "ap1")
        try await d.waitFor("presenting-ui")
        #expect(await agent.waitForOutput(containing: "notified: sign in to CityFree"), "\(agent.output)")
        try await s.notifications.mockCall(s.client, path: Self.notificationsPath, "EmitSignal", [
            "org.freedesktop.Notifications", "ActionInvoked", "us", .array(element: .variant, [.variant(.uint32(1)), .variant("sign-in")]),
        ])
        #expect(await agent.waitForOutput(containing: "not opening the sign-in address 'smb://198.51.100.7/hotspot-login'"), "\(agent.output)")
        #expect(agent.output.contains("only http and https are opened"))
        #expect(s.openedURLs.isEmpty, "\(s.openedURLs)")
        #expect(!agent.output.contains("browser stand-in opened"))
        agent.send(SIGTERM)
        _ = await agent.waitForExit()
    }
}
