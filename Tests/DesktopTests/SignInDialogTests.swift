// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import Testing

extension DesktopTests {
    /// The sign-in form dialog of desktops other than GNOME Shell (packaging/hotspot-sign-in-dialog),
    /// started by hotspot-helper-agent from its notification, on a real X server (Xvfb), typed into
    /// with xdotool as a user types, against the real daemon and the portal simulator's hotel form
    /// (plain http; room number and surname). Screenshots go to docs/images.
    @Suite(.serialized, .enabled(if: SignInDialogTests.missing.isEmpty, "needs \(SignInDialogTests.missing.joined(separator: ", ")) (scripts/install-deps.sh test)"))
    struct SignInDialogTests {
        static let dialog = TestKitPaths.repositoryRoot.appendingPathComponent("packaging/hotspot-sign-in-dialog").path
        static let images = TestKitPaths.repositoryRoot.appendingPathComponent("docs/images")
        /// GObject introspection's typelibs (Debian: /usr/lib/<multiarch triple>/girepository-1.0).
        static func hasTypelib(_ name: String) -> Bool {
            let triples = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib"))?.filter { $0.hasSuffix("-linux-gnu") } ?? []
            return triples.contains { FileManager.default.fileExists(atPath: "/usr/lib/\($0)/girepository-1.0/\(name).typelib") }
        }

        /// What the test needs that is not installed.
        static let missing: [String] = {
            var out: [String] = []
            if !TestEnvironment.hasDBusMock { out.append("python3-dbusmock") }
            for (tool, package) in [("/usr/bin/Xvfb", "xvfb"), ("/usr/bin/xdotool", "xdotool"), ("/usr/bin/xwd", "x11-apps"),
                                    ("/usr/bin/xwdtopnm", "netpbm"), ("/usr/bin/pnmtopng", "netpbm")] where !TestEnvironment.hasTool(tool) {
                out.append(package)
            }
            for (typelib, package) in [("Gtk-4.0", "gir1.2-gtk-4.0"), ("Adw-1", "gir1.2-adw-1")]
            where !hasTypelib(typelib) {
                out.append(package)
            }
            return out
        }()

        /// An X server of its own (Xvfb picks a free display and says which on -displayfd).
        struct XServer {
            let process: ManagedProcess
            let display: String

            init() async throws {
                process = try ManagedProcess.launch("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"], name: "Xvfb")
                let first = await process.waitForFirstStdoutLine(timeout: SafetyNet.wait)
                guard let number = first.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
                    process.stop()
                    throw TestKitError.startFailed("Xvfb said no display number:\n\(process.output)")
                }
                display = ":\(number)"
            }

            /// xdotool on this display; its stdout.
            @discardableResult
            func xdotool(_ arguments: [String]) async throws -> String {
                let r = try await ManagedProcess.run("/usr/bin/xdotool", arguments, environment: ["DISPLAY": display])
                guard r.status == 0 else { throw TestKitError.startFailed("xdotool \(arguments.joined(separator: " ")): \(r.stderr)") }
                return r.stdout
            }

