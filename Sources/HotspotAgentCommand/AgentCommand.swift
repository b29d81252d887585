// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import DBus
import Glibc
import HotspotClient
import HotspotProtocol
import ProgramSupport

/// `hotspot-helper-agent`: the per-user session agent. Started by a systemd user unit or the XDG
/// autostart entry; one instance per session (it owns a name on the session bus).
public struct AgentCommand: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "hotspot-helper-agent",
        abstract: "Notify the user when a hotspot helper needs them, and open the sign-in page.",
        discussion: """
        Listens to hotspot-helperd on the system bus (DBUS_SYSTEM_BUS_ADDRESS overrides the address) \
        and posts desktop notifications on the session bus (DBUS_SESSION_BUS_ADDRESS). "Sign in" \
        opens the portal's form in a dialog when the user can sign in with it; otherwise it calls \
        PresentUI on the daemon and opens the sign-in page with GNOME's portal helper when it is \
        available, the browser otherwise.

        Exit status: 0 stopped by a signal, or another agent already runs in this session; \
        1 error; 2 usage error; 3 the system bus is unreachable.
        """,
        version: ProductVersion.current)

    @Option(name: .long, help: "The command that opens a URL when GNOME's portal helper is not available.")
    var browser = "xdg-open"

    @Option(name: .long, help: "The page to open when the daemon knows no sign-in URL.")
    var fallbackURL = "http://nmcheck.gnome.org/"

    @Flag(name: .long, help: "Never use GNOME's portal helper; always open the browser.")
    var noPortalHelper = false

    @Option(name: .long, help: ArgumentHelp("The dialog that shows a portal's sign-in form (default: hotspot-sign-in-dialog beside this program's binary); \"none\" always opens the page instead.", valueName: "path"))
    var signInDialog: String?

    /// Parses `arguments` (without the program name) and runs until SIGTERM or SIGINT (status 0)
    /// or the system bus goes away; failures map to the documented exit statuses.
    public static func main(arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if let asyncCommand = command as? any AsyncParsableCommand {
                try await ProgramLifecycle.run(command: asyncCommand)
            } else {
                try command.run()
            }
        } catch let failure as ClientFailure {
            AgentLog.write(failure.description)
            Glibc.exit(failure.exitCode)
        } catch {
            if exitCode(for: error) == .validationFailure {
                AgentLog.write(fullMessage(for: error))
                Glibc.exit(ExitStatus.usage)
            }
            exit(withError: error)
        }
    }

    public func run() async throws {
        let system = try DaemonClient.system()
        let session: Connection
        do { session = try Connection.session() } catch {
            throw ClientFailure.failed("cannot reach the session bus: \(error). The agent runs inside a desktop session.")
        }
        do { try await session.requestName(SignInAgent.busName) } catch let e as DBusError {
            if case .nameTaken = e {
                AgentLog.write("another hotspot-helper-agent already runs in this session")
                return
            }
            throw ClientFailure.classify(e)
        }
        // Browsers the agent starts are reaped by the kernel: the agent never waits for them.
        signal(SIGCHLD, SIG_IGN)
        let opener = PageOpener(session: session, system: system.connection, browser: browser, usePortalHelper: !noPortalHelper)
        let agent = SignInAgent(daemon: system, notifications: Notifications(session: session), opener: opener, fallbackURL: fallbackURL,
                                desktop: DesktopPortalWindow(session: session, system: system.connection),
                                dialog: (signInDialog == "none" ? nil : signInDialog ?? SignInDialog.installed())
                                    .map { SignInDialog(program: $0, browser: browser) })
        // SIGTERM or SIGINT cancels this task (ProgramLifecycle): the agent's loops end and
        // the stop is clean.
        let reason = try await agent.run()
        if ProgramLifecycle.isStopping { return }
        throw ClientFailure.failed(reason)
    }
}

/// The agent's messages go to stderr (the journal under systemd).
enum AgentLog {
    static func write(_ message: String) {
        StandardError.writeLine("hotspot-helper-agent: \(message)")
    }
}
