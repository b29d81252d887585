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
    @Suite(.serialized, .enabled(if: DialogTestTools.missing.isEmpty, "needs \(DialogTestTools.missing.joined(separator: ", ")) (scripts/install-deps.sh test)"))
    struct SignInDialogTests {
        static let dialog = TestKitPaths.repositoryRoot.appendingPathComponent("packaging/hotspot-sign-in-dialog").path
        static let images = TestKitPaths.repositoryRoot.appendingPathComponent("docs/images")
        /// An X server of its own (Xvfb picks a free display and says which on -displayfd), and a
        /// GTK configuration with animations and the cursor's blinking off: a screenshot shows the
        /// end of a focus change, not its 200 ms fade, and the same pixels every run.
        struct XServer {
            let process: ManagedProcess
            let display: String
            let config: ScratchDirectory

            init() async throws {
                config = try ScratchDirectory("gtk-config")
                try FileManager.default.createDirectory(at: config.appendingPathComponent("gtk-4.0"), withIntermediateDirectories: true)
                try "[Settings]\ngtk-enable-animations=false\ngtk-cursor-blink=false\n".write(to: config.appendingPathComponent("gtk-4.0/settings.ini"), atomically: false, encoding: .utf8)
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
            ["DISPLAY": x.display, "XDG_CONFIG_HOME": x.config.path, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1",
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


        /// The field kinds the simulator's hotel form lacks, against a stand-in for the daemon's
        /// interface object (python-dbusmock on the private system bus: SignInForm, GetNetwork,
        /// SignIn scripted): an e-mail entry whose label carries markup characters, a select, a
        /// required terms box with a link, and "Remember" unticked by the user. SignIn receives
        /// the values with their types (a box as a boolean, a select as the option's value) and
        /// the options; "form-changed" re-reads the form, keeps what was typed, and the next
        /// SignIn carries the new field.
        @Test func aFormOfEveryKindSendsTypedValuesAndFollowsAChangedForm() async throws {
            let system = try await PrivateBus()
            let path = "/org/freedesktop/NetworkManager/HotspotHelper/Interface/1"
            let iface = HotspotContract.interfaceInterface.rawValue
            let daemon = try await system.startMock(name: HotspotContract.busName.rawValue, path: path, interface: iface)
            let client = try system.connect()
            func field(_ name: String, _ kind: String, _ label: String, required: Bool = true, _ extra: [String: DBusValue] = [:]) -> [String: DBusValue] {
                ["name": .string(name), "kind": .string(kind), "label": .string(label), "required": .bool(required), "value": .string("")]
                    .merging(extra) { _, b in b }
            }
            let fields = [
                field("email", "email", "E-mail <b>address</b> & name"),
                field("plan", "select", "Plan", ["value": .string("free"), "options": .array(element: .structure([.string, .string]), [
                    .structure([.string("free"), .string("Free, 30 minutes")]), .structure([.string("day"), .string("Day pass")]),
                ])]),
                field("terms", "checkbox", "terms", ["terms": .string("I accept the <i>terms</i> & conditions"), "terms-url": .string("https://airport.example/terms")]),
            ]
            let form: [String: DBusValue] = ["kind": .string("form"), "portal-url": .string("https://airport.example/wifi"), "action-host": .string("airport.example"),
                                             "action-scheme": .string("https"), "plain-http": .bool(false), "message": .string(""), "remembered": .bool(false),
                                             "fields": .varDicts(fields)]
            try await daemon.mockCall(client, path: path, "AddProperty", [.string(iface), .string("SignInForm"), .variant(.varDict(form))])
            try await daemon.addMethod(client, path: path, interface: iface, name: "GetNetwork", inSignature: "", outSignature: "a{sv}",
                                       code: "ret = dbus.Dictionary({'ssid': dbus.ByteArray(b'Airport Free')}, signature='sv')")
            try await daemon.addMethod(client, path: path, interface: iface, name: "PresentUI", inSignature: "", outSignature: "", code: "")
            // The first SignIn changes the form (a boarding pass code is added); the second signs in.
            try await daemon.addMethod(client, path: path, interface: iface, name: "SignIn", inSignature: "a{sv}a{sv}", outSignature: "ss", code: """
                if 'code' not in args[0]:
                    f = dict(self.Get('\(iface)', 'SignInForm'))
                    f['fields'] = dbus.Array(list(f['fields']) + [dbus.Dictionary({'name': 'code', 'kind': 'text', 'label': 'Boarding pass code', 'required': True, 'value': ''}, signature='sv')], signature='a{sv}')
                    self.Set('\(iface)', 'SignInForm', dbus.Dictionary(f, signature='sv', variant_level=1))
                    ret = ('form-changed', 'The sign-in page has changed; please check the fields and sign in again.')
                else:
                    ret = ('signed-in', '')
                """)
            let session = try await PrivateBus()
            let x = try await XServer()
            defer { x.process.stop() }
            let dialog = try ManagedProcess.launch(Self.dialog, ["--interface", path, "--browser", "/bin/false"],
                                                   environment: Self.desktopEnvironment(x, system: system, session: session))
            defer { dialog.stop() }
            #expect(await dialog.waitForOutput(containing: "showing the sign-in form for Airport Free (3 fields)"), "\(dialog.output)")
            let id = try #require(try await x.xdotool(["search", "--sync", "--name", "^Sign in to Airport Free$"]).split(separator: "\n").first.map(String.init))
            try await x.screenshot(id, to: Self.images.appendingPathComponent("sign-in-dialog-every-kind.png"))

            // E-mail, Tab to the select (left at its preset), Tab to the box (ticked), Tab past the
            // terms link to "Remember" (unticked), back to the e-mail, Enter.
            try await x.xdotool(["windowfocus", "--sync", id])
            try await x.xdotool(["type", "--delay", "20", "ada@example.org"])
            try await x.xdotool(["key", "Tab", "Tab", "space", "Tab", "Tab", "space", "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab", "Return"])
            #expect(await dialog.waitForOutput(containing: "showing the changed form (4 fields)"), "\(dialog.output)")
            try await x.screenshot(id, to: Self.images.appendingPathComponent("sign-in-dialog-changed.png"))
            // The new field is the first empty one and has the focus.
            try await x.xdotool(["type", "--delay", "20", "BP-7731"])
            try await x.xdotool(["key", "Return"])
            #expect(await dialog.waitForOutput(containing: "SignIn answered signed-in"), "\(dialog.output)")
            #expect(await dialog.waitForOutput(containing: "hotspot-sign-in-dialog: closed"), "\(dialog.output)")

            let signIns = try await daemon.calls(client, path: path).filter { $0.method == "SignIn" }
            try #require(signIns.count == 2, "\(signIns)")
            let first = try #require(signIns[0].args.first?.varDict), firstOptions = try #require(signIns[0].args.last?.varDict)
            #expect(first["email"]?.unwrapped == .string("ada@example.org"), "\(first)")
            #expect(first["plan"]?.unwrapped == .string("free"), "the option's value, not its label: \(first)")
            #expect(first["terms"]?.unwrapped == .bool(true), "a ticked box is a boolean: \(first)")
            #expect(first.count == 3, "\(first)")
            #expect(firstOptions["remember"]?.unwrapped == .bool(false) && firstOptions["allow-plain-http"]?.unwrapped == .bool(false), "\(firstOptions)")
            let second = try #require(signIns[1].args.first?.varDict)
            #expect(second["code"]?.unwrapped == .string("BP-7731") && second["email"]?.unwrapped == .string("ada@example.org")
                    && second["terms"]?.unwrapped == .bool(true), "what was typed is kept across the change: \(second)")
            #expect(!dialog.output.contains("ada@example.org") && !dialog.output.contains("BP-7731"), "no typed value in the log: \(dialog.output)")
        }


        /// "needs-browser" (the page now needs scripts or a captcha): the dialog tells the daemon
        /// the user acts (PresentUI), hands the page to the browser command, and closes.
        @Test func aSignInThatNeedsTheBrowserOpensThePageThere() async throws {
            let system = try await PrivateBus()
            let path = "/org/freedesktop/NetworkManager/HotspotHelper/Interface/1"
            let iface = HotspotContract.interfaceInterface.rawValue
            let daemon = try await system.startMock(name: HotspotContract.busName.rawValue, path: path, interface: iface)
            let client = try system.connect()
            let voucher: [String: DBusValue] = ["name": .string("voucher"), "kind": .string("text"), "label": .string("Voucher code"),
                                                "required": .bool(true), "value": .string("")]
            let form: [String: DBusValue] = ["kind": .string("form"), "portal-url": .string("https://wifi.station.example/login?lang=en"),
                                             "action-host": .string("wifi.station.example"), "action-scheme": .string("https"),
                                             "plain-http": .bool(false), "message": .string(""), "remembered": .bool(false), "fields": .varDicts([voucher])]
            try await daemon.mockCall(client, path: path, "AddProperty", [.string(iface), .string("SignInForm"), .variant(.varDict(form))])
            try await daemon.addMethod(client, path: path, interface: iface, name: "GetNetwork", inSignature: "", outSignature: "a{sv}",
                                       code: "ret = dbus.Dictionary({'ssid': dbus.ByteArray(b'Station')}, signature='sv')")
            try await daemon.addMethod(client, path: path, interface: iface, name: "PresentUI", inSignature: "", outSignature: "", code: "")
            try await daemon.addMethod(client, path: path, interface: iface, name: "SignIn", inSignature: "a{sv}a{sv}", outSignature: "ss",
                                       code: "ret = ('needs-browser', 'The page now asks for a captcha.')")
            let s = try await AgentTests.Session()
            let x = try await XServer()
            defer { x.process.stop() }
            let dialog = try ManagedProcess.launch(Self.dialog, ["--interface", path, "--browser", s.browser.path],
                                                   environment: Self.desktopEnvironment(x, system: system, session: s.bus))
            defer { dialog.stop() }
            #expect(await dialog.waitForOutput(containing: "showing the sign-in form for Station (1 field)"), "\(dialog.output)")
            let id = try #require(try await x.xdotool(["search", "--sync", "--name", "^Sign in to Station$"]).split(separator: "\n").first.map(String.init))
            try await x.xdotool(["windowfocus", "--sync", id])
            try await x.xdotool(["type", "--delay", "20", "FREE-2026"])
            try await x.xdotool(["key", "Return"])
            #expect(await dialog.waitForOutput(containing: "browser stand-in opened https://wifi.station.example/login?lang=en"), "\(dialog.output)")
            #expect(await dialog.waitForOutput(containing: "hotspot-sign-in-dialog: closed"), "\(dialog.output)")
            #expect(s.openedURLs == ["https://wifi.station.example/login?lang=en"], "\(s.openedURLs)")
            let calls = try await daemon.calls(client, path: path).map(\.method)
            #expect(calls.filter { $0 == "SignIn" }.count == 1 && calls.contains("PresentUI"), "\(calls)")
            #expect(calls.firstIndex(of: "SignIn")! < calls.firstIndex(of: "PresentUI")!, "\(calls)")
        }
    }
}

/// What the sign-in dialog's tests need on the machine.
enum DialogTestTools {
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
}
