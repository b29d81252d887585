// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import DBus
import Glibc
import HotspotClient
import HotspotCore
import HotspotProtocol
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
        3 hotspot-helperd is not running (or the system bus is unreachable); 4 not authorized by polkit; \
        5 NetworkManager is not running (status, networks, check, logoff, present-ui).
        """,
        version: ProductVersion.current,
        subcommands: [Status.self, Networks.self, Helpers.self, Monitor.self, Check.self, Logoff.self, PresentUI.self, Forget.self, SignInCommand.self, RememberedCommand.self],
        defaultSubcommand: Status.self)

    /// Parses `arguments` (the command line without the program name), runs, and maps failures
    /// to the documented exit statuses (ArgumentParser's own usage status 64 becomes 2, as for
    /// nmcli and most Unix tools). SIGINT and SIGTERM end a command cleanly (status 0).
    public static func main(arguments: [String]) async {
        do {
            let arguments = Self.movingGlobalFlags(arguments)
            if let unknown = Self.unknownSubcommand(arguments) {
                Output.error(unknown)
                Glibc.exit(ExitStatus.usage)
            }
            var command = try parseAsRoot(arguments)
            if Self.needsNetworkManager(command), await Self.networkManagerIsMissing() {
                Output.error("NetworkManager is not running, so there are no Wi-Fi interfaces or networks to show "
                             + "(hotspot-helperd follows NetworkManager's). Fix: sudo systemctl start NetworkManager")
                Glibc.exit(ExitStatus.networkManagerNotRunning)
            }
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

    /// "unknown command …" with the list, when the first word after the global flags names no
    /// subcommand (without this, the default subcommand's parser reported it as an argument of
    /// `status`, with status's usage).
    static func unknownSubcommand(_ arguments: [String]) -> String? {
        // The word after the global flags; an option there (--help, --generate-completion-script
        // bash) is ArgumentParser's to read, value and all.
        guard let word = arguments.drop(while: { globalFlags.contains($0) }).first, !word.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(word), word != "help" else { return nil }
        let closest = names.map { ($0, Suggestion.distance(word, $0)) }.min { $0.1 < $1.1 }
        let hint = closest.flatMap { $0.1 <= max(1, min(3, word.count / 3)) ? " (did you mean '\($0.0)'?)" : nil } ?? ""
        return "unknown command '\(UntrustedText.forLog(word, limit: 64))'\(hint). The commands are: \(names.joined(separator: ", ")); "
            + "hotspotctl help COMMAND describes one"
    }

    /// The subcommands that show or act on Wi-Fi interfaces, which only NetworkManager has.
    static func needsNetworkManager(_ command: any ParsableCommand) -> Bool {
        command is Status || command is Networks || command is Check || command is Logoff || command is PresentUI
    }

    /// Whether hotspot-helperd runs and NetworkManager does not. An unreachable bus, or no
    /// daemon, is not this: the command itself then says so (status 3), as the daemon is what
    /// hotspotctl asks first.
    static func networkManagerIsMissing() async -> Bool {
        guard let client = try? DaemonClient.system() else { return false }
        func hasOwner(_ name: String) async -> Bool? {
            let reply = try? await client.connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                          member: "NameHasOwner", body: [.string(name)], timeout: .seconds(10))
            if case .bool(let owned)? = reply?.first { return owned }
            return nil
        }
        guard await hasOwner("org.freedesktop.NetworkManager.HotspotHelper") == true else { return false }
        return await hasOwner("org.freedesktop.NetworkManager") == false
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

extension ExitStatus {
    /// NetworkManager is not on the system bus (hotspotctl(1), EXIT STATUS).
    static let networkManagerNotRunning: Int32 = 5
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
