// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import HotspotDaemon
import HotspotProtocol
import Logging
import ProgramSupport

/// `hotspot-helperd`: the system service.
public struct HotspotHelperDaemon: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "hotspot-helperd",
        abstract: "The Hotspot Helper service: labels known Wi-Fi networks, supplies their passwords and signs in to captive portals.",
        discussion: """
        Runs on the system bus as org.freedesktop.NetworkManager.HotspotHelper (DBUS_SYSTEM_BUS_ADDRESS \
        overrides the bus address), follows NetworkManager, and calls the registered helpers. Normally \
        started by systemd (hotspot-helperd.service); stop it with SIGTERM.

        Configuration (GLib keyfile, default /etc/hotspot-helper/hotspot-helperd.conf when present):
          [daemon]
          state-dir=/var/lib/hotspot-helper   # the network cache and autoconnect ledger
          command-timeout=45                  # seconds a helper has to answer (decimals allowed)
          maintain-interval=300               # seconds between maintain commands
          filter-interval=5                   # at most one filter-scan-list per interface this often
          authenticate-retries=4              # repeats of an authenticate answered temporary-failure
          authenticate-retry-delay=2          # seconds before the first repeat (doubling)
          authenticate-retry-window=60        # no repeat later than this after the first failure
          profiles-dir=/etc/hotspot-helper/profiles.d   # profile files (*.conf); 0600 when they hold secrets
          builtin-helpers=profiles;portal     # the built-in helpers to run (empty: none)

          [connectivity]
          enabled=true                        # probe each Wi-Fi link and run the built-in helpers
          probes=URL EXPECTATION;…            # override the probe set; EXPECTATION: status=204,
                                              #   contains=TEXT, equals=TEXT, prefix=TEXT, header=NAME:VALUE
          dns-servers=HOST[:PORT];…           # used when NetworkManager reports none for the link
          capport-url=https://…               # RFC 8908 API for networks whose profile names none
          ca-file=/path/ca.pem                # CA bundle instead of the system store
          bind-interface=true                 # bind probes to the interface (false: loopback tests, demo)
          interval=300                        # seconds between checks while online (backoff cap)
          probe-timeout=5                     # seconds per probe
          join-patience=20                    # seconds a join's refused or timed-out checks are repeated

        An unknown group or key, or a value that cannot be used, stops the daemon before it starts, \
        with every problem of the file named as FILE:LINE; --check-config lists them without starting.

        Exit status: 0 stopped by SIGTERM or SIGINT, or --check-config found no error; 1 error \
        (the bus, NetworkManager's objects); 2 usage error; 78 the configuration has errors (EX_CONFIG).
        """,
        version: ProductVersion.current)

    static let defaultConfig = "/etc/hotspot-helper/hotspot-helperd.conf"

    @Option(name: .long, help: "Read this configuration file.")
    var config: String?

    @Option(name: .long, help: "Keep state here (overrides state-dir from the configuration).")
    var stateDir: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Flag(name: .long, help: "Check the configuration (and that the profiles directory exists), print every problem as FILE:LINE, and exit: 0 without errors, 78 with.")
    var checkConfig = false

    /// The status for a configuration the daemon cannot use (sysexits.h's EX_CONFIG), as systemd
    /// and other daemons use it; hotspot-helperd(8) documents it.
    public static let configurationError: Int32 = 78
    /// A usage error, as hotspotctl and hotspot-helper-agent have it (ArgumentParser says 64).
    static let usageError: Int32 = 2

    /// Parses `arguments` (without the program name) and runs the daemon until SIGTERM or SIGINT.
    public static func main(arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        } catch {
            if exitCode(for: error) == .validationFailure {
                StandardError.writeLine("hotspot-helperd: \(fullMessage(for: error))")
                Glibc.exit(usageError)
            }
            exit(withError: error)
        }
    }

    /// Prints `lines`, each with its syslog priority when stderr is the journal.
    static func report(_ problems: [ConfigurationProblem]) {
        let journal = JournalStream.isStandardError()
        for p in problems { StandardError.writeLine((journal ? (p.severity == .error ? "<3>" : "<4>") : "") + p.description) }
    }

    public func run() async throws {
        var configuration = DaemonConfiguration()
        let path = config ?? (access(Self.defaultConfig, F_OK) == 0 ? Self.defaultConfig : nil)
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level '\(logLevel)' (trace, debug, info, notice, warning, error, critical)")
        }
        if let path {
            // Every problem of the file, in line order, then a refusal: a typo must not silently
            // undo what the administrator set (a misspelt [connectivity] enabled=false probing anyway).
            let (checked, problems) = DaemonConfiguration.check(path: path)
            let errors = problems.filter { $0.severity == .error }
            if checkConfig || !errors.isEmpty { Self.report(problems) }
            if !errors.isEmpty {
                let count = "hotspot-helperd: \(path): \(errors.count) \(errors.count == 1 ? "error" : "errors")"
                StandardError.writeLine(checkConfig ? count : (JournalStream.isStandardError() ? "<3>" : "") + count + "; "
                                        + "not starting. Fix \(errors.count == 1 ? "it" : "them") and run: hotspot-helperd --check-config\(config == nil ? "" : " --config \(path)")")
                throw ExitCode(Self.configurationError)
            }
            configuration = checked
        }
        if let stateDir { configuration.stateDirectory = stateDir }
        if checkConfig {
            if configuration.builtinHelpers.contains("profiles") {
                let profiles = configuration.checkProfiles()
                for problem in profiles.problems { StandardError.writeLine(problem) }
                for warning in profiles.warnings { StandardError.writeLine("warning: \(warning)") }
            }
            print("\(path ?? "(no configuration file: the defaults)"): \(path == nil ? "" : "no errors; ")profiles from \(configuration.profilesDirectory), state in \(configuration.stateDirectory)")
            return
        }
        // Under systemd, stderr is the journal: each line then starts with its syslog priority
        // (`<3>`…), so `journalctl -p err -u hotspot-helperd` finds the errors.
        let journal = JournalStream.isStandardError()
        LoggingSystem.bootstrap { label in
            if journal { return SyslogPriorityLogHandler(label: label, level: level) }
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let log = Logger(label: "hotspot-helperd")
        do {
            try await ProgramLifecycle.run(cancelOnSignal: false, logger: log) { [configuration] lifecycle in
                try await Daemon.run(configuration: configuration, log: log, configurationPath: path, until: { await lifecycle.stopRequested() })
            }
        } catch let error as DaemonError {
            log.critical("\(error.message)")
            throw ExitCode(1)
        }
    }
}

