// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import HotspotTesting
import Synchronization
import Testing

extension PackageTests {
    /// KDE Plasma 6.3's own network management (plasma-nm, Debian 13) against the daemon: in a
    /// cached Debian 13 root with plasma-nm (scripts/test-root.sh trixie-plasma) seen through an
    /// overlay, the applet's own list page (its ConnectionListPage.qml and ConnectionItem.qml over
    /// plasma-nm's QML module, org.kde.plasma.networkmanagement) run headless by Qt's qml runtime,
    /// and plasma-nm's kded module (its portal notification) in kded6; NetworkManager is this
    /// process's python-dbusmock on a private system bus, the daemon is this tree's, the session
    /// bus a second private bus with python-dbusmock's notification server and this tree's agent.
    @Suite(.serialized, .enabled(if: PlasmaRoot.unavailable == nil, Comment(rawValue: PlasmaRoot.unavailable ?? "")))
    struct PlasmaRootTests {
        @Test func plasmasListNamesOnlyProfilesAndItsPortalNotificationComesAndGoesOverAHeldJoin() async throws {
            let root = try await PlasmaRoot.prepare()
            let s = try await PlasmaScene()
            let session = try await PlasmaSession(root: root, system: s.bus)

            // City Free Wi-Fi signs in at CityFree (open); Coffee Corner supplies CoffeeShop's
            // password, which the daemon provisions as an in-memory profile named after it;
            // Station Wi-Fi will need the user at Library. Only the first evaluates for now.
            let city = try await s.helper("City Free Wi-Fi", claims: ["CityFree": nil], confidence: .high)
            try await s.helper("Coffee Corner", claims: ["CoffeeShop": "coffee-corner-passphrase"])
            let station = try await s.helper("Station Wi-Fi", claims: ["Library": nil], results: [.authenticate: .uiRequired])
            try await s.waitUntil("the daemon provisioned CoffeeShop's profile under the helper's name") {
                try await s.profileIDs() == ["Coffee Corner"]
            }
            try await s.profilesAreAvailable()

            // The applet's list: the provisioned profile under the helper's name, as a saved
            // connection; the other two as access points, under their SSIDs (no profile).
            let list = try session.startList()
            try await session.waitForList(list, "the provisioned profile by its name, the rest by SSID") {
                $0.named == [.init("Coffee Corner", "CoffeeShop", .connection), .init("CityFree", "CityFree", .accessPoint),
                             .init("Library", "Library", .accessPoint)]
            }
            try await list.picture(to: DesktopTests.GnomeShellTests.screenshots.appendingPathComponent("plasma-network-list.png"))

            // plasma-nm's kded module, then the agent (which sees Plasma on the session bus).
            try await session.startKDED()
            let agent = try session.startAgent()
            // The agent follows the daemon from here on (a join before it listens is one it never sees).
            try #require(await agent.waitForOutput(containing: "listening to hotspot-helperd"), "\(agent.output)")

            // A join held by the pre-up hook while City Free Wi-Fi signs in: NetworkManager's
            // check says PORTAL during the hold, FULL once the daemon signed in, then the
            // connection is ACTIVATED. The helper answers once plasma-nm has posted: a sign-in
            // slower than plasma-nm's Notify call (one that ends first leaves plasma-nm's close
            // without the notification's id, docs/DESKTOP.md).
            city.silence(.authenticate)
            let join = Task { try await s.replayHeldJoin("CityFree", accessPoint: "ap1") }
            try await session.waitUntil("plasma-nm posts its portal notification during the hold") {
                try await session.portalNotifications().count == 1
            }
            try await s.waitUntil("City Free Wi-Fi is asked to sign in") { !city.held.withLock { $0.isEmpty } }
            city.plan.withLock { $0.silent = [] }
            for command in city.held.withLock({ $0 }) { command.createResponse(.success).deliver() }
            let outcome = try await join.value
            #expect(outcome.contains("signed-in"), "\(outcome)\n\(s.diagnostics)")
            try await s.waitFor("authenticated")
            #expect(await agent.waitForOutput(containing: "told: Signed in to CityFree"), "\(agent.output)")
            try await session.waitForList(list, "CityFree connected, its new profile named by its SSID") {
                $0.connectivity == PlasmaSession.full && $0.rows.contains { $0.name == "CityFree" && $0.type == .connection && $0.state == PlasmaSession.activated }
            }
            // What plasma-nm posted over the hold: its portal notification, taken back once the
            // daemon's sign-in made the check FULL; the agent's "Signed in".
            try await session.waitUntil("plasma-nm's portal notification is closed again") {
                let posted = try await session.portalNotifications()
                return !posted.isEmpty && posted.allSatisfy(\.closed)
            }
            let held = try await session.portalNotifications()
            #expect(held.count == 1, "\(held)")
            // Titled with the primary connection's id, of which there is none yet while the join is held.
            #expect(held.first?.title == "Network authentication", "\(held)")
            let signedIn = try await session.notifications().filter { $0.title == "Signed in to CityFree" }
            #expect(signedIn.map(\.body) == ["Signed in by City Free Wi-Fi"], "\(signedIn)")
            try await list.picture(to: DesktopTests.GnomeShellTests.screenshots.appendingPathComponent("plasma-network-list-signed-in.png"))

            // The helper needs the user at Library: the daemon lets the join through at once,
            // NetworkManager says PORTAL, and Plasma prompts: its notification (persistent) and
            // the list's "You need to log in to this network". The agent posts no prompt of its
            // own (one prompt, not two).
            city.plan.withLock { $0.confidence = .none }
            station.plan.withLock { $0.confidence = .high }
            try await s.replayLeave()
            try await s.waitFor("inactive")
            let needsUser = try await s.replayHeldJoin("Library", accessPoint: "ap3")
            #expect(needsUser.contains("needs-user"), "\(needsUser)")
            try await s.waitFor("presenting-ui")
            #expect(await agent.waitForOutput(containing: "not notifying for Library: Plasma's network management"), "\(agent.output)")
            try await session.waitUntil("plasma-nm posts its portal notification for Library's join") {
                try await session.portalNotifications().count == 2
            }
            let prompt = try await session.portalNotifications()[1]
            #expect(!prompt.closed && prompt.title == "Network authentication" && prompt.actions.contains("Log in"), "\(prompt)")
            try await session.waitForList(list, "the list says to log in, Library connected") {
                $0.connectivity == PlasmaSession.portal && $0.rows.contains { $0.name == "Library" && $0.state == PlasmaSession.activated }
            }
            try await list.picture(to: DesktopTests.GnomeShellTests.screenshots.appendingPathComponent("plasma-network-list-needs-sign-in.png"))
            let ours = try await session.notifications().filter { $0.appName == "Hotspot Helper" }.map(\.title)
            #expect(ours == ["Signed in to CityFree"], "the agent's notifications: \(ours)")
            // No profile was made for a network nobody joined: NetworkManager has the helper's
            // provisioned one and the two the joins made.
            #expect(try await s.profileIDs() == ["CityFree", "Coffee Corner", "Library"])
            agent.stop()
        }
    }
}

