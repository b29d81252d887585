// SPDX-License-Identifier: Apache-2.0
import DBus
import Synchronization
import Testing

/// AsyncQueue: the daemon's hand-offs between tasks, in place of AsyncStream.
@Suite struct AsyncQueueTests {
    @Test func elementsComeInOrderThenNilOnceFinished() async {
        let q = AsyncQueue<Int>()
        for i in 0..<200 { #expect(q.yield(i)) }
        q.finish()
        #expect(!q.yield(999), "a queue that is finished takes nothing more")
        var got: [Int] = []
        for await i in q { got.append(i) }
        #expect(got == Array(0..<200))
        #expect(await q.next() == nil)
    }

    @Test func aWaitingConsumerIsWokenByAnotherTask() async {
        let q = AsyncQueue<String>()
        let consumer = Task { () -> [String] in
            var got: [String] = []
            for await s in q { got.append(s) }
            return got
        }
        let producers = (0..<4).map { p in Task { for i in 0..<500 { q.yield("\(p).\(i)") } } }
        for t in producers { await t.value }
        q.finish()
        let got = await consumer.value
        #expect(got.count == 2000)
        for p in 0..<4 {
            // Each producer's elements keep their order.
            #expect(got.filter { $0.hasPrefix("\(p).") } == (0..<500).map { "\(p).\($0)" })
        }
    }

    @Test func cancellingAWaitingConsumerEndsItsLoop() async {
        let q = AsyncQueue<Int>()
        let started = Mutex(false)
        let consumer = Task { () -> Int in
            var n = 0
            started.withLock { $0 = true }
            for await _ in q { n += 1 }
            return n
        }
        q.yield(1)
        while !started.withLock({ $0 }) { await Task.yield() }
        // Wait until the consumer has taken the element and waits for the next.
        for _ in 0..<100 { await Task.yield() }
        consumer.cancel()
        #expect(await consumer.value == 1)
    }

    @Test func aConsumerCancelledBeforeItWaitsGetsNil() async {
        let q = AsyncQueue<Int>()
        let consumer = Task { () -> Int? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await q.next()
        }
        #expect(await consumer.value == nil)
        // Elements already queued are still handed out to a cancelled task.
        q.yield(7)
        let again = Task { () -> Int? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await q.next()
        }
        #expect(await again.value == 7)
    }

    @Test func finishingWakesAWaitingConsumer() async {
        let q = AsyncQueue<Int>()
        let consumer = Task { await q.next() }
        for _ in 0..<100 { await Task.yield() }
        q.finish()
        #expect(await consumer.value == nil)
    }
}