            /// The window `id` as a PNG at `file` (xwd, then netpbm).
            func screenshot(_ id: String, to file: URL) async throws {
                let r = try await ManagedProcess.run("/bin/sh", ["-c", "xwd -silent -id \"$1\" | xwdtopnm 2>/dev/null | pnmtopng > \"$2\"", "sh", id, file.path],
                                                     environment: ["DISPLAY": display])
                #expect(r.status == 0, "the screenshot failed: \(r.stderr)")
            }
        }

        /// The environment of the agent (and so of the dialog it starts): the X display, GTK on X11
        /// with its software renderer, no accessibility bus (the private session bus has none).
        static func desktopEnvironment(_ x: XServer, system: PrivateBus, session: PrivateBus) -> [String: String] {
            ["DISPLAY": x.display, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1",
             "DBUS_SYSTEM_BUS_ADDRESS": system.address, "DBUS_SESSION_BUS_ADDRESS": session.address]
        }

        /// A form portal: the notification's "Sign in" opens the dialog (not the browser), which
        /// names the network, warns that the form is sent over plain http, and shows the portal's
        /// two fields. A wrong surname typed into it is refused by the portal and the dialog shows
        /// the portal's message; the right one typed over it signs in, the dialog closes, and no
        /// typed value reaches a log.
        @Test func theNotificationOpensTheFormWhichShowsARefusalAndThenSignsIn() async throws {
            let portal = try await SimulatedPortal.start(mode: "venue")
            defer { portal.stop() }
            let d = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: "CoffeeShop", bssid: "0A:00:00:00:00:01")],
                                             settings: ["command-timeout": "10", "filter-interval": "0.2", "maintain-interval": "300"],
                                             connectivity: portal.connectivity().merging(["interval": "30"]) { a, _ in a })
            let s = try await AgentTests.Session()
            let x = try await XServer()
            defer { x.process.stop() }
            let agent = try ManagedProcess.launch(TestKitPaths.product("hotspot-helper-agent").path,
                                                  ["--browser", s.browser.path, "--sign-in-dialog", Self.dialog],
                                                  environment: Self.desktopEnvironment(x, system: d.bus, session: s.bus))
            defer { agent.stop() }
            #expect(await agent.waitForOutput(containing: "listening to hotspot-helperd"), "\(agent.output)")

            try await d.join("CoffeeShop")
            try await d.waitFor(state: "presenting-ui", connectivity: "portal")
            let form = try #require(try await d.property("SignInForm")?.varDict, "no SignInForm\n\(d.diagnostics)")
            #expect(form["kind"]?.string == "form", "\(form)")
            #expect(await agent.waitForOutput(containing: "notified: sign in to CoffeeShop"), "\(agent.output)")

            // The user clicks the notification.
            try await s.notifications.mockCall(s.client, path: AgentTests.notificationsPath, "EmitSignal", [
                "org.freedesktop.Notifications", "ActionInvoked", "us", .array(element: .variant, [.variant(.uint32(1)), .variant("default")]),
            ])
            #expect(await agent.waitForOutput(containing: "showing the sign-in form for CoffeeShop (2 fields)"), "\(agent.output)\n\(d.diagnostics)")
            #expect(s.openedURLs.isEmpty, "the form, not the browser: \(s.openedURLs)")
            let window = try await x.xdotool(["search", "--sync", "--name", "^Sign in to CoffeeShop$"]).split(separator: "\n").first.map(String.init)
            let id = try #require(window, "no dialog window")
            try await x.screenshot(id, to: Self.images.appendingPathComponent("sign-in-dialog.png"))

            // The focus is in the first field: the user types the room, Tab, a wrong surname, Enter.
            try await x.xdotool(["windowfocus", "--sync", id])
            try await x.xdotool(["type", "--delay", "20", "412"])
            try await x.xdotool(["key", "Tab"])
            try await x.xdotool(["type", "--delay", "20", "Nobody"])
            try await x.xdotool(["key", "Return"])
            #expect(await agent.waitForOutput(containing: "SignIn answered rejected"), "\(agent.output)\n\(d.diagnostics)")
            #expect(await agent.waitForOutput(containing: "showing the portal's refusal"), "\(agent.output)")
            try await x.screenshot(id, to: Self.images.appendingPathComponent("sign-in-dialog-rejected.png"))
            #expect(try await d.state() == "presenting-ui")

            // The first field has the focus again, its text selected: the user fixes both.
            try await x.xdotool(["key", "Tab"])
            try await x.xdotool(["type", "--delay", "20", "Martin"])
            try await x.xdotool(["key", "Return"])
            #expect(await agent.waitForOutput(containing: "SignIn answered signed-in"), "\(agent.output)\n\(d.diagnostics)")
            try await d.waitFor(state: "authenticated", connectivity: "full")
            let events = await portal.events().compactMap { $0["kind"] as? String }
            #expect(events.contains("login-failed") && events.contains("login-ok"), "\(events)")
            #expect(s.openedURLs.isEmpty, "\(s.openedURLs)")
            // The dialog's process ends with its window.
            #expect(await agent.waitForOutput(containing: "hotspot-sign-in-dialog: closed"), "\(agent.output)")
            for secret in ["Nobody", "Martin"] {
                #expect(!agent.output.contains(secret), "\(secret) in the agent's (and dialog's) output")
                #expect(!d.daemon.log.contains(secret), "\(secret) in the daemon's log")
            }
        }
    }
}
