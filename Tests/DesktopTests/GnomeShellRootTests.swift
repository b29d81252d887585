// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
import HotspotProtocol
import HotspotTesting
import Synchronization
import Testing

/// What the Shell tests read Shell through: Eval, with Shell's main module reachable as `main`
/// (a JavaScript expression), and Shell's major version.
protocol ShellSession: Sendable {
    func eval(_ code: String) async throws -> String
    var main: String { get }
    var major: Int { get }
}

extension ShellSession {
    func eval<T: Decodable>(_ code: String, as type: T.Type) async throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try await eval(code).utf8))
    }
}

/// Every signal handler connected from an extension's files, recorded in Shell: a wrapper around
/// `GObject.Object.prototype.connect` keeps each connect called from the extension's files, and
/// whether its object (an actor) was destroyed since; read after `disable()`, those still
/// connected on live objects are what it left behind.
enum HandlerWatch {
    /// JavaScript with `GObject` and `Clutter` in scope.
    static func install(uuid: String) -> String {
        """
        const connect = GObject.Object.prototype.connect;
        const seen = [];
        GObject.Object.prototype.connect = function (...args) {
          const id = connect.apply(this, args);
          // The extension's own connects: the caller (the stack's second frame) is one of its
          // files. Shell code it calls connects for Shell (its on-screen keyboard, its easing),
          // and those are Shell's to keep.
          if ((new Error().stack.split('\\n')[1] ?? '').includes('/\(uuid)/')) {
            const entry = {object: this, id, signal: args[0], gone: false};
            if (this instanceof Clutter.Actor)
              connect.call(this, 'destroy', () => { entry.gone = true; });
            seen.push(entry);
          }
          return id;
        };
        globalThis.hh_GObject = GObject;
        globalThis.hh_handlers = seen;
        """
    }

    /// How many handlers were recorded, and those still connected on objects not destroyed.
    struct Answer: Decodable { var connected: Int; var left: [String] }
    static func read(_ shell: some ShellSession) async throws -> (connected: Int, left: [String]) {
        let a = try await shell.eval("""
            ({connected: hh_handlers.length, left: hh_handlers.filter(e => !e.gone && hh_GObject.signal_handler_is_connected(e.object, e.id))
              .map(e => `${e.object.constructor.name} ${e.signal}`)})
            """, as: Answer.self)
        return (a.connected, a.left)
    }
}

/// Shell 43 on this machine (Sources/HotspotTesting/GnomeShell.swift).
extension GnomeShell: ShellSession {
    var main: String { "imports.ui.main" }
    var major: Int { 43 }
}

extension PackageTests {
    /// The extension where today's users run it: GNOME Shell 48 (Debian 13, trixie) and 50
    /// (forky), each in a cached Debian root (scripts/test-root.sh) seen through an overlay, into
    /// which the packages built from this tree are installed with apt. The daemon the package
    /// installed there (/usr/libexec/hotspot-helperd), its pre-up script and Shell all run in the
    /// root, on a private system bus (this process's python-dbusmock NetworkManager and polkit,
    /// helpers in this process) whose socket the root sees through its /tmp.
    @Suite(.serialized, .enabled(if: ShellRoot.unavailable == nil, Comment(rawValue: ShellRoot.unavailable ?? "")))
    struct GnomeShellRootTests {
        static let uuid = ShellExtensionTrees.uuid

