// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The owner of the engine's actions on NetworkManager (disconnect, autoconnect, the re-check
/// after a sign-in): each runs after the one before it on the same lane (an interface) has ended,
/// so NetworkManager sees them in the order the core asked for them, and shutdown waits for every
/// one queued (``drain()``). The engine hands an action over without waiting for it: a slow
/// NetworkManager never holds up the state machine, and what an action's failure changes comes
/// back to the engine as an event.
final class NetworkEffects: Sendable {
    private struct Lanes {
        /// The last action queued on each lane; the next waits for it.
        var tails: [String: Task<Void, Never>] = [:]
        var closed = false
    }
    private let lanes = Mutex(Lanes())

    /// Queues `action` on `lane`, behind the actions queued there before it. Refused (false)
    /// once the daemon is draining: nothing new starts after shutdown has begun to wait.
    @discardableResult
    func enqueue(lane: String, _ action: @escaping @Sendable () async -> Void) -> Bool {
        lanes.withLock { lanes in
            guard !lanes.closed else { return false }
            let previous = lanes.tails[lane]
            // Unstructured, but never unowned: the lane holds it until the next action (which
            // awaits it) replaces it, and drain() awaits every lane's last.
            lanes.tails[lane] = Task {
                await previous?.value
                await action()
            }
            return true
        }
    }

    /// Waits until every action queued has ended. With `closing`, actions queued from now on are
    /// refused (shutdown); without, it is a barrier (tests).
    func drain(closing: Bool = true) async {
        while true {
            let tails = lanes.withLock { lanes in
                if closing { lanes.closed = true }
                return Array(lanes.tails.values)
            }
            for t in tails { await t.value }
            // An action that queued another (a re-check that answers a hold) is waited for too.
            let done = lanes.withLock { lanes in
                lanes.tails = lanes.tails.filter { !tails.contains($0.value) }
                return lanes.tails.isEmpty
            }
            if done { return }
        }
    }
}
