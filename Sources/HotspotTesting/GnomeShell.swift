// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation

/// GNOME Shell 43, headless, for tests of what a GNOME user sees: `gnome-shell --headless
/// --virtual-monitor 1280x800 --unsafe-mode --no-x11` as `nobody` (never root: as root Shell
/// shows a "privileged user" notification), with a HOME and XDG_RUNTIME_DIR of its own, a
/// session bus of its own (also run as nobody, so what it activates, such as the captive-portal
/// window, runs as nobody), and a test's ``PrivateBus`` as its system bus. `--unsafe-mode` opens
/// `org.gnome.Shell.Eval` (read the menus) and `org.gnome.Shell.Screenshot` to the test.
///
/// Settings live in memory (GSETTINGS_BACKEND=memory); their defaults come from the system's
/// schemas compiled with `overrides` (e.g. the extension package's vendor override), so a test
/// sees what a user who never changed a setting sees.
public final class GnomeShell: Sendable {
    public static let nobody = 65534
    public static let executable = "/usr/bin/gnome-shell"
    static let portalHelperService = "/usr/share/dbus-1/services/org.gnome.Shell.PortalHelper.service"

    /// Why Shell cannot run here, naming what to install; nil when it can.
    public static var unavailable: String? {
        if !TestEnvironment.isRoot { return "needs root (GNOME Shell runs as nobody through setpriv)" }
        if !TestEnvironment.hasTool("/usr/bin/setpriv") { return "needs setpriv (apt-get install util-linux)" }
        if !TestEnvironment.hasDBusMock { return "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)" }
        if !TestEnvironment.hasTool(executable) || !TestEnvironment.hasTool("/usr/bin/glib-compile-schemas") {
            return "needs GNOME Shell 43 (apt-get install gnome-shell fonts-cantarell adwaita-icon-theme)"
        }
        return nil
    }

    public let scratch: ScratchDirectory
    /// Shell's XDG_RUNTIME_DIR (owned by nobody): its Wayland socket, the session bus, screenshots.
    public let runtimeDirectory: URL
    public let sessionBus: ManagedProcess
    public let sessionAddress: String
    public let process: ManagedProcess
    /// A connection to Shell's session bus (as root; the bus lets everyone in).
    public let session: Connection

    /// Starts Shell on `systemBus` with `extensions` (directories named by their uuid) in
    /// ~/.local/share/gnome-shell/extensions and `overrides` (.gschema.override files) applied to
    /// the settings' defaults, and waits until its startup is complete.
    public init(systemBus: PrivateBus, extensions: [URL] = [], overrides: [URL] = []) async throws {
        let fm = FileManager.default
        scratch = try ScratchDirectory("gnome-shell")
        let home = scratch.appendingPathComponent("home")
        runtimeDirectory = scratch.appendingPathComponent("run")
        let schemas = scratch.appendingPathComponent("schemas")
        let services = scratch.appendingPathComponent("services")
        let installed = home.appendingPathComponent(".local/share/gnome-shell/extensions")
        for dir in [installed, runtimeDirectory, schemas, services] { try fm.createDirectory(at: dir, withIntermediateDirectories: true) }
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimeDirectory.path)
        for source in extensions {
            try fm.copyItem(at: source, to: installed.appendingPathComponent(source.lastPathComponent))
        }

        // The system's schemas and overrides, and the test's, compiled into a directory that
        // GSETTINGS_SCHEMA_DIR puts first.
        let system = URL(fileURLWithPath: "/usr/share/glib-2.0/schemas")
        for name in try fm.contentsOfDirectory(atPath: system.path) where name.hasSuffix(".xml") || name.hasSuffix(".override") {
            try fm.copyItem(at: system.appendingPathComponent(name), to: schemas.appendingPathComponent(name))
        }
        for override in overrides { try fm.copyItem(at: override, to: schemas.appendingPathComponent(override.lastPathComponent)) }
        let compiled = try await ManagedProcess.run("/usr/bin/glib-compile-schemas", [schemas.path])
        guard compiled.status == 0 else { throw TestKitError.startFailed("glib-compile-schemas: \(compiled.stderr)") }