/// The cached Debian 13 root with Plasma's network management (scripts/test-root.sh
/// trixie-plasma), a ``TestRoot``.
enum PlasmaRoot {
    static let release = "trixie-plasma"

    /// Why the root cannot be used here; nil when it can.
    static var unavailable: String? { TestRoot.unavailable([release], described: "Debian 13 root with Plasma") }

    /// The cached root (made by scripts/test-root.sh if missing: minutes, once), mounted.
    static func prepare() async throws -> TestRoot { try await TestRoot.prepare(release) }
}

/// The daemon with python-dbusmock's NetworkManager (with the profile methods, and the
/// properties Plasma's NetworkManager library reads that the template lacks), helpers in this
/// process, and joins replayed as NetworkManager shows them (``JoinReplayScene``; the pre-up script
/// is the tree's).
struct PlasmaScene: JoinReplayScene {
    let core: DaemonScenario
    let helpers = Kept<HotspotHelper>()
    var patience: Duration { .seconds(60) }

    init() async throws {
        core = try await DaemonScenario(accessPoints: [
            MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01", strength: 80),
            MockAccessPoint(name: "ap2", ssid: "CoffeeShop", bssid: "0A:00:00:00:00:02", strength: 60, secure: true),
            MockAccessPoint(name: "ap3", ssid: "Library", bssid: "0A:00:00:00:00:03", strength: 40),
        ], settings: ["command-timeout": "20", "filter-interval": "0.2", "maintain-interval": "300", "provision-after": "0"],
           beforeDaemon: { nm, c in try await nm.addProfileMethods(c) })
        try await addJoinReplay()
        try await core.nm.addMethod(core.client, path: DaemonScenario.nmPath, interface: "org.freedesktop.DBus.Mock", name: "JoinProfile",
                                    inSignature: "ss", outSignature: "o", code: Self.joinProfile)
        // NetworkManager lists a saved Wi-Fi profile among the device's AvailableConnections;
        // the template does that only for the profiles its own AddWiFiConnection makes.
        try await core.nm.addMethod(core.client, path: DaemonScenario.nmPath, interface: "org.freedesktop.DBus.Mock", name: "ProfilesAvailable",
                                    inSignature: "s", outSignature: "", code: "dev = args[0]\n" + Self.available)
    }