        @Test(arguments: [("trixie", 48), ("forky", 50)])
        func theExtensionShowsNamesAndStateAndOnlyShellsOwnPromptAppears(release: String, major: Int) async throws {
            let started = ContinuousClock.now
            let root = try await ShellRoot.prepare(release)
            let installed = ContinuousClock.now - started
            let s = try await ShellScene(root: root)
            let city = try await s.helper("City Free Wi-Fi", claims: ["CityFree"])
            // Station Wi-Fi will need the user; registered before Coffee Corner, its claim on
            // Library wins. (A scripted helper evaluates every network alike: it takes part in
            // joins only from the needs-user step on, where City Free Wi-Fi stops.)
            let station = try await s.helper("Station Wi-Fi", claims: ["Library"], results: [.authenticate: .uiRequired], confidence: .none)
            try await s.helper("Coffee Corner", claims: ["CoffeeShop", "Library"], confidence: .none)
            try await s.waitForScanList { $0["CityFree"] == "City Free Wi-Fi" && $0["Library"] == "Station Wi-Fi" && $0["CoffeeShop"] == "Coffee Corner" }
            let shell = try await s.startRootShell(root)
            #expect(shell.major == major, "\(shell.log)")

            // The package's override enables both trees; Shell runs the one made for it and
            // leaves the 43 one out of date (4).
            #expect(try await shell.extensionState(Self.uuid) == "enabled", "\(shell.log)")
            #expect(try await shell.extensionState(ShellExtensionTrees.uuid43) == "state 4", "\(shell.log)")
            try await s.waitForRows(shell, ["City Free Wi-Fi": "CityFree", "Station Wi-Fi": "Library", "Coffee Corner": "CoffeeShop"])
            #expect(try await s.subtitle(shell) == "")

            // A join held by the root's pre-up script until the daemon signed in: the header says
            // who signed in, the toggle names the network, and Shell never posts its sign-in
            // notification (it would for ACTIVATED while NetworkManager says PORTAL).
            // The helper's answer is held back a moment: the header says it is signing in.
            try await s.signInHeldJoin(shell, city)
            try await s.waitUntil("Shell has the connection ACTIVATED with full connectivity") { try await shell.mainConnectionSettled() }
            #expect(try await shell.portalNotificationsSeen().isEmpty, "Shell asked to sign in for the held join\n\(shell.log)")
            try await s.openWiFiMenu(shell)
            try await shell.screenshot(to: DesktopTests.GnomeShellTests.screenshots.appendingPathComponent("gnome\(major)-wifi-menu-signed-in.png"))

            // The user turns the extension off: Shell's own menu; on again: the names are back.
            _ = try await shell.eval("\(shell.main).extensionManager.disableExtension('\(Self.uuid)')")
            try await s.waitUntil("Shell's own labels, header and toggle are back") {
                let rows = try await s.rows(shell)
                let subtitle = try await s.subtitle(shell), toggle = try await s.toggleLabel(shell)
                return subtitle == "" && rows.allSatisfy { $0.label == $0.ssid } && rows.count == 3 && toggle == "CityFree"
            }
            // From this enable() on, every signal handler the extension's files connect is
            // recorded, to be found disconnected after the last disable().
            try await shell.watchHandlers()
            _ = try await shell.eval("\(shell.main).extensionManager.enableExtension('\(Self.uuid)')")
            try await s.waitForRows(shell, ["City Free Wi-Fi": "CityFree", "Station Wi-Fi": "Library", "Coffee Corner": "CoffeeShop"])

            // An access point goes: Shell destroys its row (and the relabelled label with it).
            try await s.mock("RemoveAccessPoint", [.string(s.device), .string("/org/freedesktop/NetworkManager/AccessPoint/ap2")])
            try await s.waitForRows(shell, ["City Free Wi-Fi": "CityFree", "Station Wi-Fi": "Library"])

            // The control: the old order (ACTIVATED while PORTAL, FULL a second later) on a new
            // connection: Shell posts its notification, once.
            try await s.replayLeave()
            try await s.replayUnheldJoin("CityFree", accessPoint: "ap1")
            try await s.waitUntil("Shell posts its sign-in notification") { try await !shell.portalNotificationsSeen().isEmpty }
            let seen = try await shell.portalNotificationsSeen()
            #expect(seen.count == 1 && seen[0] == ShellRoot.portalTitle(major: major), "\(seen)")

            // The helper needs the user: the daemon lets the join through at once, NetworkManager
            // says PORTAL, and Shell's own notification is the one prompt; the header says who
            // needs the user.
            city.plan.withLock { $0.confidence = .none }
            station.plan.withLock { $0.confidence = .high }
            let before = try await shell.eval("globalThis.hh_notifications.map(n => n.title)", as: [String].self)
            try await s.replayLeave()
            let needsUser = try await s.replayHeldJoin("Library", accessPoint: "ap3")
            #expect(needsUser.contains("needs-user"), "\(needsUser)")
            try await s.waitFor("presenting-ui")
            try await s.waitUntil("the Wi-Fi menu asks the user to sign in") { try await s.subtitle(shell) == "Station Wi-Fi needs you to sign in" }
            try await s.waitUntil("Shell posts its sign-in notification again") { try await shell.portalNotificationsSeen().count == 2 }
            let all = try await shell.eval("globalThis.hh_notifications.map(n => n.title)", as: [String].self)
            #expect(all == before + [ShellRoot.portalTitle(major: major)], "the notifications Shell posted for the join: \(all.dropFirst(before.count))")

            // The daemon leaves: Shell's own labels and header come back.
            #expect(await s.daemon.stop() == 0)
            try await s.waitForRows(shell, ["CityFree": "CityFree", "Library": "Library"])
            try await s.waitUntil("the header loses the daemon's words") { try await s.subtitle(shell) == "" }

            // Turned off again: every handler it connected since the recorded enable() is gone
            // (those on objects Shell destroyed went with them).
            _ = try await shell.eval("\(shell.main).extensionManager.disableExtension('\(Self.uuid)')")
            try await s.waitUntil("the extension is off") { try await shell.extensionState(Self.uuid) == "state 2" }
            let handlers = try await shell.handlers()
            #expect(handlers.connected > 10, "the extension connected only \(handlers.connected) handlers: is the recording working?")
            #expect(handlers.left.isEmpty, "left connected after disable(): \(handlers.left)")

            // Nothing the extension did made Shell warn or fail (a handler left on a destroyed
            // row or box, a property set on a disposed label would log a stack through its files).
            let ours = shell.process.output.split(separator: "\n").filter { $0.contains(Self.uuid) || $0.contains(ShellExtensionTrees.uuid43) }
            #expect(ours.isEmpty, "Shell logged the extension's files:\n\(ours.joined(separator: "\n"))")
            print("GnomeShellRootTests \(release) (Shell \(major)): root and packages ready in \(installed), all in \(ContinuousClock.now - started)")
        }

