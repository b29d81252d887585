// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
import HotspotProtocol
import HotspotTesting
import Testing

extension DesktopTests {
    /// hotspot-helper-agent in a session with no notification server (a bare Wayland compositor):
    /// the daemon on one private bus (the system bus), a second private bus as the session bus
    /// with nothing on it until the test starts python-dbusmock's notification_daemon there.
    @Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)"))
    struct AgentWithoutNotificationServerTests {
        static let missing = "no notification server on the session bus"

        static func count(_ text: String, in output: String) -> Int {
            output.components(separatedBy: text).count - 1
        }

        @Test func theAgentSaysOnceThatNothingShowsItsNotificationsAndHotspotctlStatusSaysWhatIsNeeded() async throws {
            let d = try await Desktop()
            let session = try await PrivateBus()
            let agent = try ManagedProcess.launch(TestKitPaths.product("hotspot-helper-agent").path, ["--browser", "/bin/true", "--sign-in-dialog", "none"],
                                                  environment: ["DBUS_SYSTEM_BUS_ADDRESS": d.bus.address, "DBUS_SESSION_BUS_ADDRESS": session.address])
            #expect(await agent.waitForOutput(containing: "listening to hotspot-helperd"), "\(agent.output)")
            // Said at start: nothing owns org.freedesktop.Notifications and nothing can start it.
            #expect(await agent.waitForOutput(containing: Self.missing), "\(agent.output)")

            // Two joins that need the user: each would be a notification; neither adds a line.
            try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired, .presentUI: .success])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")
            // What the user learns instead: hotspotctl status names the state, the helper, and
            // what to do.
            let status = try await d.ctl(["status"])
            #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
            #expect(status.stdout.contains("presenting-ui"), "\(status.stdout)")
            #expect(status.stdout.contains("Lobby Portal"), "\(status.stdout)")
            #expect(status.stdout.contains("wlan0: Lobby Portal needs you to sign in to CityFree: run hotspotctl sign-in wlan0"),
                    "hotspotctl status does not say how to sign in:\n\(status.stdout)")
            try await d.leave()
            try await d.waitFor("inactive")
            try await d.join("Library", accessPoint: "ap3")
            try await d.waitFor("presenting-ui")

            // A server comes: the agent says so, and the next join's prompt is posted. The agent
            // handles the daemon's events in order, so by that notification it has handled (and
            // kept quiet about) the two above.
            let notifications = try await session.startMock(template: "notification_daemon", waitFor: "org.freedesktop.Notifications")
            #expect(await agent.waitForOutput(containing: "a notification server is on the session bus again"), "\(agent.output)")
            // (Each join a network not joined before: a network the daemon already knows is
            // maintained rather than signed into.)
            try await d.leave()
            try await d.waitFor("inactive")
            try await d.join("CoffeeShop", accessPoint: "ap2")
            try await d.waitFor("presenting-ui")
            #expect(await agent.waitForOutput(containing: "notified: sign in to CoffeeShop"), "\(agent.output)")
            #expect(Self.count(Self.missing, in: agent.output) == 1, "\(agent.output)")
            #expect(Self.count("could not post a notification", in: agent.output) == 0, "\(agent.output)")

            // It goes again: the next failure says so again, once.
            let watcher = try session.connect()
            let owners = try await watcher.watchNameOwner("org.freedesktop.Notifications")
            notifications.stop()
            let gone = await firstElement(of: owners, within: SafetyNet.wait) { $0 == nil }
            #expect(gone != nil, "the notification server mock did not leave the session bus")
            try await d.mock("AddAccessPoint", [.string(d.device), .string("ap4"), .string("Airport"), .string("0A:00:00:00:00:04"),
                                                .uint32(2), .uint32(2412), .uint32(54000), .byte(60), .uint32(0)])
            try await d.leave()
            try await d.waitFor("inactive")
            try await d.join("Airport", accessPoint: "ap4")
            try await d.waitFor("presenting-ui")
            try await agent.changes.until("the agent says again that no server shows its notifications", timeout: SafetyNet.wait,
                                          context: { agent.output }) { Self.count(Self.missing, in: agent.output) == 2 }
            // The one failure that found it gone (withdrawing CoffeeShop's prompt), then nothing.
            #expect(Self.count("could not ", in: agent.output) == 1, "\(agent.output)")
            agent.stop()
        }
    }
}
