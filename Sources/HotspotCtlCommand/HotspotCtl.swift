// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import HotspotClient
import ProgramSupport

/// `hotspotctl`: the command line of the Hotspot Helper, in the spirit of nmcli.
public struct HotspotCtl: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "hotspotctl",
        abstract: "Show and control the Hotspot Helper (hotspot-helperd).",
        discussion: """
        Talks to hotspot-helperd on the system bus (DBUS_SYSTEM_BUS_ADDRESS overrides the address). \
        Human tables by default; --json prints JSON for scripts.

        Exit status: 0 success; 1 error (the daemon refused, or something failed); 2 usage error; \
        3 hotspot-helperd is not running (or the system bus is unreachable); 4 not authorized by polkit.
        """,
        version: "0.2.0",
        subcommands: [Status.self, Networks.self, Helpers.self, Monitor.self, Check.self, Logoff.self, PresentUI.self, Forget.self, SignInCommand.self, RememberedCommand.self],
        defaultSubcommand: Status.self)

    /// Parses `arguments` (the command line without the program name), runs, and maps failures
    /// to the documented exit statuses (ArgumentParser's own usage status 64 becomes 2, as for
    /// nmcli and most Unix tools). SIGINT and SIGTERM end a command cleanly (status 0).
    public static func main(arguments: [String]) async {
        do {
            var command = try parseAsRoot(Self.movingGlobalFlags(arguments))
            if let asyncCommand = command as? any AsyncParsableCommand {
                try await ProgramLifecycle.run(command: asyncCommand)
            } else {
                try command.run()
            }
        } catch let failure as ClientFailure {
            Output.error(failure.description)
            Glibc.exit(failure.exitCode)
        } catch {
            if exitCode(for: error) == .validationFailure {
                Output.error(fullMessage(for: error))
                Glibc.exit(ExitStatus.usage)
            }
            exit(withError: error)
        }
    }

    /// Options every subcommand takes, which may also come before the subcommand's name
    /// (`hotspotctl --json status`, as `nmcli -t device`).
    static let globalFlags: Set<String> = ["--json"]

    /// Moves the global flags given before the subcommand's name to just after it, where the
    /// subcommand's own parser finds them; everything else keeps its order.
    static func movingGlobalFlags(_ arguments: [String]) -> [String] {
        let names = Set(configuration.subcommands.map { $0._commandName })
        guard let at = arguments.firstIndex(where: { names.contains($0) }) else { return arguments }
        let before = arguments[..<at]
        guard before.allSatisfy({ globalFlags.contains($0) }), !before.isEmpty else { return arguments }
        return [arguments[at]] + before + arguments[(at + 1)...]
    }
}

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON (one document; JSON Lines for monitor).")
    var json = false

    /// A client on the system bus, or the failure explaining why not.
    func client() throws(ClientFailure) -> DaemonClient { try DaemonClient.system() }
}

/// Runs a request, turning every error into a classified ``ClientFailure``.
func request<T>(_ body: () async throws -> T) async throws(ClientFailure) -> T {
    do { return try await body() } catch { throw ClientFailure.classify(error) }
}
