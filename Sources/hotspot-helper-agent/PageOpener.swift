import DBus
import Foundation

/// Opens a sign-in page: GNOME's portal helper (`org.gnome.Shell.PortalHelper.Authenticate`) when
/// it is on the session bus or can be activated there, the browser command otherwise.
struct PageOpener: Sendable {
    static let portalHelper: BusName = "org.gnome.Shell.PortalHelper"
    static let portalHelperPath: ObjectPath = "/org/gnome/Shell/PortalHelper"

    let session: Connection
    let system: Connection
    let browser: String
    let usePortalHelper: Bool

    func open(_ url: String, device: String?) async {
        if usePortalHelper, await portalHelperAvailable() {
            do {
                let connection = await activeConnection(of: device)
                _ = try await session.call(destination: Self.portalHelper, path: Self.portalHelperPath, interface: "org.gnome.Shell.PortalHelper",
                                           member: "Authenticate", body: [.objectPath(connection), .string(url), .uint32(0)])
                AgentLog.write("opened \(url) in GNOME's portal helper")
                return
            } catch {
                AgentLog.write("GNOME's portal helper failed (\(error)); using \(browser)")
            }
        }
        runBrowser(url)
    }

    private func portalHelperAvailable() async -> Bool {
        if (try? await session.nameOwner(Self.portalHelper)) != nil { return true }
        let activatable = try? await session.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                  member: "ListActivatableNames")
        return activatable?.first?.strings?.contains(Self.portalHelper.rawValue) ?? false
    }

    /// NetworkManager's active connection on the device, which the portal helper reports back
    /// about; "/" when unknown.
    private func activeConnection(of device: String?) async -> ObjectPath {
        guard let device, let path = try? ObjectPath(device),
              let reply = try? await system.call(destination: "org.freedesktop.NetworkManager", path: path, interface: "org.freedesktop.DBus.Properties",
                                                 member: "Get", body: [.string("org.freedesktop.NetworkManager.Device"), .string("ActiveConnection")]),
              let active = reply.first?.unwrapped.objectPath else { return .root }
        return active
    }

    private func runBrowser(_ url: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [browser, url]
        p.standardInput = FileHandle.nullDevice
        do {
            try p.run()
            AgentLog.write("opened \(url) with \(browser)")
        } catch {
            AgentLog.write("could not run \(browser) \(url): \(error)")
        }
    }
}
