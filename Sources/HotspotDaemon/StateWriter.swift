// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore
import Logging
import Synchronization

/// Writes the core's ``PersistentState`` to the ``StateFile``, in the order the engine hands the
/// states over, either at once (``saveNow(_:)``: the autoconnect ledger changed and the save must
/// precede the event's other effects) or behind the engine (``saveSoon(_:)``: only the network
/// cache changed). A save is an fsync'd atomic replace, about half a millisecond on an SSD and far
/// more on a slow card; behind the engine it no longer sits between a helper's evaluate answer and
/// its authenticate command (docs/ARCHITECTURE.md, "The join's data path").
///
/// States handed over behind the engine are coalesced: only the newest is written. One lock is
/// held across taking a state and writing it, so a newer state is never overwritten by an older
/// one, and ``flush()`` returns only when nothing handed over is left unwritten.
final class StateWriter: Sendable {
    private let store: StateFile
    private let log: Logger
    /// The newest state handed to ``saveSoon(_:)`` and not written yet, whether a drain thread
    /// is running, and whether the writer was closed (then every save is written at once).
    private let pending = Mutex<(state: PersistentState?, draining: Bool, closed: Bool)>((nil, false, false))
    /// Held while a state is taken and written.
    private let writing = Mutex<Void>(())

    init(store: StateFile, log: Logger) {
        self.store = store
        self.log = log
    }

    /// Writes `state` now, on the caller's thread. A state handed over earlier and not written
    /// yet is older and is dropped.
    func saveNow(_ state: PersistentState) {
        writing.withLock { _ in
            pending.withLock { $0.state = nil }
            write(state)
        }
    }

    /// Writes `state` soon, on another thread; returns at once. After ``close()`` it is written
    /// at once (the process is about to exit and would cut a thread's save short).
    func saveSoon(_ state: PersistentState) {
        let (start, closed) = pending.withLock { p -> (Bool, Bool) in
            guard !p.closed else { return (false, true) }
            p.state = state
            guard !p.draining else { return (false, false) }
            p.draining = true
            return (true, false)
        }
        if closed { return saveNow(state) }
        guard start else { return }
        // On a thread of its own: the fsync must not hold the bus thread, which runs the
        // daemon's tasks (Connection.hostGlobalJobs()).
        if !DetachedThread.start(name: "hotspot-save", stackSize: 256 * 1024, { self.drain() }) {
            drain()  // no thread to be had: late in this one rather than never
        }
    }

    /// Writes what is still waiting, if anything. Returns when it is on disk.
    func flush() {
        writing.withLock { _ in
            if let state = pending.withLock({ p -> PersistentState? in defer { p.state = nil }; return p.state }) { write(state) }
        }
    }

    /// At shutdown, last: writes what is waiting, and from now on writes every save at once.
    func close() {
        pending.withLock { $0.closed = true }
        flush()
    }

    private func drain() {
        while true {
            let wrote = writing.withLock { _ -> Bool in
                let next = pending.withLock { p -> PersistentState? in
                    guard let state = p.state else {
                        p.draining = false
                        return nil
                    }
                    p.state = nil
                    return state
                }
                guard let next else { return false }
                write(next)
                return true
            }
            if !wrote { return }
        }
    }

    private func write(_ state: PersistentState) {
        do { try store.saveState(state) } catch {
            log.error("could not save the network cache to \(store.path): \(error); it stays in memory and is saved at the next change")
        }
    }
}
