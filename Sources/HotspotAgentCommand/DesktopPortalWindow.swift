// SPDX-License-Identifier: Apache-2.0
import DBus

/// What the desktop does by itself for a network behind a captive portal, so the agent adds only
/// what is missing (one prompt, never two; docs/DESKTOP.md).
///
/// - GNOME Shell prompts when NetworkManager's connectivity check says PORTAL for the main
///   connection: a "Hotspot Login" window in 43–46, a "Sign in to …" notification from 47. The
///   project's Shell extension shows the sign-in state in the Wi-Fi menu.
/// - KDE Plasma's network management (plasma-nm's kded module, which owns
///   `org.kde.plasmanetworkmanagement` on the session bus) posts a persistent "You need to log
///   into this network" notification whenever NetworkManager's global connectivity is PORTAL
///   (kded/connectivitymonitor.cpp); it shows no sign-in state of its own.
///
/// Both prompt only when NetworkManager's check is on. Where one of them prompts, the agent
/// posts no sign-in prompt; where no extension shows the state (every desktop but GNOME Shell),
/// the agent says "Signed in" and "Sign-in failed" in passing notifications.
struct DesktopPortalWindow: Sendable {
    static let shell: BusName = "org.gnome.Shell"
    static let plasmaNetworkManagement: BusName = "org.kde.plasmanetworkmanagement"
    let session: Connection
    let system: Connection

    /// Why the desktop will prompt by itself, or nil when the agent must.
    func willPrompt() async -> String? {
        let desktop: String
        if await isOnSessionBus(Self.shell) {
            desktop = "GNOME Shell prompts by itself"
        } else if await isOnSessionBus(Self.plasmaNetworkManagement) {
            desktop = "Plasma's network management posts its own \"You need to log into this network\""
        } else {
            return nil
        }
        guard let reply = try? await system.call(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                                                 interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                                                 body: [.string("org.freedesktop.NetworkManager")], timeout: .seconds(5), autoStart: false),
              let properties = reply.first?.varDict,
              properties["ConnectivityCheckEnabled"]?.bool == true, !(properties["ConnectivityCheckUri"]?.string ?? "").isEmpty
        else { return nil }
        return "\(desktop) (NetworkManager's connectivity check is on)"
    }

    /// Whether the desktop shows the daemon's sign-in state itself: GNOME Shell, with the
    /// project's extension (its package enables it for every user), says "Signed in by …" in
    /// the Wi-Fi menu. Elsewhere the agent says it.
    func showsSignInState() async -> Bool {
        await isOnSessionBus(Self.shell)
    }

    private func isOnSessionBus(_ name: BusName) async -> Bool {
        (try? await session.nameOwner(name)) != nil
    }
}
