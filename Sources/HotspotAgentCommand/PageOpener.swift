// SPDX-License-Identifier: Apache-2.0
import DBus
import Glibc
import HotspotCore

/// Opens a sign-in page: GNOME's portal helper (`org.gnome.Shell.PortalHelper.Authenticate`) when
/// it is on the session bus or can be activated there, the browser command otherwise.
struct PageOpener: Sendable {
    static let portalHelper: BusName = "org.gnome.Shell.PortalHelper"
    static let portalHelperPath: ObjectPath = "/org/gnome/Shell/PortalHelper"

    let session: Connection
    let system: Connection
    let browser: String
    let usePortalHelper: Bool

    /// Opens `url` unless ``SignInURL`` refuses it (only http and https with a host): the daemon
    /// publishes no other, and this checks again, since the browser command runs whatever the
    /// desktop registers for a scheme (`smb:`, `file:`, `ssh:`).
    func open(_ url: String, device: String?) async {
        if let refusal = SignInURL.check(url) {
            AgentLog.write("not opening the sign-in address '\(UntrustedText.forLog(url))': \(refusal)")
            return
        }
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

    /// Runs `browser url` through /usr/bin/env (so a bare name is looked up on PATH), with
    /// stdin on /dev/null; the agent does not wait for it (SIGCHLD is ignored, see AgentCommand).
    private func runBrowser(_ url: String) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ["/usr/bin/env", browser, url]
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/usr/bin/env", &actions, nil, &cArgs, environ)
        if rc == 0 {
            AgentLog.write("opened \(url) with \(browser)")
        } else {
            AgentLog.write("could not run \(browser) \(url): \(String(cString: strerror(rc)))")
        }
    }
}
