// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import HotspotDaemon
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
        """)

    static let defaultConfig = "/etc/hotspot-helper/hotspot-helperd.conf"

    @Option(name: .long, help: "Read this configuration file.")
    var config: String?

    @Option(name: .long, help: "Keep state here (overrides state-dir from the configuration).")
    var stateDir: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    /// Parses `arguments` (without the program name) and runs the daemon until SIGTERM or SIGINT.
    public static func main(arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        } catch {
            exit(withError: error)
        }
    }

    public func run() async throws {
        var configuration = DaemonConfiguration()
        let path = config ?? (access(Self.defaultConfig, F_OK) == 0 ? Self.defaultConfig : nil)
        if let path {
            do { configuration = try DaemonConfiguration.load(path: path) } catch {
                throw ValidationError(error.message)
            }
        }
        if let stateDir { configuration.stateDirectory = stateDir }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level '\(logLevel)' (trace, debug, info, notice, warning, error, critical)")
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

