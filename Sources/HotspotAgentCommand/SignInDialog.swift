// SPDX-License-Identifier: Apache-2.0
import DBus
import Glibc
import HotspotProtocol

/// The sign-in form dialog (packaging/hotspot-sign-in-dialog, installed beside the agent's binary
/// in LIBEXECDIR/hotspot-helper): a portal's form in a small GTK 4 window, for desktops where the
/// Shell extension does not show it (docs/DESKTOP.md, "The sign-in dialog on other desktops").
///
/// The agent only starts it, with the interface's object path: the dialog reads the form and
/// calls SignIn over the system bus itself, so what the user types never passes through the
/// agent, its arguments or its environment. One dialog process serves the session (GApplication's
/// name on the session bus): a second start for the same interface brings its dialog forward.
struct SignInDialog: Sendable {
    static let programName = "hotspot-sign-in-dialog"
    /// What an interface's SignInForm asks for: the dialog (`form`) or a browser (anything else).
    struct Form: Sendable, Equatable {
        var kind: String
        var portalURL: String
    }

    /// The program to run.
    let program: String
    /// The browser command the dialog uses for "Open in browser" (the agent's --browser).
    let browser: String

    /// The dialog installed beside this program's binary, if it is there and executable.
    static func installed() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let exe = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = exe.lastIndex(of: "/") else { return nil }
        let candidate = String(exe[..<slash]) + "/" + programName
        return access(candidate, X_OK) == 0 ? candidate : nil
    }

    /// The interface's SignInForm (kind, portal-url); nil when it has none, or the daemon has no
    /// such property (a daemon before 0.4). Read when the user clicks, not kept: the form may
    /// have changed since the notification.
    static func form(at path: ObjectPath, on system: Connection) async -> Form? {
        guard let reply = try? await system.call(destination: HotspotContract.busName, path: path, interface: "org.freedesktop.DBus.Properties",
                                                 member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue),
                                                                       .string(HotspotContract.InterfaceProperty.signInForm.key)],
                                                 timeout: .seconds(10), autoStart: false),
              let form = reply.first?.unwrapped.varDict, let kind = form["kind"]?.unwrapped.string
        else { return nil }
        return Form(kind: kind, portalURL: form["portal-url"]?.unwrapped.string ?? "")
    }

    /// Starts the dialog for `interface`; false when it could not be started. The agent does not
    /// wait for it (SIGCHLD is ignored, see AgentCommand): it outlives nothing but its window.
    func open(interface: ObjectPath, portalURL: String) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = [program, "--interface", interface.rawValue, "--browser", browser, "--portal-url", portalURL]
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, program, &actions, nil, &cArgs, environ)
        guard rc == 0 else {
            AgentLog.write("could not start \(program): \(String(cString: strerror(rc)))")
            return false
        }
        AgentLog.write("opened the sign-in form for \(interface) in \(Self.programName) (pid \(pid))")
        return true
    }
}
