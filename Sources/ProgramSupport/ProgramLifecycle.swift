// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// How hotspot-helperd, hotspotctl and the session agent run: as the one service of a
/// swift-service-lifecycle `ServiceGroup` that is shut down gracefully on SIGTERM and SIGINT.
///
/// The signals are watched for the whole run by a `UnixSignalsSequence` (the group's own signal
/// handling, fed to ``ServiceGroup/triggerGracefulShutdown()`` so the program also learns which
/// signal it was). The programs used to keep `DispatchSource`s for this in a local that the
/// optimiser was free to release at once: the handlers were gone in release builds and, with
/// `SIG_IGN` already set, the programs ignored Ctrl-C and SIGTERM.
public final class ProgramLifecycle: Sendable {
    private let received = Mutex<String?>(nil)

    /// The signal that asked the program to stop ("SIGTERM", "SIGINT"); nil until one arrives.
    public var stopSignal: String? { received.withLock { $0 } }

    /// Runs `body` until it returns or throws, or until SIGTERM or SIGINT.
    ///
    /// With `cancelOnSignal` (hotspotctl, the agent), a signal cancels the task running `body`
    /// (an `AsyncStream` loop ends, a sleep throws), and whatever `body` then returns or throws is
    /// the clean stop that was asked for: this returns normally. Without it (the daemon), `body`
    /// is not cancelled and waits for ``stopRequested()`` itself, to shut down in order. Errors
    /// `body` throws otherwise are rethrown as they are.
    public static func run(cancelOnSignal: Bool = true,
                           logger: Logger = Logger(label: "program", factory: { _ in SwiftLogNoOpLogHandler() }),
                           _ body: @escaping @Sendable (ProgramLifecycle) async throws -> Void) async throws {
        let lifecycle = ProgramLifecycle()
        let service = BodyService(lifecycle: lifecycle, cancelOnSignal: cancelOnSignal, body: body)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .cancelGroup)],
            logger: logger))
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let watcher = Task {
            for await signal in signals {
                lifecycle.received.withLock { if $0 == nil { $0 = "\(signal)".uppercased() } }
                await group.triggerGracefulShutdown()
            }
        }
        defer { watcher.cancel() }
        try await group.run()
    }

    /// Returns when SIGTERM or SIGINT asks the program to stop (inside ``run(cancelOnSignal:logger:_:)``),
    /// with the signal's name.
    public func stopRequested() async -> String {
        try? await gracefulShutdown()
        return stopSignal ?? "stopped"
    }

    /// Whether SIGTERM or SIGINT has asked the program to stop (inside ``run(cancelOnSignal:logger:_:)``).
    public static var isStopping: Bool { Task.isShuttingDownGracefully || Task.isCancelled }

    /// The body as a service.
    struct BodyService: Service {
        let lifecycle: ProgramLifecycle
        let cancelOnSignal: Bool
        let body: @Sendable (ProgramLifecycle) async throws -> Void

        func run() async throws {
            guard cancelOnSignal else { return try await body(lifecycle) }
            do {
                try await cancelWhenGracefulShutdown { [lifecycle, body] in try await body(lifecycle) }
            } catch {
                if ProgramLifecycle.isStopping { return }
                throw error
            }
        }
    }
}

extension ProgramLifecycle {
    /// Runs a parsed command inside ``run(cancelOnSignal:logger:_:)`` (cancelled on SIGTERM and
    /// SIGINT).
    public static func run(command: any AsyncParsableCommand) async throws {
        // Not Sendable as a protocol, but a parsed command is a value (its parsed options); it
        // moves to the service task here and this task never touches it again.
        nonisolated(unsafe) let moved = command
        try await run { _ in
            var c = moved
            try await c.run()
        }
    }
}
