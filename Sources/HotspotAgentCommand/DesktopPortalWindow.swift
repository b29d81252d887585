// SPDX-License-Identifier: Apache-2.0
import DBus

/// Whether the desktop opens a captive-portal window of its own for a network that needs the
/// user. GNOME Shell opens its "Hotspot Login" window when NetworkManager's connectivity check
/// says PORTAL for the main connection; the agent's own "Sign in" notification would then be a
/// second prompt for the same thing. So where GNOME Shell runs in this session and NetworkManager's
/// check is on, the agent posts nothing; on other desktops (or with the check off, where Shell
/// never opens its window) it notifies as before.
struct DesktopPortalWindow: Sendable {
    static let shell: BusName = "org.gnome.Shell"
    let session: Connection
    let system: Connection

    /// Why the desktop will prompt by itself, or nil when the agent must.
    func willPrompt() async -> String? {
        guard (try? await session.nameOwner(Self.shell)) != nil else { return nil }
        guard let reply = try? await system.call(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                                                 interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                                                 body: [.string("org.freedesktop.NetworkManager")], timeout: .seconds(5), autoStart: false),
              let properties = reply.first?.varDict,
              properties["ConnectivityCheckEnabled"]?.bool == true, !(properties["ConnectivityCheckUri"]?.string ?? "").isEmpty
        else { return nil }
        return "GNOME Shell opens its own sign-in window (NetworkManager's connectivity check is on)"
    }
}
