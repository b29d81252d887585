// SPDX-License-Identifier: Apache-2.0
@testable import DBus
import Testing

/// The pending calls' deadlines: the bus thread sleeps until the earliest, so one left behind by
/// an answered call woke an idle daemon for nothing (footprint-benchmark counted it).
@Suite struct DeadlineHeapTests {
    let t0 = ContinuousClock.now

    @Test func expiredDeadlinesComeOutEarliestFirst() {
        var heap = DeadlineHeap()
        for (i, s) in [5, 1, 4, 2, 3].enumerated() { heap.insert(t0 + .seconds(s), UInt32(i)) }
        var out: [UInt32] = []
        while let (_, serial) = heap.popExpired(now: t0 + .seconds(3)) { out.append(serial) }
        #expect(out == [1, 3, 4], "the deadlines at 1, 2 and 3 s, earliest first")
        #expect(heap.peekDeadline == t0 + .seconds(4))
    }

    @Test func staleEntriesBeforeTheFirstWaitingCallAreDropped() {
        var heap = DeadlineHeap()
        for s in 1...5 { heap.insert(t0 + .seconds(s), UInt32(s)) }
        let waiting: Set<UInt32> = [3, 5]
        heap.dropStale { _, serial in !waiting.contains(serial) }
        #expect(heap.peekDeadline == t0 + .seconds(3), "the earliest left is a call still waiting")
        #expect(heap.count == 3, "only the entries before it are dropped (4 goes later, lazily)")
        heap.dropStale { _, _ in true }
        #expect(heap.isEmpty && heap.peekDeadline == nil, "no call waiting: no deadline, so no timeout")
    }
}