    @discardableResult
    func helper(_ name: String, claims: [String: String?], results: [CommandType: CommandResult] = [:], confidence: Confidence = .none) async throws -> HelperScript {
        let script = HelperScript(confidence: confidence, results: results, claims: claims)
        let h = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: name, identifier: "test.\(name)", purpose: "Signs in at \(name)"),
                                                 connection: try bus.connect()) { command in script.answer(command) }
        waiter.follow(script.changes)
        helpers.keep(h)
        return script
    }

    /// NetworkManager's profiles' ids, sorted.
    func profileIDs() async throws -> [String] {
        let paths = try await client.call("org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager/Settings",
                                          "org.freedesktop.NetworkManager.Settings", "ListConnections").first?.objectPaths ?? []
        var ids: [String] = []
        for p in paths {
            let settings = try await client.call("org.freedesktop.NetworkManager", p.rawValue, "org.freedesktop.NetworkManager.Settings.Connection", "GetSettings")
            let connection = settings.first?.dictEntries?.first { $0.key.string == "connection" }?.value
            if let id = connection?.varDict?["id"]?.string { ids.append(id) }
        }
        return ids.sorted()
    }

    /// The device `dev`'s AvailableConnections: every profile (python, for a mock method).
    static let available = """
        d = get_object(dev)
        paths = dbus.Array([dbus.ObjectPath(p) for p in get_object('/org/freedesktop/NetworkManager/Settings').ListConnections()], signature='o')
        d.props['org.freedesktop.NetworkManager.Device']['AvailableConnections'] = paths
        d.EmitSignal('org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as',
                     ['org.freedesktop.NetworkManager.Device', dbus.Dictionary({'AvailableConnections': paths}, signature='sv'), dbus.Array([], signature='s')])
        """

    /// The profile a first join makes (as Plasma's applet makes it: named by the SSID, added
    /// with Settings.AddConnection), or the one an earlier join made.
    static let joinProfile = """
        import uuid
        ssid, dev = args
        settings = get_object('/org/freedesktop/NetworkManager/Settings')
        ret = None
        for p in settings.ListConnections():
            if get_object(p).settings['connection']['id'] == ssid:
                ret = dbus.ObjectPath(p)
        if ret is None:
            ret = dbus.ObjectPath(settings.SettingsAddConnection({
                'connection': {'id': ssid, 'type': '802-11-wireless', 'uuid': str(uuid.uuid4())},
                '802-11-wireless': {'ssid': dbus.ByteArray(ssid.encode('utf-8')), 'mode': 'infrastructure'}}))
        \(available)
        """

    func profilesAreAvailable() async throws { try await mock("ProfilesAvailable", [.string(device)]) }

    /// One step of a Wi-Fi activation as NetworkManager shows it (``JoinReplayScene/activation``); a
    /// first join makes the profile, named by the SSID as Plasma's applet names the profiles it
    /// makes.
    func activation(_ ssid: String, accessPoint: String, active: String, activeState: UInt32, deviceState: UInt32, primary: Bool) async throws {
        let profile = try await mock("JoinProfile", [.string(ssid), .string(device)]).first?.objectPath?.rawValue ?? ""
        try await mock("Activation", [.string(device), .string(profile), .string("/org/freedesktop/NetworkManager/AccessPoint/\(accessPoint)"),
                                      .string(active), .uint32(activeState), .uint32(deviceState), .uint32(0), .bool(primary)])
    }
}

