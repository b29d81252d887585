// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity
import DBus
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Logging
import NetworkManager
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The running service: connects to the system bus, exports its objects, then takes its name,
/// and runs its services (the bus server's announcements, the NetworkManager watcher, the
/// connectivity monitor's reports) in a ServiceGroup until it is asked to stop.
///
/// Wiring, in one place and in dependency order: every part gets what it uses in its
/// initializer, nothing is attached later, and nothing holds a reference back to what uses it
/// (the engine announces through a stream to the bus server; the monitor reports through a
/// stream to its service).
public enum Daemon {
    /// Runs until `stop` returns (the program passes its ServiceGroup's graceful shutdown on
    /// SIGTERM or SIGINT), a service fails, or the bus goes away. Throws when start-up fails (no
    /// bus, name already taken), with a message saying what to do.
    ///
    /// `busAddress` nil is the system bus (the program); tests that run the daemon in their own
    /// process pass a private bus's address and `hardenProcess: false` (the hardening is for the
    /// daemon's own process, not a test runner's).
    /// `configurationPath` is the file `configuration` came from: SIGHUP reads it again (with the
    /// profiles); without it SIGHUP reloads the profiles only.
    public static func run(configuration: DaemonConfiguration, log: Logger, busAddress: String? = nil, hardenProcess: Bool = true,
                           configurationPath: String? = nil,
                           until stop: @escaping @Sendable () async -> String) async throws {
        // SIGHUP reloads (systemctl reload), from the start: its default action would end the daemon.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for key in configuration.unknownKeys { log.warning("configuration: unknown key \(key) ignored") }
        for warning in configuration.warnings { log.warning("\(warning)") }
        if hardenProcess, let problem = ProcessHardening.apply() { log.warning("\(problem)") }
        let bus: Connection
        do { bus = try busAddress.map { try Connection(address: $0) } ?? Connection.system() } catch {
            throw DaemonError("cannot connect to the system bus: \(error). Is dbus running? (DBUS_SYSTEM_BUS_ADDRESS overrides the address)")
        }
        // The connection's own thread does libdbus's I/O and runs the connection actor's jobs only;
        // the engine and every other task run on the programs' global executor (docs/ARCHITECTURE.md,
        // "Where tasks run"). Blocking work has threads of its own (DetachedThread); the one exception
        // is the rare save that must precede its effects (Engine.handle), which holds a worker.
        let client = NetworkManagerClient(connection: bus)
        let actions = NetworkManagerActions(client: client)
        let provisioner = ProfileProvisioner(client: client, log: log, sightingSpan: configuration.provisionAfter)
        if !configuration.provisionProfiles {
            log.info("provisioning is off ([daemon] provision-profiles=false): helpers' passwords reach NetworkManager only through the secret agent; profiles an earlier run left are withdrawn")
        }
        let profiles = loadProfiles(configuration, log: log)
        let live = LiveProfiles(profiles)
        let (reports, reporter) = AsyncStream.makeStream(of: ConnectivityReport.self)
        let monitor = await makeMonitor(configuration, profiles: live, client: client, actions: actions, reports: reporter, log: log)
        let announcements = AsyncQueue<Announcement>()
        // The forms the built-in helpers leave for the user reach the engine through a stream, as
        // the monitor's reports do: nothing holds the engine but what it was given.
        let (formChanges, formChanged) = AsyncStream.makeStream(of: String.self)
        let signIns = monitor.map { monitor in
            SignInDesk(forms: SignInForms(changed: { formChanged.yield($0) }),
                       remembered: RememberedSignIns(stateDirectory: configuration.stateDirectory),
                       signIn: PortalSignIn(environment: DaemonPortalEnvironment(monitor: monitor, settings: configuration.connectivity)))
        }
        let engine = Engine(configuration: configuration, log: log, network: actions, monitor: monitor,
                            provisioner: configuration.provisionProfiles ? provisioner : nil, signIns: signIns,
                            announcements: { announcements.yield($0) })
        let publisher = BusPublisher(bus: bus, engine: engine, announcements: announcements, connector: HelperConnector(bus: bus),
                                     devicePath: { await client.devicePath(interface: $0.rawValue) })

        try await publisher.exportManager()
        do { try await bus.requestName(HotspotContract.busName) } catch let error as DBusError {
            throw DaemonError("cannot take the bus name: \(error.message)")
        }
        log.info("hotspot-helperd \(BusPublisher.version) running on \(bus.uniqueName) as \(HotspotContract.busName); state in \(configuration.stateDirectory)")

        var services: [any Service] = [publisher, NetworkManagerWatcher(bus: bus, client: client, engine: engine, provisioner: provisioner, log: log)]
        var profileHelper: ProfileHelper?
        if let monitor {
            // Every check's report reaches the engine, which publishes `Connectivity`, `PortalUrl`…
            services.append(StreamService(reports) { report in
                await engine.connectivityChecked(report.interface, link: report.link, verdict: report.verdict, published: report.published,
                                                 settled: report.settled)
            })
            // Each change of a sign-in form reaches the engine, which publishes `SignInForm`.
            services.append(StreamService(formChanges) { await engine.refreshSignInForm(InterfaceID($0)) })
            profileHelper = await registerBuiltIns(configuration, profiles: live, monitor: monitor, signIns: signIns, engine: engine, log: log)
        } else {
            reporter.finish()
            formChanged.finish()
        }
        // Each SIGHUP reloads; the daemon never ends on it.
        services.append(StreamService(hangups) { [profileHelper] _ in
            reload(configuration, path: configurationPath, live: live, helper: profileHelper, log: log)
            // The scan lists are filtered again, so the profiles' names and passwords follow.
            await engine.profilesReloaded()
        })
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup) },
            gracefulShutdownSignals: [], logger: log))
        // Unstructured because it must run beside group.run(), which it ends; cancelled on the way out.
        let stopping = Task {
            let reason = await firstOf(stop, disconnection: bus)
            log.info("shutting down: \(reason)")
            await group.triggerGracefulShutdown()
        }
        defer { stopping.cancel() }
        var failure: (any Error)?
        do { try await group.run() } catch { failure = error }
        // NetworkManager hears every action the engine asked for (a disconnect, an autoconnect
        // change) before the daemon lets go of the bus.
        await engine.finishNetworkEffects()
        await provisioner.withdrawAll(waitingAtMost: .seconds(5))
        if await bus.isConnected { try? await bus.releaseName(HotspotContract.busName) }
        await bus.close()
        // Last: a cache change handed to a save thread is on disk before the process exits, and
        // any later one (a timer or a command still finishing) is written at once.
        engine.stateWriter.close()
        if let failure {
            throw DaemonError("a service failed: \(failure)")
        }
    }

    static func loadProfiles(_ configuration: DaemonConfiguration, log: Logger) -> ProfileSet {
        let wantsProfiles = configuration.builtinHelpers.contains("profiles")
        let profiles = wantsProfiles ? ProfileLoader.load(directory: configuration.profilesDirectory) : ProfileSet()
        for problem in profiles.problems { log.error("\(problem)") }
        for warning in profiles.warnings { log.warning("\(warning)") }
        if wantsProfiles {
            log.info("profiles: \(profiles.index.count) loaded from \(configuration.profilesDirectory)\(profiles.problems.isEmpty ? "" : ", \(profiles.problems.count) problems")")
        }
        return profiles
    }

    /// The connectivity monitor, or nil when connectivity checks are off. Its probe set and
    /// whether it probes periodically follow NetworkManager's own connectivity check
    /// (ProbePolicy): read here, then followed through the NetworkManager client's events.
    /// SIGHUP: reads the configuration file again and the profiles; the profiles take effect at
    /// once (the built-in helper's and the monitor's), what else changed is named with the restart
    /// it needs; every refused file is logged with its line and fix, and the others stay loaded.
    static func reload(_ running: DaemonConfiguration, path: String?, live: LiveProfiles, helper: ProfileHelper?, log: Logger) {
        var next = running
        if let path {
            do {
                next = try DaemonConfiguration.load(path: path)
                next.stateDirectory = running.stateDirectory  // as started (--state-dir may have overridden it)
                for warning in next.warnings { log.warning("reload: \(warning)") }
                for key in next.unknownKeys { log.warning("reload: configuration: unknown key \(key) ignored") }
            } catch {
                log.error("reload: \(error.message); the configuration in use stays (fix the file and reload again); reloading the profiles")
                next = running
            }
        }
        var compared = next
        compared.profilesDirectory = running.profilesDirectory
        compared.warnings = running.warnings
        compared.unknownKeys = running.unknownKeys
        if compared != running {
            log.warning("reload: \(path ?? "the configuration") changed settings that take effect only when the daemon restarts (systemctl restart hotspot-helperd); the profiles were reloaded")
        }
        if next.profilesDirectory != running.profilesDirectory {
            log.info("reload: profiles-dir is now \(next.profilesDirectory)")
        }
        guard running.builtinHelpers.contains("profiles") else {
            log.info("reload: the profiles helper is off ([daemon] builtin-helpers), so no profiles are read")
            return
        }
        let before = live.get().index.profiles
        let loaded = ProfileLoader.load(directory: next.profilesDirectory)
        for problem in loaded.problems { log.error("reload: \(problem)") }
        for warning in loaded.warnings { log.warning("reload: \(warning)") }
        let after = loaded.index.profiles
        let old = Dictionary(before.map { ($0.match, $0) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(after.map { ($0.match, $0) }, uniquingKeysWith: { a, _ in a })
        var added = 0, changed = 0, removed = 0
        for p in after {
            if let o = old[p.match] {
                if o != p { changed += 1; log.info("reload: profile [\(p.name)] (\(p.location)) for \(p.match) changed") }
            } else {
                added += 1
                log.info("reload: profile [\(p.name)] (\(p.location)) for \(p.match) added")
            }
        }
        for p in before where new[p.match] == nil {
            removed += 1
            log.info("reload: profile [\(p.name)] (\(p.location)) for \(p.match) removed")
        }
        live.set(loaded)
        helper?.replace(loaded)
        log.info("reload: \(after.count) profiles loaded from \(next.profilesDirectory): \(added) added, \(changed) changed, \(removed) removed, \(loaded.problems.count) refused")
    }

    static func makeMonitor(_ configuration: DaemonConfiguration, profiles: LiveProfiles, client: NetworkManagerClient,
                            actions: NetworkManagerActions, reports: AsyncStream<ConnectivityReport>.Continuation,
                            log: Logger) async -> ConnectivityMonitor? {
        let settings = configuration.connectivity
        guard settings.enabled else {
            if !configuration.builtinHelpers.isEmpty {
                log.warning("connectivity checks are off ([connectivity] enabled=false), so the built-in helpers are not started")
            }
            return nil
        }
        let policy = ConnectivityProbePolicy.decide(configured: settings.probes, networkManager: await client.connectivityCheckSettings().map(NetworkManagerCheck.init))
        let routerAdvertisements: RouterAdvertisementWatch?
        do { routerAdvertisements = try RouterAdvertisementWatch() } catch {
            log.warning("RFC 8910: not listening for the captive-portal option of IPv6 Router Advertisements: \(error)")
            routerAdvertisements = nil
        }
        let monitor = ConnectivityMonitor(settings: settings, policy: policy, dnsLookup: { name in
            await actions.dnsServers(interface: name)
        }, capportURL: { ssid in
            if case .capport(let url)? = profiles.get().index.profile(for: ssid)?.signIn { return url }
            return nil
        }, dhcpLease: { name in
            await actions.dhcpv4Lease(interface: name)
        }, routerAdvertisements: routerAdvertisements, log: { log.info("\($0)") }, reports: reports)
        log.info("connectivity: \(policy.explanation)\(settings.bindInterface ? ", bound to each Wi-Fi interface" : ", on the default route (bind-interface=false)")\(settings.capportURL.map { ", RFC 8908 API \($0)" } ?? "")")
        return monitor
    }

    /// Registers the built-in helpers in the daemon: the same helper protocol as helpers on the
    /// bus, without the bus. Problems are logged; the daemon runs on.
    /// Returns the profiles helper, if it runs (a reload gives it new profiles).
    @discardableResult
    static func registerBuiltIns(_ configuration: DaemonConfiguration, profiles live: LiveProfiles, monitor: ConnectivityMonitor,
                                 signIns: SignInDesk?, engine: Engine, log: Logger) async -> ProfileHelper? {
        let profiles = live.get()
        let withProfiles = configuration.builtinHelpers.contains("profiles")
        var profilesHelper: ProfileHelper?
        let environment = DaemonPortalEnvironment(monitor: monitor, settings: configuration.connectivity)
        let helperLog: @Sendable (String) -> Void = { log.info("\(UntrustedText.forLog($0, limit: 400))") }
        for name in configuration.builtinHelpers {
            let helper: InProcessHelper
            switch name {
            case "profiles":
                let profileHelper = ProfileHelper(profiles: profiles, environment: environment, forms: signIns?.forms, log: helperLog)
                profilesHelper = profileHelper
                helper = InProcessHelper(options: ProfileHelper.options) { profileHelper.handle($0) }
            default:
                let portalHelper = PortalHelper(environment: environment, forms: signIns?.forms, remembered: signIns?.remembered,
                                                profileSignsIn: { ssid in
                                                    withProfiles && (live.get().index.profile(for: ssid).map { $0.signIn != .none } ?? false)
                                                }, log: helperLog)
                helper = InProcessHelper(options: PortalHelper.options, highestConfidence: PortalHelper.highestConfidence) { portalHelper.handle($0) }
            }
            do { try await engine.register(inProcess: helper) } catch {
                log.error("built-in helper '\(name)' could not register: \(error)")
            }
        }
        return profilesHelper
    }

    /// Waits for `stop` or the bus connection ending, whichever comes first.
    static func firstOf(_ stop: @escaping @Sendable () async -> String, disconnection bus: Connection) async -> String {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        // Two waits raced; the loser is cancelled below (a bus disconnection wait ends with the bus).
        let tasks = [Task { continuation.yield(await stop()) },
                     Task { continuation.yield("the bus connection ended: \(await bus.disconnection())") }]
        var iterator = stream.makeAsyncIterator()
        let reason = await iterator.next() ?? "stopped"
        for t in tasks { t.cancel() }
        return reason
    }
}

public struct DaemonError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
