import DBus
import Dispatch
import Foundation
import HotspotProtocol
import Logging

/// The running service: connects to the system bus, exports its objects, then takes its name,
/// follows NetworkManager, and shuts down cleanly on SIGTERM or SIGINT.
public enum Daemon {
    /// Runs until a termination signal arrives or the bus goes away. Throws when start-up fails
    /// (no bus, name already taken), with a message saying what to do.
    public static func run(configuration: DaemonConfiguration, log: Logger) async throws {
        for key in configuration.unknownKeys { log.warning("configuration: unknown key \(key) ignored") }
        let bus: Connection
        do { bus = try Connection.system() } catch {
            throw DaemonError("cannot connect to the system bus: \(error). Is dbus running? (DBUS_SYSTEM_BUS_ADDRESS overrides the address)")
        }
        let engine = Engine(bus: bus, configuration: configuration, log: log)
        let publisher = BusPublisher(bus: bus, engine: engine)
        let networkManager = NetworkManagerBridge(bus: bus, engine: engine, log: log)
        await engine.attach(publisher: publisher, network: networkManager)
        try await publisher.exportManager()
        do { try await bus.requestName(HotspotContract.busName) } catch let error as DBusError {
            throw DaemonError("cannot take the bus name: \(error.message)")
        }
        log.info("hotspot-helperd \(BusPublisher.version) running on \(bus.uniqueName) as \(HotspotContract.busName); state in \(configuration.stateDirectory)")
        let following = Task { await networkManager.follow() }

        let reason = await firstOf(signals: [SIGTERM, SIGINT], disconnection: bus)
        log.info("shutting down: \(reason)")
        following.cancel()
        if await bus.isConnected { try? await bus.releaseName(HotspotContract.busName) }
        await bus.close()
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