        /// The portal's form in the extension's dialog on Shell 48 and 50: the page's labels and
        /// no sign-in notification while it is up; Cancel brings Shell's notification and Open in
        /// browser what clicking it does; a
        /// wrong room number shows the portal's message; signed in, the header says so without
        /// naming the daemon's helper; the next join is silent.
        @Test(arguments: [("trixie", 48), ("forky", 50)])
        func aPortalsFormIsAskedInTheExtensionsDialog(release: String, major: Int) async throws {
            let root = try await ShellRoot.prepare(release)
            let portal = try await SimulatedPortal.start(mode: "venue")
            defer { portal.stop() }
            // Shell and the extension from the packages, in the root; the daemon is this tree's
            // build, so the test runs with the daemon the extension is written for whichever
            // hotspot-helper package the root has.
            let s = try await ShellScene(root: root, portal: portal, daemonInRoot: false)
            let shell = try await s.startRootShell(root)
            #expect(shell.major == major, "\(shell.log)")
            try await s.clearScreen(shell)

            let outcome = try await s.replayHeldJoin("CityFree", accessPoint: "ap1")
            #expect(outcome.contains("needs-user"), "\(outcome)\n\(s.diagnostics)")
            let dialog = try await s.waitForSignInDialog(shell, "the sign-in dialog shows the hotel's form, titled with the network") {
                $0.entries.count == 2 && $0.texts.first == "CityFree"
            }
            #expect(dialog.entries.map(\.hint) == ["Room number", "Surname"], "\(dialog)")
            #expect(dialog.buttons == ["Open in browser", "Cancel", "Sign in"], "\(dialog)")
            #expect(dialog.checks.map(\.text) == ["Remember for this network"] && dialog.checks.allSatisfy(\.checked), "\(dialog)")
            #expect(!dialog.markup)
            let quiet = try await s.holdsThroughout(.seconds(8)) { try await shell.portalNotificationsSeen().isEmpty }
            #expect(quiet, "Shell posted its sign-in notification under the extension's dialog\n\(shell.log)")
            try await shell.screenshot(to: DesktopTests.GnomeShellTests.screenshots.appendingPathComponent("gnome\(major)-sign-in-dialog.png"))

            // Cancel brings Shell's own notification.
            try await s.fillSignIn(shell, [:], press: "Cancel")
            try await s.waitUntil("Cancel brings Shell's sign-in notification") { try await shell.portalNotificationsSeen().count == 1 }
            #expect(try await s.signInDialog(shell) == nil)

            // At the next join, Open in browser does what clicking Shell's notification does.
            try await s.replayLeave()
            try await s.waitFor("inactive")
            #expect(try await s.replayHeldJoin("CityFree", accessPoint: "ap1").contains("needs-user"))
            try await s.waitForSignInDialog(shell, "the sign-in dialog is up at the next join") { $0.entries.count == 2 }
            try await s.fillSignIn(shell, [:], press: "Open in browser")
            try await s.waitUntil("Open in browser closes the dialog") { try await s.signInDialog(shell) == nil }
            // Shell's prompt is back and acted on as a click (the roots have neither Shell's portal
            // helper nor a browser, so Shell's notification stays); what Shell did is printed.
            try await s.waitUntil("Open in browser brings Shell's notification") { try await shell.portalNotificationsSeen().count == 2 }
            let handler = try await shell.eval("""
                (() => { const h = \(shell.main).panel.statusArea.quickSettings._network._portalHandler;
                  return {queued: h._connectivityQueue.size, notifications: h._notifications.size}; })()
                """)
            print("GnomeShellRootTests \(release): after Open in browser, Shell's portal handler: \(handler), notifications seen: \(try await shell.portalNotificationsSeen())")

            // Once more: a wrong room number shows the portal's message; the right one signs in.
            try await s.replayLeave()
            try await s.waitFor("inactive")
            #expect(try await s.replayHeldJoin("CityFree", accessPoint: "ap1").contains("needs-user"))
            try await s.waitForSignInDialog(shell, "the sign-in dialog is up at the third join") { $0.entries.count == 2 }
            let notified = try await shell.portalNotificationsSeen().count
            try await s.fillSignIn(shell, ["Room number": "999", "Surname": "Martin"], press: "Sign in")
            try await s.waitForSignInDialog(shell, "the dialog shows the portal's message") { $0.all.contains("Room number and surname do not match a guest.") }
            try await shell.screenshot(to: DesktopTests.GnomeShellTests.screenshots.appendingPathComponent("gnome\(major)-sign-in-dialog-rejected.png"))
            try await s.fillSignIn(shell, ["Room number": "412", "Surname": "Martin"], press: "Sign in")
            try await s.waitUntil("the dialog closes once signed in") { try await s.signInDialog(shell) == nil }
            try await s.waitFor("authenticated")
            try await s.setConnectivity(ShellScene.full)
            try await s.waitUntil("the header says the network signed in, not the daemon's helper") { try await s.subtitle(shell) == "Signed in automatically" }
            #expect(try await shell.portalNotificationsSeen().count == notified)

            // The next join signs in with what was remembered: no dialog, no notification.
            try await s.replayLeave()
            try await s.waitFor("inactive")
            let held = Task { try await s.replayHeldJoin("CityFree", accessPoint: "ap1") }
            let silent = try await s.holdsThroughout(.seconds(8)) {
                guard try await s.signInDialog(shell) == nil else { return false }
                return try await shell.portalNotificationsSeen().count == notified
            }
            let again = try await held.value
            #expect(again.contains("signed-in"), "\(again)\n\(s.diagnostics)")
            #expect(silent, "a dialog or a notification came for a remembered network\n\(shell.log)")
            let ours = shell.process.output.split(separator: "\n").filter { $0.contains(Self.uuid) || $0.contains(ShellExtensionTrees.uuid43) }
            #expect(ours.isEmpty, "Shell logged the extension's files:\n\(ours.joined(separator: "\n"))")
        }
    }
}

