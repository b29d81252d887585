// SPDX-License-Identifier: Apache-2.0
import Foundation
import HotspotCore
@testable import HotspotDaemon
import HotspotTesting
import Logging
import Testing

/// The state saved behind the engine (the fsync off the join's path) still reaches the
/// disk, newest last, and a save that must come first is never overwritten by an older one.
@Suite struct StateWriterTests {
    let scratch: ScratchDirectory
    let store: StateFile
    let writer: StateWriter

    init() throws {
        scratch = try ScratchDirectory("state-writer")
        store = StateFile(directory: scratch.path)
        writer = StateWriter(store: store, log: Logger(label: "test"))
    }

    /// A state whose cache names `count` networks, so states are told apart by their size.
    static func state(_ count: Int) -> PersistentState {
        var cache = NetworkCache()
        for i in 0..<count { cache.record(.notCaptive, for: NetworkKey(ssid: SSID("net\(i)"), securityClass: .open)) }
        return PersistentState(cache: cache)
    }

    func stored() throws -> PersistentState { try store.loadState().state }

    @Test func statesSavedBehindTheEngineAreOnDiskAfterFlushNewestLast() throws {
        for n in 1...50 { writer.saveSoon(Self.state(n), generation: UInt64(n)) }
        writer.flush()
        #expect(try stored() == Self.state(50))
    }

    @Test func aStateSavedBehindTheEngineReachesTheDiskWithoutAFlush() async throws {
        let disk = try DirectoryWatch(scratch.path)
        writer.saveSoon(Self.state(3), generation: 1)
        try await disk.changes.until("the state reaches the disk") { (try? stored()) == Self.state(3) }
    }

    @Test func aSaveThatMustComeFirstIsNotOverwrittenByAnOlderOne() throws {
        for round in 0..<20 {
            let g = UInt64(round * 2)
            writer.saveSoon(Self.state(round + 1), generation: g + 1)
            writer.saveNow(Self.state(100 + round), generation: g + 2)
            writer.flush()
            #expect(try stored() == Self.state(100 + round), "round \(round)")
        }
    }

    /// Generations order the states, not the order they are handed over in: an event whose
    /// effects took longer may hand its (older) state over after a newer one.
    @Test func anOlderStateHandedOverLaterIsNotWritten() throws {
        writer.saveSoon(Self.state(9), generation: 2)
        writer.saveSoon(Self.state(4), generation: 1)
        writer.flush()
        #expect(try stored() == Self.state(9))
        writer.saveSoon(Self.state(5), generation: 1)
        writer.flush()
        #expect(try stored() == Self.state(9), "an older state overwrote the newer one on disk")
    }

    /// States handed over behind the engine wait before they are written (the write leaves the
    /// join's busiest moment), and those handed over meanwhile become one write: the newest.
    @Test func statesHandedOverTogetherAreGatheredIntoOneWrite() async throws {
        let disk = try DirectoryWatch(scratch.path)
        // A gathering no busy machine can outlast (the test process ends long before it does):
        // 5 s was once used up by load before the watch below began, and the watch then saw the
        // write the gathering had rightly made. Nothing may be written until the flush.
        let slow = StateWriter(store: store, log: Logger(label: "test"), gathering: .seconds(3600))
        slow.saveSoon(Self.state(1), generation: 1)
        slow.saveSoon(Self.state(2), generation: 2)
        let unwritten = await disk.changes.holdsThroughout(.milliseconds(300)) {
            let early = try? stored()
            return early != Self.state(1) && early != Self.state(2)
        }
        #expect(unwritten, "a state was written before the gathering ended")
        slow.flush()
        #expect(try stored() == Self.state(2))
        // With the daemon's own gathering, a state still reaches the disk by itself.
        writer.saveSoon(Self.state(3), generation: 3)
        try await disk.changes.until("the state reaches the disk") { (try? stored()) == Self.state(3) }
    }

    /// At shutdown the writer is closed last: what waits is written, and a save that comes later
    /// (a timer or a command still finishing) is written at once, not on a thread the process's
    /// exit would cut short.
    @Test func afterCloseASaveIsWrittenAtOnce() throws {
        writer.saveSoon(Self.state(2), generation: 1)
        writer.close()
        #expect(try stored() == Self.state(2))
        writer.saveSoon(Self.state(7), generation: 2)
        #expect(try stored() == Self.state(7), "a save after close waited for a thread")
    }
}

