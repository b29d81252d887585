// SPDX-License-Identifier: Apache-2.0
import DBus
import Synchronization

/// Waits for what a test expects without sleeping: the condition is checked at once and again
/// each time the bus carries a signal matching the waiter's rules (the daemon's
/// PropertiesChanged and CommandCompleted, python-dbusmock's MethodCalled…), until the timeout.
/// Subscribed before the first check, so a change between a check and the wait is not missed.
public final class BusWaiter: Sendable {
    private struct Waiter {
        var after: UInt64
        var continuation: CheckedContinuation<Void, Never>
    }
    private struct State {
        var generation: UInt64 = 0
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
    }
    private let state = Mutex(State())
    private let listener = Mutex<Task<Void, Never>?>(nil)

    /// Wakes on every signal matching any of `rules` on `connection`.
    public init(_ connection: Connection, wakingOn rules: [MatchRule]) async throws {
        let signals = try await connection.signals(matchingAny: rules)
        let task = Task { [weak self] in
            for await _ in signals {
                guard let self else { return }
                self.bump()
            }
        }
        listener.withLock { $0 = task }
    }

    deinit { listener.withLock { $0?.cancel() } }

    /// Wakes every wait, as a signal would (for changes the bus does not announce).
    public func bump() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation += 1
            let ready = s.waiters.filter { $0.value.after < s.generation }
            for id in ready.keys { s.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for c in ready { c.resume() }
    }

    /// Returns when `condition` holds; throws ``TestKitError/timeout(_:)`` naming `what`, with
    /// `context()`, after `timeout`.
    public func until(_ what: String, timeout: Duration = .seconds(20), context: () -> String = { "" },
                      _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = state.withLock { $0.generation }
            if try await condition() { return }
            guard ContinuousClock.now < deadline else { throw TestKitError.timeout("\(what): not within \(timeout)\n\(context())") }
            await change(after: seen, until: deadline)
        }
    }

    /// Returns after a signal newer than `seen`, or at `deadline`.
    private func change(after seen: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.expire(id)
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.generation > seen { return true }
                s.waiters[id] = Waiter(after: seen, continuation: c)
                return false
            }
            if now { c.resume() }
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume()
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