extension ShellScene {
    /// Starts GNOME Shell in `root`, where the package installed the extension and its override.
    func startRootShell(_ root: TestRoot) async throws -> RootGnomeShell {
        let shell = try await RootGnomeShell(root: root, systemBus: bus)
        waiter.follow(shell.process.changes)
        rootShells.keep(shell)
        _ = try await shell.eval("(() => { import('gi://St').then(St => St.Settings.get().inhibit_animations()); return true; })()")
        return shell
    }
}

/// GNOME Shell 48 and 50's roots: Debian 13 and forky (``TestRoot``) with the tree's packages
/// installed by apt in the overlay.
enum ShellRoot {
    /// Why roots cannot be used here; nil when they can.
    static var unavailable: String? { TestRoot.unavailable(["trixie", "forky"], described: "Debian 13/forky root") }

    /// Shell's sign-in notification title (js/ui/status/network.js, CaptivePortalHandler).
    static func portalTitle(major: Int) -> String { major >= 49 ? "Sign in to Network" : "Sign Into Wi\u{2013}Fi Network" }

    /// The tree's packages: hotspot-helper from $HOTSPOT_DEB_DIR or debian-build/ (`make deb`,
    /// built here if neither has it), the extension's built now from the tree.
    static func packages(into dir: ScratchDirectory) async throws -> [String] {
        let repo = TestKitPaths.repositoryRoot
        let fm = FileManager.default
        func find(_ d: String) -> String? {
            (try? fm.contentsOfDirectory(atPath: d))?.filter { $0.hasPrefix("hotspot-helper_") && $0.hasSuffix(".deb") }.sorted().last.map { "\(d)/\($0)" }
        }
        let env = ProcessInfo.processInfo.environment["HOTSPOT_DEB_DIR"]
        var helper = env.flatMap(find) ?? find(repo.appendingPathComponent("debian-build").path)
        if helper == nil {
            let r = try await ManagedProcess.run("/usr/bin/make", ["-C", repo.path, "--no-print-directory", "deb", "NO_LINTIAN=1"], timeout: .seconds(3600))
            guard r.status == 0 else { throw TestKitError.startFailed("make deb failed:\n\(r.stdout.suffix(3000))\n\(r.stderr.suffix(3000))") }
            helper = find(repo.appendingPathComponent("debian-build").path)
        }
        guard let helper else { throw TestKitError.startFailed("no hotspot-helper_*.deb in $HOTSPOT_DEB_DIR or debian-build/ after make deb") }
        let r = try await ManagedProcess.run("/usr/bin/make", ["-C", repo.path, "--no-print-directory", "shell-extension-deb", "DEB_DIR=\(dir.path)", "NO_LINTIAN=1"],
                                             timeout: .seconds(120))
        guard r.status == 0 else { throw TestKitError.startFailed("make shell-extension-deb failed:\n\(r.stdout)\n\(r.stderr)") }
        guard let ext = try fm.contentsOfDirectory(atPath: dir.path).first(where: { $0.hasPrefix("gnome-shell-extension-hotspot-helper_") && $0.hasSuffix(".deb") })
        else { throw TestKitError.startFailed("make shell-extension-deb made no .deb in \(dir.path)") }
        let copy = dir.appendingPathComponent((helper as NSString).lastPathComponent).path
        try fm.copyItem(atPath: helper, toPath: copy)
        return [copy, dir.appendingPathComponent(ext).path]
    }

