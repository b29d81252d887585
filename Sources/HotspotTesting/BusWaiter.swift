// SPDX-License-Identifier: Apache-2.0
import DBus
import Synchronization

/// Waits for what a test expects without sleeping: the condition is checked at once and again
/// each time the bus carries a signal matching the waiter's rules (the daemon's
/// PropertiesChanged and CommandCompleted, python-dbusmock's MethodCalled…) or a source it
/// follows changes (``follow(_:)``), until the timeout. Subscribed before the first check, so a
/// change between a check and the wait is not missed.
public final class BusWaiter: Sendable {
    /// What the waits sleep on; bumped by each matching signal and by what the waiter follows.
    public let changes = Changes()
    private let listener = Mutex<Task<Void, Never>?>(nil)

    /// Wakes on every signal matching any of `rules` on `connection`.
    public init(_ connection: Connection, wakingOn rules: [MatchRule]) async throws {
        let signals = try await connection.signals(matchingAny: rules)
        let task = Task { [changes] in
            for await _ in signals { changes.bump() }
        }
        listener.withLock { $0 = task }
    }

    deinit { listener.withLock { $0?.cancel() } }

    /// Wakes every wait, as a signal would (for changes the bus does not announce).
    public func bump() { changes.bump() }

    /// Wakes the waits on every change of `source` too (a process's output, the simulator's
    /// requests), for conditions that read what the bus does not announce.
    public func follow(_ source: Changes) { source.forward(to: changes) }

    /// Returns when `condition` holds; throws ``TestKitError/timeout(_:)`` naming `what`, with
    /// `context()`, after `timeout`.
    public func until(_ what: String, timeout: Duration = SafetyNet.wait, context: () -> String = { "" },
                      _ condition: () async throws -> Bool) async throws {
        try await changes.until(what, timeout: timeout, context: context, condition)
    }

    /// Whether `condition` held throughout `window` (``Changes/holdsThroughout(_:_:)``).
    public func holdsThroughout(_ window: Duration, _ condition: () async throws -> Bool) async rethrows -> Bool {
        try await changes.holdsThroughout(window, condition)
    }
}

extension BusWaiter {
    /// A waiter that wakes on the daemon's property changes and manager signals (CommandCompleted,
    /// UIRequired), and on (mock) NetworkManager's property changes, profile updates and
    /// `MethodCalled`, which announces each call the mock records.
    public static func daemonAndNetworkManager(_ connection: Connection) async throws -> BusWaiter {
        try await BusWaiter(connection, wakingOn: [
            MatchRule(sender: "org.freedesktop.NetworkManager.HotspotHelper", interface: "org.freedesktop.DBus.Properties"),
            MatchRule(sender: "org.freedesktop.NetworkManager.HotspotHelper", interface: "org.freedesktop.NetworkManager.HotspotHelper"),
            MatchRule(sender: "org.freedesktop.NetworkManager", interface: "org.freedesktop.DBus.Mock", member: "MethodCalled"),
            MatchRule(sender: "org.freedesktop.NetworkManager", interface: "org.freedesktop.DBus.Properties"),
            MatchRule(sender: "org.freedesktop.NetworkManager", interface: "org.freedesktop.NetworkManager.Settings.Connection"),
        ])
    }
}
