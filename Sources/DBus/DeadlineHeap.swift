// SPDX-License-Identifier: Apache-2.0
/// Deadlines of pending calls, earliest first (a binary heap with lazy deletion).
struct DeadlineHeap {
    private var items: [(ContinuousClock.Instant, UInt32)] = []
    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var peekDeadline: ContinuousClock.Instant? { items.first?.0 }

    mutating func insert(_ deadline: ContinuousClock.Instant, _ serial: UInt32) {
        items.append((deadline, serial))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].0 < items[parent].0 else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    /// Drops the earliest entries while `isStale` says they belong to calls already answered, so
    /// the earliest left is a call still waiting: a thread that sleeps until it is not woken for
    /// a call that has long had its reply.
    mutating func dropStale(_ isStale: (ContinuousClock.Instant, UInt32) -> Bool) {
        while let first = items.first, isStale(first.0, first.1) { _ = popFirst() }
    }

    mutating func popExpired(now: ContinuousClock.Instant) -> (ContinuousClock.Instant, UInt32)? {
        guard let first = items.first, first.0 <= now else { return nil }
        return popFirst()
    }

    private mutating func popFirst() -> (ContinuousClock.Instant, UInt32)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && items[l].0 < items[m].0 { m = l }
                if r < items.count && items[r].0 < items[m].0 { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return first
    }
}