    /// The cached root of `release` (made by scripts/test-root.sh if it is missing: minutes, once),
    /// with the tree's packages installed by apt in the overlay.
    static func prepare(_ release: String) async throws -> TestRoot {
        let root = try await TestRoot.prepare(release)
        // Downloaded dependencies are kept between runs: copied into the overlay's apt cache
        // before apt runs and back after it (copies, so runs side by side share no apt lock).
        let archives = "/var/cache/hotspot-helper/apt-archives/\(release)"
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        _ = try await root.runBeside("cp -n \(archives)/*.deb \(root.merged)/var/cache/apt/archives/ 2>/dev/null || true")
        let debs = try await packages(into: root.scratch)
        let r = try await root.run(["/usr/bin/apt-get", "install", "-y", "-q", "--no-install-recommends"] + debs, environment: [
            "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C.UTF-8", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        ], timeout: .seconds(900))
        guard r.status == 0 else { throw TestKitError.startFailed("apt-get install in the \(release) root failed (\(r.status)):\n\(r.stdout.suffix(4000))\n\(r.stderr.suffix(3000))") }
        _ = try await root.runBeside("cp -n \(root.merged)/var/cache/apt/archives/*.deb \(archives)/ 2>/dev/null || true")
        return root
    }
}

extension TestRoot {
    /// What DaemonProcess puts before its command line (the debug build's path, then its
    /// arguments): the root's packaged daemon instead, given the same arguments.
    var daemonPrefix: [String] {
        command(["/bin/sh", "-c", "shift; exec /usr/libexec/hotspot-helperd \"$@\"", "hotspot-helperd"])
    }
}

