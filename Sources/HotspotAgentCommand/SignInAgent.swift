// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotClient
import HotspotProtocol

/// Keeps one notification per interface that needs the user: posted on UIRequired (or at start
/// for an interface already presenting UI), withdrawn when the interface leaves presenting-ui or
/// the daemon stops. "Sign in" opens the form dialog when the interface's SignInForm is a form
/// (``SignInDialog``); otherwise it sends PresentUI and opens the sign-in page. Where the desktop does
/// not show the daemon's sign-in state itself (every desktop but GNOME Shell with the project's
/// extension), a passing notification says when a join's sign-in ended: "Signed in to …" or
/// "Could not sign in to …".
actor SignInAgent {
    /// The agent's name on the session bus: one agent per session.
    static let busName: BusName = "org.freedesktop.NetworkManager.HotspotHelper.Agent"
    static let actionKeys: Set<String> = ["sign-in", "default"]

    let daemon: DaemonClient
    let notifications: Notifications
    /// Says once, not at every join, that no notification server shows what the agent posts.
    let server: NotificationServerWatch
    let opener: PageOpener
    let fallbackURL: String
    /// Where the desktop prompts by itself, the agent does not (one prompt, never two).
    let desktop: DesktopPortalWindow?
    /// The form dialog for a sign-in the user can do in a form; nil: always the page.
    let dialog: SignInDialog?

    private var byInterface: [ObjectPath: UInt32] = [:]
    private var interfaceOf: [UInt32: ObjectPath] = [:]
    /// Each interface's last state, to tell a join's sign-in ending from a maintain cycle.
    private var lastState: [ObjectPath: String] = [:]
    /// The passing sign-in state notification per interface, replaced by the next one.
    private var stateNotification: [ObjectPath: UInt32] = [:]

    init(daemon: DaemonClient, notifications: Notifications, opener: PageOpener, fallbackURL: String, desktop: DesktopPortalWindow?,
         dialog: SignInDialog? = nil) {
        self.daemon = daemon
        self.notifications = notifications
        server = NotificationServerWatch(session: notifications.session)
        self.opener = opener
        self.fallbackURL = fallbackURL
        self.desktop = desktop
        self.dialog = dialog
    }

    /// Runs until the system bus connection ends or the task is cancelled; returns why.
    func run() async throws -> String {
        let events = try await daemon.events()
        let actions = try await notifications.signals("ActionInvoked")
        let closed = try await notifications.signals("NotificationClosed")
        AgentLog.write("listening to hotspot-helperd on the system bus")
        await server.start()
        await catchUp()
        let actionTask = Task {
            for await s in actions {
                guard s.body.count == 2, let id = s.body[0].uint32, let key = s.body[1].string else { continue }
                await self.actionInvoked(id, key)
            }
        }
        let closedTask = Task {
            for await s in closed {
                guard let id = s.body.first?.uint32 else { continue }
                self.notificationClosed(id)
            }
        }
        defer { actionTask.cancel(); closedTask.cancel() }
        for await event in events { await handle(event) }
        // Cancelled (SIGTERM, SIGINT): the connection is still up, so do not wait for its end.
        if Task.isCancelled { return "stopped" }
        return "the system bus connection ended: \(await daemon.connection.disconnection())"
    }

    /// Interfaces already waiting for the user when the agent (or the daemon) starts.
    private func catchUp() async {
        guard let interfaces = try? await daemon.interfaces() else { return }
        for i in interfaces where i.state == "presenting-ui" {
            await notify(i.path, helper: i.helper, network: i.network?.name ?? "")
        }
    }

    private func handle(_ event: DaemonEvent) async {
        switch event {
        case .uiRequired(let path, let helper, let network):
            await notify(path, helper: helper, network: network.name)
        case .propertiesChanged(let path, let interface, let changed):
            guard interface == HotspotContract.interfaceInterface.rawValue, let state = changed[HotspotContract.InterfaceProperty.state]?.string
            else { return }
            let previous = lastState.updateValue(state, forKey: path)
            guard state != "presenting-ui" else { return }
            await withdraw(path, because: "the interface is now \(state)")
            if let outcome = SignInOutcome(from: previous, to: state) { await tell(outcome, path) }
        case .daemonStopped:
            lastState = [:]
            for path in byInterface.keys { await withdraw(path, because: "hotspot-helperd stopped") }
        case .daemonStarted:
            await catchUp()
        case .commandCompleted:
            break
        }
    }

    private func notify(_ path: ObjectPath, helper: String, network: String) async {
        let existing = byInterface[path] ?? 0
        let name = network.isEmpty ? "this Wi-Fi network" : network
        if existing == 0, let why = await desktop?.willPrompt() {
            AgentLog.write("not notifying for \(name): \(why)")
            return
        }
        do {
            let id = try await notifications.notify(
                replacing: existing,
                summary: "Sign in to \(name)",
                body: "\(helper.isEmpty ? "A hotspot helper" : helper) needs you to sign in before \(name) can reach the internet.",
                actions: [("default", "Sign in"), ("sign-in", "Sign in")],
                // Resident: the server keeps it after "Sign in", so a user who cancels the dialog or
                // closes the browser can come back to it; the agent withdraws it when no sign-in waits.
                hints: ["urgency": .byte(1), "category": .string("network"), "desktop-entry": .string("hotspot-helper-agent"), "resident": .bool(true)])
            if existing != 0 && existing != id { interfaceOf[existing] = nil }
            byInterface[path] = id
            interfaceOf[id] = path
            AgentLog.write("notified: sign in to \(name) (notification \(id), \(path))")
        } catch {
            await server.failed("could not post a notification", error)
        }
    }

    /// A join's sign-in ended: say so where the desktop does not (a passing notification with no
    /// action; the next one for the interface replaces it).
    private func tell(_ outcome: SignInOutcome, _ path: ObjectPath) async {
        if let desktop, await desktop.showsSignInState() {
            AgentLog.write("not telling the sign-in state of \(path): GNOME Shell's Wi-Fi menu shows it")
            return
        }
        guard let snapshot = try? await daemon.interface(at: path) else { return }
        let network = snapshot.network?.name ?? ""
        let name = network.isEmpty ? "this Wi-Fi network" : network
        let (summary, body) = outcome.text(network: name, helper: snapshot.helper, reason: snapshot.reason)
        do {
            let id = try await notifications.notify(
                replacing: stateNotification[path] ?? 0, summary: summary, body: body, actions: [],
                hints: ["urgency": .byte(outcome == .signedIn ? 0 : 1), "transient": .bool(true), "category": .string("network"),
                        "desktop-entry": .string("hotspot-helper-agent")])
            stateNotification[path] = id
            AgentLog.write("told: \(summary) (notification \(id), \(path))")
        } catch {
            await server.failed("could not post a notification", error)
        }
    }

    private func withdraw(_ path: ObjectPath, because why: String) async {
        guard let id = byInterface.removeValue(forKey: path) else { return }
        interfaceOf[id] = nil
        do {
            try await notifications.close(id)
            AgentLog.write("withdrew notification \(id): \(why)")
        } catch {
            await server.failed("could not withdraw notification \(id)", error)
        }
    }

    private func notificationClosed(_ id: UInt32) {
        guard let path = interfaceOf.removeValue(forKey: id) else { return }
        byInterface[path] = nil
    }

    private func actionInvoked(_ id: UInt32, _ key: String) async {
        guard Self.actionKeys.contains(key), let path = interfaceOf[id] else { return }
        AgentLog.write("sign-in chosen for \(path)")
        // A form the user can fill in: the dialog signs in with it (SignIn), no page, no PresentUI.
        if let dialog, let form = await SignInDialog.form(at: path, on: daemon.connection), form.kind == "form",
           dialog.open(interface: path, portalURL: form.portalURL) {
            return
        }
        do {
            try await daemon.presentUI(at: path)
            AgentLog.write("PresentUI sent for \(path)")
        } catch {
            AgentLog.write("PresentUI failed: \(ClientFailure.classify(error).description)")
        }
        let snapshot = try? await daemon.interface(at: path)
        let url = (snapshot?.portalURL).flatMap { $0.isEmpty ? nil : $0 } ?? fallbackURL
        await opener.open(url, device: snapshot?.device)
    }
}

/// How a join's sign-in ended, as the agent tells it: from evaluating, authenticating or
/// presenting-ui to authenticated (signed in) or failure. A maintain cycle (maintaining →
/// authenticated) is not news.
enum SignInOutcome: Equatable {
    case signedIn, failed

    init?(from previous: String?, to state: String) {
        guard let previous, ["evaluating", "authenticating", "presenting-ui"].contains(previous) else { return nil }
        switch state {
        case "authenticated": self = .signedIn
        case "failure": self = .failed
        default: return nil
        }
    }

    /// Summary and body, in the words of the Shell extension's menu header (packaging/gnome-shell-extension/common/labels.js).
    func text(network: String, helper: String, reason: String) -> (String, String) {
        switch self {
        case .signedIn:
            return ("Signed in to \(network)", helper.isEmpty ? "Signed in" : "Signed in by \(helper)")
        case .failed:
            return ("Could not sign in to \(network)", reason.isEmpty ? "Sign-in failed" : "Sign-in failed: \(reason)")
        }
    }
}
