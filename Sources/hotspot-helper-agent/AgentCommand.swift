import ArgumentParser
import DBus
import Foundation
import HotspotClient

/// `hotspot-helper-agent`: the per-user session agent. Started by a systemd user unit or the XDG
/// autostart entry; one instance per session (it owns a name on the session bus).
@main
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotspot-helper-agent",
        abstract: "Notify the user when a hotspot helper needs them, and open the sign-in page.",
        discussion: """
        Listens to hotspot-helperd on the system bus (DBUS_SYSTEM_BUS_ADDRESS overrides the address) \
        and posts desktop notifications on the session bus (DBUS_SESSION_BUS_ADDRESS). "Sign in" \
        calls PresentUI on the daemon and opens the sign-in page with GNOME's portal helper when it \
        is available, the browser otherwise.

        Exit status: 0 stopped by a signal, or another agent already runs in this session; \
        1 error; 2 usage error; 3 the system bus is unreachable.
        """,
        version: "0.2.0")

    @Option(name: .long, help: "The command that opens a URL when GNOME's portal helper is not available.")
    var browser = "xdg-open"

    @Option(name: .long, help: "The page to open when the daemon knows no sign-in URL.")
    var fallbackURL = "http://nmcheck.gnome.org/"

    @Flag(name: .long, help: "Never use GNOME's portal helper; always open the browser.")
    var noPortalHelper = false

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        } catch let failure as ClientFailure {
            AgentLog.write(failure.description)
            Foundation.exit(failure.exitCode)
        } catch {
            if exitCode(for: error) == .validationFailure {
                AgentLog.write(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage)
            }
            exit(withError: error)
        }
    }

    func run() async throws {
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
        let stop = [SIGINT, SIGTERM].map { sig -> any DispatchSourceSignal in
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { Foundation.exit(ExitStatus.success) }
            s.resume()
            return s
        }
        let opener = PageOpener(session: session, system: system.connection, browser: browser, usePortalHelper: !noPortalHelper)
        let agent = SignInAgent(daemon: system, notifications: Notifications(session: session), opener: opener, fallbackURL: fallbackURL)
        let reason = try await agent.run()
        _ = stop
        throw ClientFailure.failed(reason)
    }
}

/// The agent's messages go to stderr (the journal under systemd).
enum AgentLog {
    static func write(_ message: String) {
        FileHandle.standardError.write(Data("hotspot-helper-agent: \(message)\n".utf8))
    }
}