/// The session side: a private session bus with python-dbusmock's notification server, and what
/// runs on it: the applet's list (qml, in the root), kded6 with plasma-nm's module (in the root),
/// and the agent (this tree's).
struct PlasmaSession {
    static let portal = 2, full = 4
    /// NetworkManager::ActiveConnection::State's Activated.
    static let activated = 2
    static let notificationsPath = "/org/freedesktop/Notifications"
    let root: TestRoot
    let system: PrivateBus
    let bus: PrivateBus
    let notificationServer: DBusMock
    let client: Connection
    let scratch: ScratchDirectory
    let processes = Kept<ManagedProcess>()
    let changes = Changes()

    init(root: TestRoot, system: PrivateBus) async throws {
        self.root = root
        self.system = system
        bus = try await PrivateBus()
        // A server with actions, as Plasma's is (KNotification adds its actions only then).
        notificationServer = try await bus.startMock(template: "notification_daemon", parameters: #"{"capabilities": "body body-markup actions persistence icon-static"}"#,
                                                     waitFor: "org.freedesktop.Notifications")
        client = try bus.connect()
        scratch = try ScratchDirectory("plasma-session")
        let fm = FileManager.default
        for d in ["home", "run", "imports/org/kde/plasma/plasmoid", "pictures"] {
            try fm.createDirectory(at: scratch.appendingPathComponent(d), withIntermediateDirectories: true)
        }
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: scratch.appendingPathComponent("run").path)
        // The applet's files import org.kde.plasma.plasmoid (Plasma's applet host, not part of
        // plasma-nm) for one setting of its details view: a stand-in with that setting.
        try "module org.kde.plasma.plasmoid\nsingleton Plasmoid 2.0 Plasmoid.qml\n"
            .write(to: scratch.appendingPathComponent("imports/org/kde/plasma/plasmoid/qmldir"), atomically: false, encoding: .utf8)
        try "pragma Singleton\nimport QtQuick\nQtObject { property var configuration: ({currentDetailsTab: \"speed\"}) }\n"
            .write(to: scratch.appendingPathComponent("imports/org/kde/plasma/plasmoid/Plasmoid.qml"), atomically: false, encoding: .utf8)
        try Self.listPage(pictures: scratch.appendingPathComponent("pictures").path)
            .write(to: scratch.appendingPathComponent("list.qml"), atomically: false, encoding: .utf8)
    }

    var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": scratch.appendingPathComponent("home").path, "XDG_RUNTIME_DIR": scratch.appendingPathComponent("run").path,
         "LANG": "C.UTF-8", "DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": system.address,
         "XDG_CURRENT_DESKTOP": "KDE", "KDE_FULL_SESSION": "true", "KDE_SESSION_VERSION": "6", "QT_QPA_PLATFORM": "offscreen",
         "QT_QUICK_BACKEND": "software", "QML_IMPORT_PATH": scratch.appendingPathComponent("imports").path]
    }

    /// The applet's list page as the applet shows it (its own QML files over plasma-nm's models),
    /// in a 400×330 window, with what the applet's main.qml and Plasma provide around it: the
    /// handler, the models, the network status, i18n. On every change of the list or of
    /// NetworkManager's connectivity it prints the rows and saves a picture.
    static func listPage(pictures: String) -> String {
        #"""
        import QtQuick
        import org.kde.kirigami as Kirigami
        import org.kde.plasma.networkmanagement as PlasmaNM
        import "file:///usr/share/plasma/plasmoids/org.kde.plasma.networkmanagement/contents/ui" as Applet

        Rectangle {
            id: window
            width: 400; height: 330
            color: Kirigami.Theme.backgroundColor
            function fill(s, args) { for (let i = 0; i < args.length; i++) s = s.replace("%" + (i + 1), args[i]); return s }
            function i18n(s, ...args) { return fill(s, args) }
            function i18nc(c, s, ...args) { return fill(s, args) }
            function i18np(one, many, n, ...args) { return fill(n === 1 ? one : many, [n].concat(args)) }
            function i18ncp(c, one, many, n, ...args) { return fill(n === 1 ? one : many, [n].concat(args)) }
            QtObject { id: mainWindow; property bool expanded: true; readonly property string kcm: "kcm_networkmanagement" }
            QtObject {
                id: toolbar
                property bool displayplaneModeMessage: false; property bool displayWifiMessage: false; property bool displayWwanMessage: false
                property var searchTextField: ({text: ""})
            }
            PlasmaNM.Handler { id: handler }
            PlasmaNM.NetworkStatus { id: status; onConnectivityChanged: later.restart() }
            PlasmaNM.NetworkModel { id: connectionModel }
            PlasmaNM.AppletProxyModel { id: appletProxyModel; sourceModel: connectionModel }
            Applet.ConnectionListPage { id: page; anchors.fill: parent; model: appletProxyModel; nmStatus: status }

            // After the changes of one turn of the event loop, once.
            Timer { id: later; interval: 0; onTriggered: window.report() }
            Connections {
                target: appletProxyModel
                function onRowsInserted() { later.restart() }
                function onRowsRemoved() { later.restart() }
                function onDataChanged() { later.restart() }
                function onModelReset() { later.restart() }
                function onLayoutChanged() { later.restart() }
            }
            property int shots: 0
            function report() {
                const roles = PlasmaNM.NetworkModel
                const rows = []
                for (let i = 0; i < appletProxyModel.rowCount(); i++) {
                    const ix = appletProxyModel.index(i, 0)
                    rows.push({name: appletProxyModel.data(ix, roles.ItemUniqueNameRole), ssid: appletProxyModel.data(ix, roles.SsidRole) ?? "",
                               type: appletProxyModel.data(ix, roles.ItemTypeRole), state: appletProxyModel.data(ix, roles.ConnectionStateRole)})
                }
                const n = ++shots
                console.log("hh-list " + JSON.stringify({n: n, connectivity: status.connectivity, rows: rows}))
                picture.n = n
                picture.restart()
            }
            // The picture a moment after the last change: Kirigami's inline message fades in.
            Timer {
                id: picture
                property int n: 0
                interval: 1000
                onTriggered: {
                    const n = picture.n, path = "\#(pictures)/list-" + n + ".png"
                    window.grabToImage(r => { r.saveToFile(path); console.log("hh-picture " + n + " " + path) })
                }
            }
            Component.onCompleted: later.restart()
        }
        """#
    }

    struct Row: Decodable, Equatable, CustomStringConvertible {
        enum Kind: Int, Decodable { case unavailable = 0, connection = 1, accessPoint = 2 }
        var name: String
        var ssid: String
        var type: Kind
        var state: Int
        var description: String { "\(name) (\(ssid), \(type), state \(state))" }
    }

    struct Named: Equatable, CustomStringConvertible {
        var name: String, ssid: String, type: Row.Kind
        init(_ name: String, _ ssid: String, _ type: Row.Kind) { self.name = name; self.ssid = ssid; self.type = type }
        var description: String { "\(name) (\(ssid), \(type))" }
    }

    /// One report of the list: its rows in the applet's order, NetworkManager's connectivity as
    /// the applet has it, and the picture saved with it.
    struct Report: Decodable {
        var n: Int
        var connectivity: Int
        var rows: [Row]
        var named: [Named] { rows.map { Named($0.name, $0.ssid, $0.type) } }
    }

    final class List: Sendable {
        let process: ManagedProcess
        init(process: ManagedProcess) { self.process = process }
        var reports: [Report] {
            process.output.split(separator: "\n").compactMap { line in
                guard let r = line.range(of: "hh-list ") else { return nil }
                return try? JSONDecoder().decode(Report.self, from: Data(line[r.upperBound...].utf8))
            }
        }
        var latest: Report? { reports.last }

        /// The pictures saved, by the number of the report they show.
        var pictures: [Int: String] {
            var out: [Int: String] = [:]
            for line in process.output.split(separator: "\n") {
                guard let r = line.range(of: "hh-picture ") else { continue }
                let parts = line[r.upperBound...].split(separator: " ", maxSplits: 1)
                if parts.count == 2, let n = Int(parts[0]) { out[n] = String(parts[1]) }
            }
            return out
        }

        /// Copies the picture of the list as it is now (of the latest report, or a later one) to
        /// `destination`.
        func picture(to destination: URL) async throws {
            guard let n = latest?.n else { throw TestKitError.startFailed("the list reported nothing:\n\(process.output.suffix(3000))") }
            try await process.changes.until("the list saves its picture", timeout: .seconds(60), context: { self.process.output.suffix(3000).description }) {
                self.pictures.keys.contains { $0 >= n }
            }
            guard let path = pictures.filter({ $0.key >= n }).min(by: { $0.key < $1.key })?.value else { return }
            let fm = FileManager.default
            try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? fm.removeItem(at: destination)
            try fm.copyItem(atPath: path, toPath: destination.path)
        }
    }

    func startList() throws -> List {
        let p = try root.launch(["/usr/lib/qt6/bin/qml", scratch.appendingPathComponent("list.qml").path], onlyEnvironment: environment, name: "qml(plasma-nm list)")
        processes.keep(p)
        return List(process: p)
    }

    /// Waits until the list's latest report satisfies `condition`.
    func waitForList(_ list: List, _ what: String, _ condition: @escaping (Report) -> Bool) async throws {
        try await list.process.changes.until("Plasma's list: \(what)", timeout: .seconds(90),
                                             context: { "last report: \(list.latest.map { "\($0.named), connectivity \($0.connectivity)" } ?? "none")\n\(list.process.output.suffix(3000))" }) {
            list.latest.map(condition) ?? false
        }
    }

    /// kded6 with plasma-nm's module loaded: it owns org.kde.plasmanetworkmanagement.
    func startKDED() async throws {
        let owners = try await client.watchNameOwner("org.kde.plasmanetworkmanagement")
        let kded = try root.launch(["/usr/bin/kded6"], onlyEnvironment: environment, name: "kded6")
        processes.keep(kded)
        let kdedOwner = try await client.watchNameOwner("org.kde.kded6")
        guard await firstElement(of: kdedOwner, within: .seconds(60), where: { $0 != nil }) != nil else {
            throw TestKitError.startFailed("kded6 did not take org.kde.kded6 within 60 s:\n\(kded.output.suffix(4000))")
        }
        // Loaded at start (autoload, phase 1) or on this call.
        _ = try await client.call("org.kde.kded6", "/kded", "org.kde.kded6", "loadModule", [.string("networkmanagement")])
        guard await firstElement(of: owners, within: .seconds(60), where: { $0 != nil }) != nil else {
            throw TestKitError.startFailed("plasma-nm's kded module did not take org.kde.plasmanetworkmanagement:\n\(kded.output.suffix(4000))")
        }
        // Every call the server gets wakes the waits (python-dbusmock signals MethodCalled).
        let calls = try await client.signals(matching: MatchRule(path: ObjectPath(Self.notificationsPath), interface: "org.freedesktop.DBus.Mock",
                                                                 member: "MethodCalled"))
        let changes = self.changes
        Task { for await _ in calls { changes.bump() } }
    }

    func startAgent() throws -> ManagedProcess {
        let agent = try ManagedProcess.launch(TestKitPaths.product("hotspot-helper-agent").path, ["--browser", "/bin/true", "--sign-in-dialog", "none"],
                                              environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address, "DBUS_SESSION_BUS_ADDRESS": bus.address])
        processes.keep(agent)
        return agent
    }

    struct Notification: CustomStringConvertible {
        var id: UInt32
        var appName: String
        var title: String
        var body: String
        var actions: [String]
        var closed: Bool
        var description: String { "#\(id) [\(appName)] \(title) — \(body)\(closed ? " (closed)" : "") \(actions)" }
    }

    /// Every notification posted on the session bus, in order, with whether it was closed by
    /// its poster (the server's ids are 1, 2, … for notifications that replace none).
    func notifications() async throws -> [Notification] {
        var out: [Notification] = []
        var closed: Set<UInt32> = []
        for call in try await notificationServer.calls(client, path: Self.notificationsPath) {
            if call.method == "CloseNotification", let id = call.args.first.flatMap({ $0.uint32 ?? $0.integer.map { UInt32(truncatingIfNeeded: $0) } }) {
                closed.insert(id)
            }
            guard call.method == "Notify", call.args.count == 8 else { continue }
            let replaces = call.args[1].uint32 ?? 0
            let id = replaces != 0 ? replaces : UInt32(out.filter { $0.id != 0 }.count + 1)
            let n = Notification(id: id, appName: call.args[0].string ?? "", title: call.args[3].string ?? "", body: call.args[4].string ?? "",
                                 actions: call.args[5].strings ?? [], closed: false)
            if replaces != 0, let i = out.firstIndex(where: { $0.id == replaces }) { out[i] = n } else { out.append(n) }
        }
        return out.map { var n = $0; n.closed = closed.contains(n.id); return n }
    }

    /// plasma-nm's "You need to log into this network" notifications.
    func portalNotifications() async throws -> [Notification] {
        try await notifications().filter { $0.body == "You need to log into this network" }
    }

    func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        try await changes.until(what, timeout: .seconds(60), context: { "" }, condition)
    }
}