/// GNOME Shell in a ``ShellRoot`` (a ``TestRoot``), headless, as nobody, with a session bus of its own (the root's
/// dbus-daemon) and the test's private bus as its system bus. Settings are in memory, their
/// defaults the root's compiled schemas: the package's vendor override included, as a user who
/// never changed a setting has them. Shell's main module is `globalThis.hh_main` in Eval (45+
/// has no `imports.ui`).
final class RootGnomeShell: ShellSession {
    let root: TestRoot
    let scratch: ScratchDirectory
    let runtimeDirectory: URL
    let sessionBus: ManagedProcess
    let process: ManagedProcess
    let session: Connection
    let major: Int
    var main: String { "globalThis.hh_main" }

    init(root: TestRoot, systemBus: PrivateBus) async throws {
        self.root = root
        let fm = FileManager.default
        scratch = try ScratchDirectory("gnome-shell-\(root.release)")
        let home = scratch.appendingPathComponent("home")
        runtimeDirectory = scratch.appendingPathComponent("run")
        let services = scratch.appendingPathComponent("services")
        for dir in [home, runtimeDirectory, services] { try fm.createDirectory(at: dir, withIntermediateDirectories: true) }
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimeDirectory.path)
        let config = scratch.appendingPathComponent("session.conf")
        try GnomeShell.sessionBusConfiguration(listen: runtimeDirectory.appendingPathComponent("bus"), services: services)
            .write(to: config, atomically: false, encoding: .utf8)
        _ = try await ManagedProcess.run("/bin/chown", ["-R", "\(GnomeShell.nobody):\(GnomeShell.nobody)", home.path, runtimeDirectory.path])

