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
    public static func run(configuration: DaemonConfiguration, log: Logger, busAddress: String? = nil, hardenProcess: Bool = true,
                           until stop: @escaping @Sendable () async -> String) async throws {
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
        let (reports, reporter) = AsyncStream.makeStream(of: ConnectivityReport.self)
        let monitor = await makeMonitor(configuration, profiles: profiles, client: client, actions: actions, reports: reporter, log: log)
        let announcements = AsyncQueue<Announcement>()
        let engine = Engine(configuration: configuration, log: log, network: actions, monitor: monitor,
                            provisioner: configuration.provisionProfiles ? provisioner : nil, announcements: { announcements.yield($0) })
        let publisher = BusPublisher(bus: bus, engine: engine, announcements: announcements, connector: HelperConnector(bus: bus),
                                     devicePath: { await client.devicePath(interface: $0.rawValue) })

        try await publisher.exportManager()
        do { try await bus.requestName(HotspotContract.busName) } catch let error as DBusError {
            throw DaemonError("cannot take the bus name: \(error.message)")
        }
        log.info("hotspot-helperd \(BusPublisher.version) running on \(bus.uniqueName) as \(HotspotContract.busName); state in \(configuration.stateDirectory)")

        var services: [any Service] = [publisher, NetworkManagerWatcher(bus: bus, client: client, engine: engine, provisioner: provisioner, log: log)]
        if let monitor {
            services.append(ConnectivityService(reports: reports, engine: engine))
            await registerBuiltIns(configuration, profiles: profiles, monitor: monitor, engine: engine, log: log)
        } else {
            reporter.finish()
        }
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
    static func makeMonitor(_ configuration: DaemonConfiguration, profiles: ProfileSet, client: NetworkManagerClient,
                            actions: NetworkManagerActions, reports: AsyncStream<ConnectivityReport>.Continuation,
                            log: Logger) async -> ConnectivityMonitor? {
        let settings = configuration.connectivity
        guard settings.enabled else {
            if !configuration.builtinHelpers.isEmpty {
                log.warning("connectivity checks are off ([connectivity] enabled=false), so the built-in helpers are not started")
            }
            return nil
        }
        let index = profiles.index
        let policy = ProbePolicy.decide(configured: settings.probes, networkManager: await client.connectivityCheckSettings())
        let routerAdvertisements: RouterAdvertisementWatch?
        do { routerAdvertisements = try RouterAdvertisementWatch() } catch {
            log.warning("RFC 8910: not listening for the captive-portal option of IPv6 Router Advertisements: \(error)")
            routerAdvertisements = nil
        }
        let monitor = ConnectivityMonitor(settings: settings, policy: policy, dnsLookup: { name in
            await actions.dnsServers(interface: name)
        }, capportURL: { ssid in
            if case .capport(let url)? = index.profile(for: ssid)?.signIn { return url }
            return nil
        }, dhcpLease: { name in
            await actions.dhcpv4Lease(interface: name)
        }, routerAdvertisements: routerAdvertisements, log: { log.info("\($0)") }, reports: reports)
        log.info("connectivity: \(policy.explanation)\(settings.bindInterface ? ", bound to each Wi-Fi interface" : ", on the default route (bind-interface=false)")\(settings.capportURL.map { ", RFC 8908 API \($0)" } ?? "")")
        return monitor
    }

    /// Registers the built-in helpers in the daemon: the same helper protocol as helpers on the
    /// bus, without the bus. Problems are logged; the daemon runs on.
    static func registerBuiltIns(_ configuration: DaemonConfiguration, profiles: ProfileSet, monitor: ConnectivityMonitor,
                                 engine: Engine, log: Logger) async {
        let environment = DaemonPortalEnvironment(monitor: monitor, settings: configuration.connectivity)
        let helperLog: @Sendable (String) -> Void = { log.info("\(UntrustedText.forLog($0, limit: 400))") }
        for name in configuration.builtinHelpers {
            let helper: InProcessHelper
            switch name {
            case "profiles":
                let profileHelper = ProfileHelper(profiles: profiles, environment: environment, log: helperLog)
                helper = InProcessHelper(options: ProfileHelper.options) { profileHelper.handle($0) }
            default:
                let portalHelper = PortalHelper(environment: environment, log: helperLog)
                helper = InProcessHelper(options: PortalHelper.options, highestConfidence: PortalHelper.highestConfidence) { portalHelper.handle($0) }
            }
            do { try await engine.register(inProcess: helper) } catch {
                log.error("built-in helper '\(name)' could not register: \(error)")
            }
        }
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

/// The connectivity monitor's side of the daemon, as a service: every check's report reaches the
/// engine, which publishes `Connectivity`, `PortalUrl`… (NetworkManager's own connectivity
/// setting reaches the monitor through the engine, from the NetworkManager watcher's events).
final class ConnectivityService: Service {
    let reports: AsyncStream<ConnectivityReport>
    let engine: Engine

    init(reports: AsyncStream<ConnectivityReport>, engine: Engine) {
        self.reports = reports
        self.engine = engine
    }

    func run() async throws {
        let (reports, engine) = (self.reports, self.engine)
        await cancelWhenGracefulShutdown {
            for await report in reports {
                await engine.connectivityChecked(report.interface, link: report.link, verdict: report.verdict, published: report.published)
            }
        }
    }
}

public struct DaemonError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
