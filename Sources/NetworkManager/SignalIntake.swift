// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The bound on NetworkManager signals waiting to be handled, shared by the tasks that receive
/// them (one per match rule) and the client that handles them.
///
/// A signal is admitted while fewer than ``capacity`` are waiting; past that it is dropped, and
/// the first drop asks the client to resynchronize (re-read NetworkManager's state, as after a
/// restart), since a dropped signal may have been the one that announced a join. One intake
/// serves one subscription: a resync subscribes afresh with a new intake, so what the old one
/// still holds is discarded unread.
final class SignalIntake: Sendable {
    /// What ``admit()`` decided for one signal.
    enum Admission: Equatable {
        /// Queue it.
        case accepted
        /// Drop it, and queue one resync: the first signal dropped since this intake began.
        case overflowed
        /// Drop it: a resync is already queued.
        case dropped
    }

    private struct State {
        var waiting = 0
        var overflowed = false
        var dropped = 0
    }

    /// How many signals may wait at once.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Called for each signal received, before it is queued.
    func admit() -> Admission {
        state.withLock { s in
            if s.waiting < capacity, !s.overflowed {
                s.waiting += 1
                return .accepted
            }
            s.dropped += 1
            if s.overflowed { return .dropped }
            s.overflowed = true
            return .overflowed
        }
    }

    /// Called for each admitted signal once it has been taken off the queue.
    func handled() {
        state.withLock { $0.waiting = max(0, $0.waiting - 1) }
    }

    /// How many signals were dropped so far.
    var droppedCount: Int { state.withLock { $0.dropped } }
}
