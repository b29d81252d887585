// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import DBus
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Logging

/// The running service: connects to the system bus, exports its objects, then takes its name,
/// follows NetworkManager, and shuts down cleanly on SIGTERM or SIGINT.
public enum Daemon {
    /// Runs until `stop` returns (by default: SIGTERM or SIGINT; the program passes its
    /// ServiceGroup's graceful shutdown) or the bus goes away. Throws when start-up fails (no
    /// bus, name already taken), with a message saying what to do.
    public static func run(configuration: DaemonConfiguration, log: Logger,
                           until stop: (@Sendable () async -> String)? = nil) async throws {
        for key in configuration.unknownKeys { log.warning("configuration: unknown key \(key) ignored") }
        for warning in configuration.warnings { log.warning("\(warning)") }
        if let problem = ProcessHardening.apply() { log.warning("\(problem)") }
        let bus: Connection
        do { bus = try Connection.system() } catch {
            throw DaemonError("cannot connect to the system bus: \(error). Is dbus running? (DBUS_SYSTEM_BUS_ADDRESS overrides the address)")
        }
        let engine = Engine(bus: bus, configuration: configuration, log: log)
        let publisher = BusPublisher(bus: bus, engine: engine)
        let networkManager = NetworkManagerBridge(bus: bus, engine: engine, log: log)
        await engine.attach(publisher: publisher, network: networkManager)
        if configuration.provisionProfiles {
            await engine.attach(provisioner: networkManager.provisioner)
        } else {
            log.info("provisioning is off ([daemon] provision-profiles=false): helpers' passwords reach NetworkManager only through the secret agent; profiles an earlier run left are withdrawn")
        }
        try await publisher.exportManager()
        do { try await bus.requestName(HotspotContract.busName) } catch let error as DBusError {
            throw DaemonError("cannot take the bus name: \(error.message)")
        }
        log.info("hotspot-helperd \(BusPublisher.version) running on \(bus.uniqueName) as \(HotspotContract.busName); state in \(configuration.stateDirectory)")
        let following = Task { await networkManager.follow() }
        await startBuiltIns(configuration: configuration, engine: engine, networkManager: networkManager, log: log)

        let reason = if let stop { await firstOf(stop, disconnection: bus) } else { await firstOf(signals: [SIGTERM, SIGINT], disconnection: bus) }
        log.info("shutting down: \(reason)")
        following.cancel()
        await networkManager.provisioner.withdrawAll(waitingAtMost: .seconds(5))
        if await bus.isConnected { try? await bus.releaseName(HotspotContract.busName) }
        await bus.close()
    }

    /// Loads the profiles, starts the connectivity monitor and registers the built-in helpers in
    /// the daemon: the same helper protocol as helpers on the bus, without the bus. Problems are
    /// logged; the daemon runs on.
    static func startBuiltIns(configuration: DaemonConfiguration, engine: Engine, networkManager: NetworkManagerBridge,
                              log: Logger) async {
        let wantsProfiles = configuration.builtinHelpers.contains("profiles")
        let profiles = wantsProfiles ? ProfileLoader.load(directory: configuration.profilesDirectory) : ProfileSet()
        for problem in profiles.problems { log.error("\(problem)") }
        for warning in profiles.warnings { log.warning("\(warning)") }
        if wantsProfiles {
            log.info("profiles: \(profiles.index.count) loaded from \(configuration.profilesDirectory)\(profiles.problems.isEmpty ? "" : ", \(profiles.problems.count) problems")")
        }
        let settings = configuration.connectivity
        guard settings.enabled else {
            if !configuration.builtinHelpers.isEmpty {
                log.warning("connectivity checks are off ([connectivity] enabled=false), so the built-in helpers are not started")
            }
            return
        }
        let index = profiles.index
        // The probe set and whether to probe periodically follow NetworkManager's own
        // connectivity check (ProbePolicy), now and whenever it changes.
        let nmCheck = await networkManager.client.connectivityCheckSettings()
        let policy = ProbePolicy.decide(configured: settings.probes, networkManager: nmCheck)
        let monitor = ConnectivityMonitor(settings: settings, policy: policy, dnsLookup: { [weak networkManager] name in
            await networkManager?.dnsServers(interface: name) ?? []
        }, capportURL: { ssid in
            if case .capport(let url)? = index.profile(for: ssid)?.signIn { return url }
            return nil
        }, dhcpLease: { [weak networkManager] name in
            await networkManager?.dhcpv4Lease(interface: name)
        }, log: { log.info("\($0)") })
        await monitor.attach(engine: engine)
        await engine.attach(monitor: monitor)
        log.info("connectivity: \(policy.explanation)\(settings.bindInterface ? ", bound to each Wi-Fi interface" : ", on the default route (bind-interface=false)")\(settings.capportURL.map { ", RFC 8908 API \($0)" } ?? "")")
        if let changes = try? await networkManager.client.followConnectivityCheckSettings() {
            Task { [weak monitor, weak engine] in
                for await check in changes {
                    let next = ProbePolicy.decide(configured: settings.probes, networkManager: check)
                    guard let monitor, await monitor.policy != next else { continue }
                    log.info("connectivity: NetworkManager's check changed; \(next.explanation)")
                    await monitor.apply(next)
                    await engine?.publisher?.managerChanged(HotspotContract.Manager.probePolicy)
                }
            }
        }
        let environment = DaemonPortalEnvironment(monitor: monitor, settings: settings, probes: policy.probes)
        let helperLog: @Sendable (String) -> Void = { log.info("\(UntrustedText.forLog($0, limit: 400))") }
        for name in configuration.builtinHelpers {
            let helper: InProcessHelper
            switch name {
            case "profiles":
                let profileHelper = ProfileHelper(profiles: profiles, environment: environment, log: helperLog)
                helper = InProcessHelper(options: ProfileHelper.options) { profileHelper.handle($0) }
            default:
                let portalHelper = PortalHelper(environment: environment, log: helperLog)
                helper = InProcessHelper(options: PortalHelper.options) { portalHelper.handle($0) }
            }
            do { try await engine.register(inProcess: helper) } catch {
                log.error("built-in helper '\(name)' could not register: \(error)")
            }
        }
    }

    /// Waits for `stop` or the bus connection ending, whichever comes first.
    static func firstOf(_ stop: @escaping @Sendable () async -> String, disconnection bus: Connection) async -> String {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let tasks = [Task { continuation.yield(await stop()) },
                     Task { continuation.yield("the bus connection ended: \(await bus.disconnection())") }]
        var iterator = stream.makeAsyncIterator()
        let reason = await iterator.next() ?? "stopped"
        for t in tasks { t.cancel() }
        return reason
    }

    /// Waits for a termination signal or the bus connection ending, whichever comes first.
    static func firstOf(signals: [Int32], disconnection bus: Connection) async -> String {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let sources = signals.map { sig -> any DispatchSourceSignal in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { continuation.yield(sig == SIGTERM ? "SIGTERM" : "SIGINT") }
            source.resume()
            return source
        }
        let watcher = Task { continuation.yield("the bus connection ended: \(await bus.disconnection())") }
        var iterator = stream.makeAsyncIterator()
        let reason = await iterator.next() ?? "stopped"
        watcher.cancel()
        sources.forEach { $0.cancel() }
        return reason
    }
}

public struct DaemonError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