        let version = try await root.run(["/usr/bin/gnome-shell", "--version"])
        major = Int(version.stdout.split(separator: " ").last?.split(separator: ".").first ?? "") ?? 0
        let address = "unix:path=\(runtimeDirectory.appendingPathComponent("bus").path)"
        let environment = [
            "PATH=/usr/bin:/bin", "HOME=\(home.path)", "XDG_RUNTIME_DIR=\(runtimeDirectory.path)", "LANG=C.UTF-8",
            "DBUS_SESSION_BUS_ADDRESS=\(address)", "DBUS_SYSTEM_BUS_ADDRESS=\(systemBus.address)",
            "GSETTINGS_BACKEND=memory", "XDG_SESSION_TYPE=wayland", "WAYLAND_DISPLAY=wayland-0", "NO_AT_BRIDGE=1",
        ]
        let asNobody = ["/usr/bin/setpriv", "--reuid=\(GnomeShell.nobody)", "--regid=\(GnomeShell.nobody)", "--clear-groups", "/usr/bin/env", "-i"] + environment
        sessionBus = try root.launch(asNobody + ["/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--print-address=1", "--nofork", "--nopidfile"],
                                     name: "dbus-daemon(session, \(root.release))")
        guard let printed = await sessionBus.waitForFirstStdoutLine(timeout: .seconds(30)), printed.hasPrefix("unix:") else {
            sessionBus.stop()
            throw TestKitError.startFailed("the session bus printed no address: \(sessionBus.output)")
        }
        session = try Connection(address: printed)
        process = try root.launch(asNobody + ["/usr/bin/gnome-shell", "--headless", "--virtual-monitor", "1280x800", "--unsafe-mode", "--no-x11"],
                                  name: "gnome-shell(\(root.release))")
        let owners = try await session.watchNameOwner("org.gnome.Shell")
        guard await firstElement(of: owners, within: .seconds(120), where: { $0 != nil }) != nil else {
            throw TestKitError.startFailed("GNOME Shell did not take org.gnome.Shell within 120 s; its log:\n\(process.output.suffix(6000))")
        }
        // Shell's main module, kept on globalThis by one Eval and read by the next ones; the
        // import's completion is logged, which wakes the wait.
        // (Shell owns its name before it exports /org/gnome/Shell: the first Eval is retried
        // on Shell's log lines until it answers.)
        try await process.changes.until("GNOME Shell answers Eval", timeout: .seconds(120), context: { self.log }) {
            (try? await self.eval("""
                (() => { import('resource:///org/gnome/shell/ui/main.js').then(m => { globalThis.hh_main = m; console.log('hh: main imported'); }); return true; })()
                """)) != nil
        }
        try await process.changes.until("GNOME Shell finishes starting up", timeout: .seconds(120), context: { self.log }) {
            (try? await self.eval("globalThis.hh_main?.layoutManager._startingUp")) == "false"
        }
        // Every notification Shell posts from now on, kept after it goes (Shell 47+ withdraws
        // its sign-in notification once connectivity is full), and logged, which wakes waits.
        _ = try await eval("""
            (() => { const seen = globalThis.hh_notifications = [];
              const record = n => { if (!seen.includes(n)) { seen.push(n); console.log(`hh: notification ${n.title}`); } };
              const watch = s => { s.notifications.forEach(record); s.connect('notification-added', (_s, n) => record(n)); };
              hh_main.messageTray.getSources().forEach(watch);
              hh_main.messageTray.connect('source-added', (_t, s) => watch(s));
              return true; })()
            """)
    }

    deinit {
        process.stop()
        sessionBus.stop()
    }

    var log: String { "--- gnome-shell (\(root.release)) log ---\n\(process.output.suffix(6000))" }

    func eval(_ code: String) async throws -> String {
        let reply = try await session.call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell", "Eval", [.string(code)])
        guard reply.count == 2, let ok = reply[0].bool, let result = reply[1].string else { throw TestKitError.startFailed("Eval answered \(reply)") }
        guard ok else { throw GnomeShell.ShellError.evalFailed(code: code, error: result) }
        return result
    }

    /// "enabled", "error: …", or another state's number (ExtensionState: 4 is OUT_OF_DATE).
    func extensionState(_ uuid: String) async throws -> String {
        try await eval(#"""
            (() => { const e = hh_main.extensionManager.lookup('\#(uuid)');
              if (!e) return 'not found';
              if (e.state === 1) return 'enabled';
              return e.error ? `error: ${e.error}` : `state ${e.state}`; })()
            """#, as: String.self)
    }

    /// The titles of Shell's captive-portal sign-in notifications posted since Shell started.
    func portalNotificationsSeen() async throws -> [String] {
        let title = ShellRoot.portalTitle(major: major)
        return try await eval("globalThis.hh_notifications.map(n => n.title)", as: [String].self).filter { $0 == title }
    }

    /// Records, from now on, every signal handler connected from the extension's files
    /// (``HandlerWatch``).
    func watchHandlers() async throws {
        _ = try await eval("""
            (() => { Promise.all([import('gi://GObject'), import('gi://Clutter')]).then(([{default: GObject}, {default: Clutter}]) => {
                \(HandlerWatch.install(uuid: ShellExtensionTrees.uuid)) console.log('hh: handlers watched');
              }); return true; })()
            """)
        try await process.changes.until("Shell records the extension's handlers", timeout: .seconds(60), context: { self.log }) {
            try await self.eval("Array.isArray(globalThis.hh_handlers)") == "true"
        }
    }

    func handlers() async throws -> (connected: Int, left: [String]) { try await HandlerWatch.read(self) }

    /// Whether Shell's network indicator has its main connection ACTIVATED and NetworkManager's
    /// connectivity FULL: it has then seen the join through.
    func mainConnectionSettled() async throws -> Bool {
        try await eval("""
            (() => { const n = hh_main.panel.statusArea.quickSettings._network;
              return n._mainConnection?.state === 2 && n._client?.connectivity === 4; })()
            """) == "true"
    }

    /// Saves the screen as a PNG at `destination` (org.gnome.Shell.Screenshot).
    func screenshot(to destination: URL) async throws {
        let shot = runtimeDirectory.appendingPathComponent("screenshot-\(UUID().uuidString).png")
        let reply = try await session.call("org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot", "Screenshot",
                                           [.bool(false), .bool(false), .string(shot.path)])
        guard reply.first?.bool == true else { throw GnomeShell.ShellError.screenshotFailed("\(reply)") }
        let fm = FileManager.default
        try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? fm.removeItem(at: destination)
        try fm.copyItem(at: shot, to: destination)
    }
}
