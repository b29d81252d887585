// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotProtocol
import Testing

extension DesktopTests {
    /// hotspot-helper-agent between the daemon (on one private bus, as the system bus) and
    /// python-dbusmock's notification_daemon (on a second private bus, as the session bus).
    @Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)"))
    struct AgentTests {
        static let notificationsPath = "/org/freedesktop/Notifications"

        /// The session side: a bus, the notification server mock, a connection, and a browser
        /// stand-in that records the URLs it is asked to open.
        struct Session {
            let bus: PrivateBus
            let notifications: DBusMock
            let client: Connection
            let opened: URL
            let browser: URL
            /// Holds `opened` and `browser`; removed with the session.
            let scratch: ScratchDirectory

            init() async throws {
                bus = try await PrivateBus()
                notifications = try await bus.startMock(template: "notification_daemon", waitFor: "org.freedesktop.Notifications")
                client = try bus.connect()
                scratch = try ScratchDirectory("agent")
                opened = scratch.appendingPathComponent("opened")
                browser = scratch.appendingPathComponent("browser")
                // Records the URL, then says so on the agent's stdout (which it inherits), so a test
                // waits for that line instead of polling the file.
                try "#!/bin/sh\necho \"$1\" >> '\(opened.path)'\necho \"browser stand-in opened $1\"\n".write(to: browser, atomically: false, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser.path)
            }

            func calls(_ method: String) async throws -> [[DBusValue]] {
                try await notifications.calls(client, path: AgentTests.notificationsPath).filter { $0.method == method }.map(\.args)
            }

            var openedURLs: [String] { ((try? String(contentsOf: opened, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        }

        func startAgent(_ d: Desktop, _ s: Session, _ extra: [String] = []) async throws -> ManagedProcess {
            let agent = try ManagedProcess.launch(TestKitPaths.product("hotspot-helper-agent").path, ["--browser", s.browser.path] + extra,
                                                  environment: ["DBUS_SYSTEM_BUS_ADDRESS": d.bus.address, "DBUS_SESSION_BUS_ADDRESS": s.bus.address])
            #expect(await agent.waitForOutput(containing: "listening to hotspot-helperd"), "\(agent.output)")
            return agent
        }

        /// NetworkManager's connectivity check as the desktop reads it (the mock's properties).
        func setConnectivityCheck(_ d: Desktop, enabled: Bool, uri: String) async throws {
            for (name, value) in [("ConnectivityCheckEnabled", DBusValue.bool(enabled)), ("ConnectivityCheckUri", .string(uri))] {
                _ = try await d.nm.mockCall(d.client, path: DBusMock.networkManagerPath, "AddProperty",
                                            [.string("org.freedesktop.NetworkManager"), .string(name), .variant(value)])
            }
        }

        @Test func uiRequiredPostsOneNotificationAndSignInPresentsUIOpensThePageAndWithdrawsIt() async throws {
            let d = try await Desktop()
            let s = try await Session()
            let agent = try await startAgent(d, s)
            let received = Kept<CommandType>()
            try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired, .presentUI: .success], received: received)
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")
            #expect(await agent.waitForOutput(containing: "notified: sign in to CityFree"), "\(agent.output)")

            let notes = try await s.calls("Notify")
            try #require(notes.count == 1, "\(notes)")
            let note = notes[0]
            #expect(note[0] == .string("Hotspot Helper"))
            #expect(note[3] == .string("Sign in to CityFree"))
            #expect(note[4].string?.contains("Lobby Portal") == true)
            let actions = note[5].strings ?? []
            #expect(actions.contains("sign-in"), "\(actions)")
            #expect(actions.count % 2 == 0)
            #expect(note[6].varDict?["desktop-entry"] == .string("hotspot-helper-agent"))
            #expect(note[6].varDict?["resident"] == .bool(true), "kept after its action, withdrawn by the agent: \(note)")
            #expect(received.all.contains(.presentUI) == false)

            // The user clicks "Sign in": the notification server emits ActionInvoked(id, "sign-in").
            let id: UInt32 = 1
            try await s.notifications.mockCall(s.client, path: Self.notificationsPath, "EmitSignal", [
                "org.freedesktop.Notifications", "ActionInvoked", "us", .array(element: .variant, [.variant(.uint32(id)), .variant("sign-in")]),
            ])
            try await d.waitFor("authenticated")
            #expect(received.all.contains(.presentUI))
            #expect(await agent.waitForOutput(containing: "withdrew notification 1"), "\(agent.output)")
            let closes = try await s.calls("CloseNotification")
            #expect(closes.count == 1 && closes.first?.first?.integer == 1, "\(closes)")
            #expect(await agent.waitForOutput(containing: "browser stand-in opened "), "the browser never opened the sign-in page\n\(agent.output)")
            #expect(s.openedURLs == ["http://nmcheck.gnome.org/"], "\(s.openedURLs)")
            // No Shell on this session bus: the sign-in's end is told in a passing notification,
            // the only other one.
            #expect(await agent.waitForOutput(containing: "told: Signed in to CityFree"), "\(agent.output)")
            let after = try await s.calls("Notify")
            #expect(after.count == 2 && after.last?[3] == .string("Signed in to CityFree"), "\(after)")
            #expect(agent.isRunning)
            agent.send(SIGTERM)
            #expect(await agent.waitForExit() == 0)
        }

        @Test func gnomesPortalHelperOpensThePageWhenItIsOnTheSessionBus() async throws {
            let d = try await Desktop()
            let s = try await Session()
            let portal = try await s.bus.startMock(name: "org.gnome.Shell.PortalHelper", path: "/org/gnome/Shell/PortalHelper", interface: "org.gnome.Shell.PortalHelper")
            try await portal.addMethod(s.client, path: "/org/gnome/Shell/PortalHelper", interface: "org.gnome.Shell.PortalHelper", name: "Authenticate",
                                       inSignature: "osu", outSignature: "", code: "")
            let agent = try await startAgent(d, s, ["--fallback-url", "http://portal.example/"])
            try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired, .presentUI: .success])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")
            #expect(await agent.waitForOutput(containing: "notified"), "\(agent.output)")
            try await s.notifications.mockCall(s.client, path: Self.notificationsPath, "EmitSignal", [
                "org.freedesktop.Notifications", "ActionInvoked", "us", .array(element: .variant, [.variant(.uint32(1)), .variant("default")]),
            ])
            #expect(await agent.waitForOutput(containing: "opened http://portal.example/ in GNOME's portal helper"), "\(agent.output)")
            let calls = try await portal.calls(s.client, path: "/org/gnome/Shell/PortalHelper").filter { $0.method == "Authenticate" }
            #expect(calls.count == 1)
            #expect(calls.first?.args[1] == .string("http://portal.example/"), "\(calls)")
            #expect(s.openedURLs.isEmpty)
        }

        /// One prompt, never two: where GNOME Shell runs and NetworkManager's connectivity check is
        /// on, Shell opens its own "Hotspot Login" window, so the agent posts nothing; the same
        /// session with the check off gets the agent's notification.
        @Test(arguments: [true, false])
        func underGNOMEShellWithNetworkManagersCheckOnTheAgentLeavesThePromptToShell(checkOn: Bool) async throws {
            let d = try await Desktop()
            let s = try await Session()
            try await setConnectivityCheck(d, enabled: checkOn, uri: "http://nmcheck.gnome.org/check_network_status.txt")
            let shell = try s.bus.connect()
            try await shell.requestName("org.gnome.Shell")
            let agent = try await startAgent(d, s)
            try await d.helper("Airport Wi-Fi", confidence: .high, results: [.authenticate: .uiRequired])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")
            if checkOn {
                #expect(await agent.waitForOutput(containing: "not notifying for CityFree: GNOME Shell prompts by itself"), "\(agent.output)")
                #expect(try await s.calls("Notify").isEmpty)
            } else {
                #expect(await agent.waitForOutput(containing: "notified: sign in to CityFree"), "\(agent.output)")
                #expect(try await s.calls("Notify").count == 1)
            }
            _ = shell
        }

        /// KDE Plasma: plasma-nm's kded module (`org.kde.plasmanetworkmanagement` on the session
        /// bus) posts its own "You need to log into this network" whenever NetworkManager says
        /// PORTAL, so with the check on the agent leaves the prompt to it, as it does to GNOME Shell.
        @Test func underPlasmaWithNetworkManagersCheckOnTheAgentLeavesThePromptToPlasma() async throws {
            let d = try await Desktop()
            let s = try await Session()
            try await setConnectivityCheck(d, enabled: true, uri: "http://networkcheck.kde.org/")
            let plasma = try s.bus.connect()
            try await plasma.requestName("org.kde.plasmanetworkmanagement")
            let agent = try await startAgent(d, s)
            try await d.helper("Airport Wi-Fi", confidence: .high, results: [.authenticate: .uiRequired])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")
            #expect(await agent.waitForOutput(containing: "not notifying for CityFree: Plasma's network management posts its own"), "\(agent.output)")
            #expect(try await s.calls("Notify").isEmpty)
            _ = plasma
        }

        /// Where no Shell extension shows the daemon's state (Plasma, or any desktop without GNOME
        /// Shell), a join's sign-in ending is told in a passing notification, in the menu
        /// header's words: signed in, then, for a helper that fails, the failure and its reason.
        /// Under GNOME Shell the Wi-Fi menu says it, and the agent does not.
        @Test(arguments: [false, true])
        func aJoinsSignInIsToldWhereNoShellExtensionShowsIt(underShell: Bool) async throws {
            let d = try await Desktop()
            let s = try await Session()
            let shell = try s.bus.connect()
            if underShell { try await shell.requestName("org.gnome.Shell") }
            let agent = try await startAgent(d, s)
            try await d.helper("Airport Wi-Fi", confidence: .high, results: [.authenticate: .success])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("authenticated")
            if underShell {
                #expect(await agent.waitForOutput(containing: "not telling the sign-in state"), "\(agent.output)")
                #expect(try await s.calls("Notify").isEmpty)
                _ = shell
                return
            }
            #expect(await agent.waitForOutput(containing: "told: Signed in to CityFree"), "\(agent.output)")
            let told = try await s.calls("Notify")
            try #require(told.count == 1, "\(told)")
            #expect(told[0][3].string == "Signed in to CityFree" && told[0][4].string == "Signed in by Airport Wi-Fi", "\(told[0])")
            #expect(told[0][6].varDict?["transient"]?.bool == true, "a passing notification: \(told[0])")
            #expect(told[0][5].strings?.isEmpty == true, "no action: \(told[0])")
            _ = shell
        }

        /// A helper's name is the helper's to choose, and notification servers read the body as
        /// markup: the body says the name as written, never as tags or entities.
        @Test func aHelpersNameIsShownAsWrittenNotReadAsMarkup() async throws {
            let d = try await Desktop()
            let s = try await Session()
            let agent = try await startAgent(d, s)
            try await d.helper("Tom & <b>Jerry</b>", confidence: .high, results: [.authenticate: .success])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("authenticated")
            #expect(await agent.waitForOutput(containing: "told: Signed in to CityFree"), "\(agent.output)")
            let told = try await s.calls("Notify")
            try #require(told.count == 1, "\(told)")
            #expect(told[0][4].string == "Signed in by Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;", "\(told[0])")
        }

        @Test func anAgentStartedLateNotifiesForAnInterfaceAlreadyWaitingAndOnlyOneAgentRunsPerSession() async throws {
            let d = try await Desktop()
            let s = try await Session()
            try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")
            let agent = try await startAgent(d, s)
            #expect(await agent.waitForOutput(containing: "notified: sign in to CityFree"), "\(agent.output)")
            #expect(try await s.calls("Notify").count == 1)

            let second = try await ManagedProcess.run(TestKitPaths.product("hotspot-helper-agent").path, [],
                                                      environment: ["DBUS_SYSTEM_BUS_ADDRESS": d.bus.address, "DBUS_SESSION_BUS_ADDRESS": s.bus.address])
            #expect(second.status == 0)
            #expect(second.stderr.contains("another hotspot-helper-agent already runs"), "\(second.stderr)")

            // The network going away withdraws the notification.
            _ = try await d.nm.mockCall(d.client, path: Desktop.nmPath, "SetDeviceDisconnected", [.string(d.device)])
            #expect(await agent.waitForOutput(containing: "withdrew notification"), "\(agent.output)")
        }
    }
}
