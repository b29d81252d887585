// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// Writes the core's ``PersistentState`` to the ``StateFile``, either at once
/// (``saveNow(_:generation:)``: the autoconnect ledger changed and the save must precede the
/// event's other effects) or behind the engine (``saveSoon(_:generation:)``: only the network
/// cache changed). A save is an fsync'd atomic replace, about half a millisecond on an SSD and far
/// more on a slow card; behind the engine it no longer sits between a helper's evaluate answer and
/// its authenticate command (docs/ARCHITECTURE.md, "A join, hop by hop").
///
/// States handed over behind the engine are gathered for ``defaultGathering`` and coalesced: only
/// the newest is written. Each state
/// carries the generation the engine gave it when the core made it; one lock is held across
/// taking a state and writing it, and a state older than the one on disk is never written, so a
/// newer state is never overwritten by an older one whatever order they arrive in, and
/// ``flush()`` returns only when nothing handed over is left unwritten.
final class StateWriter: Sendable {
    private let store: StateFile
    private let log: Logger
    /// The newest state handed to ``saveSoon(_:generation:)`` and not written yet (with its
    /// generation), whether a drain thread is running, and whether the writer was closed (then
    /// every save is written at once).
    private let pending = Mutex<(state: PersistentState?, generation: UInt64, draining: Bool, closed: Bool)>((nil, 0, false, false))
    /// Held while a state is taken and written; the generation last written.
    private let writing = Mutex<UInt64>(0)

    /// How long the drain thread gathers states before its first write: saves in quick
    /// succession become one, and the write leaves the moment the cache changed (a helper's
    /// evaluate answer, with its authenticate round trip still to come) for a quieter one. On the
    /// two-core machine here the save in that moment cost the join a third of its time
    /// (`daemon-benchmark`, same hour: p50 1.65–2.01 ms with it, 1.19–1.25 ms gathered). A crash in between
    /// loses what a crash before the save always lost: one evaluation, made again at the next join.
    static let defaultGathering: Duration = .milliseconds(100)
    private let gathering: Duration

    init(store: StateFile, log: Logger, gathering: Duration = StateWriter.defaultGathering) {
        self.store = store
        self.log = log
        self.gathering = gathering
    }

    /// Writes `state` now, on the caller's thread, unless a newer generation is already on disk.
    /// A state handed over earlier and not written yet is older and is dropped.
    func saveNow(_ state: PersistentState, generation: UInt64) {
        writing.withLock { written in
            pending.withLock { p in if p.generation <= generation { p.state = nil } }
            guard generation > written else { return }
            write(state)
            written = generation
        }
    }

    /// Writes `state` soon, on another thread; returns at once. Generations order the states:
    /// one older than a state already handed over or written is dropped, so the order the
    /// states are handed over in does not matter. After ``close()`` it is written at once (the
    /// process is about to exit and would cut a thread's save short).
    func saveSoon(_ state: PersistentState, generation: UInt64) {
        let (start, closed) = pending.withLock { p -> (Bool, Bool) in
            guard !p.closed else { return (false, true) }
            if p.state == nil || p.generation < generation {
                p.state = state
                p.generation = generation
            }
            guard !p.draining else { return (false, false) }
            p.draining = true
            return (true, false)
        }
        if closed { return saveNow(state, generation: generation) }
        guard start else { return }
        // On a thread of its own: the fsync must not hold one of the executor's few workers.
        if !DetachedThread.start(name: "hotspot-save", stackSize: 256 * 1024, { self.drain(gathering: self.gathering) }) {
            drain(gathering: .zero)  // no thread to be had: late in this one rather than never, and not held
        }
    }

    /// Writes what is still waiting, if anything. Returns when it is on disk.
    func flush() {
        writing.withLock { written in
            let next = pending.withLock { p -> (PersistentState, UInt64)? in
                defer { p.state = nil }
                return p.state.map { ($0, p.generation) }
            }
            if let (state, generation) = next, generation > written {
                write(state)
                written = generation
            }
        }
    }

    /// At shutdown, last: writes what is waiting, and from now on writes every save at once.
    func close() {
        pending.withLock { $0.closed = true }
        flush()
    }

    /// Sleeps `gathering` (states handed over meanwhile become one write), then writes until
    /// nothing is waiting.
    private func drain(gathering: Duration) {
        let (seconds, attoseconds) = gathering.components
        var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
        while true {
            let wrote = writing.withLock { written -> Bool in
                let next = pending.withLock { p -> (PersistentState, UInt64)? in
                    guard let state = p.state else {
                        p.draining = false
                        return nil
                    }
                    p.state = nil
                    return (state, p.generation)
                }
                guard let (state, generation) = next else { return false }
                if generation > written {
                    write(state)
                    written = generation
                }
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