        // The session bus activates only the captive-portal window (Shell's org.gnome.Shell.PortalHelper).
        if fm.fileExists(atPath: Self.portalHelperService) {
            try fm.copyItem(atPath: Self.portalHelperService, toPath: services.appendingPathComponent("org.gnome.Shell.PortalHelper.service").path)
        }
        let config = scratch.appendingPathComponent("session.conf")
        try Self.sessionBusConfiguration(listen: runtimeDirectory.appendingPathComponent("bus"), services: services).write(to: config, atomically: false, encoding: .utf8)
        _ = try await ManagedProcess.run("/bin/chown", ["-R", "\(Self.nobody):\(Self.nobody)", home.path, runtimeDirectory.path])

        let address = "unix:path=\(runtimeDirectory.appendingPathComponent("bus").path)"
        // What Shell and what the session bus activates see: nothing of the test's environment.
        let environment = [
            "PATH=/usr/bin:/bin", "HOME=\(home.path)", "XDG_RUNTIME_DIR=\(runtimeDirectory.path)", "LANG=C.UTF-8",
            "DBUS_SESSION_BUS_ADDRESS=\(address)", "DBUS_SYSTEM_BUS_ADDRESS=\(systemBus.address)",
            "GSETTINGS_BACKEND=memory", "GSETTINGS_SCHEMA_DIR=\(schemas.path)", "XDG_SESSION_TYPE=wayland",
            // Shell's Wayland socket, for the windows the session bus starts.
            "WAYLAND_DISPLAY=wayland-0", "NO_AT_BRIDGE=1",
        ]
        let asNobody = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "/usr/bin/env", "-i"] + environment
        sessionBus = try ManagedProcess.launch("/usr/bin/setpriv", asNobody + [
            "/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--print-address=1", "--nofork", "--nopidfile",
        ], name: "dbus-daemon(session)")
        guard let printed = await sessionBus.waitForFirstStdoutLine(timeout: .seconds(30)), printed.hasPrefix("unix:") else {
            sessionBus.stop()
            throw TestKitError.startFailed("the session bus printed no address: \(sessionBus.output)")
        }
        sessionAddress = printed
        session = try Connection(address: printed)
        process = try ManagedProcess.launch("/usr/bin/setpriv", asNobody + [
            Self.executable, "--headless", "--virtual-monitor", "1280x800", "--unsafe-mode", "--no-x11",
        ], name: "gnome-shell")
        let owners = try await session.watchNameOwner("org.gnome.Shell")
        guard await firstElement(of: owners, within: .seconds(60), where: { $0 != nil }) != nil else {
            throw TestKitError.startFailed("GNOME Shell did not take org.gnome.Shell within 60 s; its log:\n\(process.output.suffix(6000))")
        }
        try await process.changes.until("GNOME Shell finishes starting up", timeout: .seconds(60), context: { self.log }) {
            (try? await self.eval("imports.ui.main.layoutManager._startingUp")) == "false"
        }
        // Every window Shell manages from now on, kept even after it closes (``windowsSeen()``).
        _ = try await eval("global.__testWindowsSeen = []; global.display.connect('window-created', (d, w) => global.__testWindowsSeen.push(w)); true")
    }

    deinit {
        // What the session bus started (the portal window, WebKit's processes) goes with it:
        // GApplication leaves when its bus closes.
        process.stop()
        sessionBus.stop()
    }

    /// Shell's log (stdout and stderr) so far.
    public var log: String { "--- gnome-shell log ---\n\(process.output.suffix(6000))" }

    /// Runs JavaScript in Shell (org.gnome.Shell.Eval) and returns its value as JSON text; throws
    /// with Shell's error when it fails.
    public func eval(_ code: String) async throws -> String {
        let reply = try await session.call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell", "Eval", [.string(code)])
        guard reply.count == 2, let ok = reply[0].bool, let result = reply[1].string else {
            throw TestKitError.startFailed("Eval answered \(reply)")
        }
        guard ok else { throw ShellError.evalFailed(code: code, error: result) }
        return result
    }

    /// `eval`, its JSON decoded as `T`.
    public func eval<T: Decodable>(_ code: String, as type: T.Type) async throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try await eval(code).utf8))
    }

    /// Saves the screen as a PNG at `destination` (org.gnome.Shell.Screenshot; Shell writes it
    /// into its runtime directory, then it is copied).
    public func screenshot(to destination: URL) async throws {
        let shot = runtimeDirectory.appendingPathComponent("screenshot-\(UUID().uuidString).png")
        let reply = try await session.call("org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot", "Screenshot",
                                           [.bool(false), .bool(false), .string(shot.path)])
        guard reply.first?.bool == true else { throw ShellError.screenshotFailed("\(reply)") }
        let fm = FileManager.default
        try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? fm.removeItem(at: destination)
        try fm.copyItem(at: shot, to: destination)
        try? fm.removeItem(at: shot)
    }

    /// The state of the extension `uuid` as Shell's extension manager has it: "enabled",
    /// "error: …", or another state's number.
    public func extensionState(_ uuid: String) async throws -> String {
        try await eval(#"""
            (() => { const e = imports.ui.main.extensionManager.lookup('\#(uuid)');
              if (!e) return 'not found';
              if (e.state === 1) return 'enabled';
              return e.error ? `error: ${e.error}` : `state ${e.state}`; })()
            """#, as: String.self)
    }

    /// The windows on screen: title, WM_CLASS and GTK application id.
    public func windows() async throws -> [Window] {
        try await eval("""
            global.get_window_actors().map(a => ({a, w: a.meta_window})).map(({a, w}) =>
              ({title: w.get_title() ?? '', wmClass: w.get_wm_class() ?? '', application: w.get_gtk_application_id() ?? '',
                shown: a.visible && a.mapped && w.showing_on_its_workspace(), width: w.get_frame_rect().width,
                height: w.get_frame_rect().height}))
            """, as: [Window].self)
    }

    /// Every window Shell managed since it started, open or closed since: a window that opens and
    /// closes between two looks is still seen.
    public func windowsSeen() async throws -> [Window] {
        try await eval("""
            global.__testWindowsSeen.map(w =>
              ({title: w.get_title() ?? '', wmClass: w.get_wm_class() ?? '', application: w.get_gtk_application_id() ?? '',
                shown: false, width: w.get_frame_rect().width, height: w.get_frame_rect().height}))
            """, as: [Window].self)
    }

    public struct Window: Decodable, Sendable, CustomStringConvertible {
        public var title: String
        public var wmClass: String
        public var application: String
        /// Whether its actor is visible and mapped (drawn on the stage).
        public var shown: Bool
        public var width: Int
        public var height: Int
        /// Whether this is Shell's captive-portal window ("Hotspot Login", js/portalHelper/main.js).
        public var isHotspotLogin: Bool { application == "org.gnome.Shell.PortalHelper" || wmClass == "gnome-shell-portal-helper" }
        public var description: String { "\(title) [\(wmClass), \(application)] \(width)x\(height)\(shown ? "" : " not shown")" }
    }

    /// The unique name of the session bus's `name`, or nil.
    public func owner(_ name: String) async throws -> String? { try await session.nameOwner(BusName(name)) }

    /// Stops what the session bus activated and owns `name` (the portal window), by its pid.
    public func stopService(_ name: String) async throws {
        guard let unique = try await owner(name), let pid = try await session.credentials(of: unique).pid else { return }
        kill(pid_t(pid), SIGTERM)
    }

    /// GNOME Shell's session bus in a test, on the host or in another release's root.
    public static func sessionBusConfiguration(listen socket: URL, services: URL) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <!-- GNOME Shell's session bus in a test: everyone may connect (the test runs as root),
             and it activates only what \(services.path) lists. -->
        <busconfig>
          <type>session</type>
          <keep_umask/>
          <listen>unix:path=\(socket.path)</listen>
          <servicedir>\(services.path)</servicedir>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
            <allow user="*"/>
          </policy>
        </busconfig>
        """
    }

    public enum ShellError: Error, CustomStringConvertible {
        case evalFailed(code: String, error: String)
        case screenshotFailed(String)
        public var description: String {
            switch self {
            case .evalFailed(let code, let error): return "Shell's Eval failed: \(error)\n--- code ---\n\(code)"
            case .screenshotFailed(let reply): return "Shell's Screenshot failed: \(reply)"
            }
        }
    }
}
