// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// An unbounded queue from any number of producers to one consumer task, iterated with
/// `for await`: what the daemon's internal hand-offs (NetworkManager's signals to its client, the
/// client's events to the engine, the engine's announcements to the bus) use instead of
/// `AsyncStream`.
///
/// Why not `AsyncStream`: its implementation is generic code in the concurrency library that is
/// not specialised for the element type, so every `yield` and `next` looks up generic metadata and
/// witness tables; measured in the daemon (perf), a yield cost about 5 µs, and a join
/// passes a dozen elements through such streams. Here the code is inlinable, so it is specialised
/// where it is used, and an element costs one uncontended lock on each side.
///
/// `next()` returns the elements in the order they were yielded, then nil once ``finish()`` was
/// called and the queue is empty. A consumer waiting in `next()` whose task is cancelled gets nil
/// (as with `AsyncStream`); elements yielded after ``finish()`` are dropped. One task consumes:
/// a second task waiting at the same time is a programming error and traps.
public final class AsyncQueue<Element: Sendable>: AsyncSequence, Sendable {
    @usableFromInline
    struct State: ~Copyable {
        @usableFromInline var items: [Element] = []
        @usableFromInline var head = 0
        @usableFromInline var waiter: UnsafeContinuation<Element?, Never>?
        @usableFromInline var finished = false

        @usableFromInline init() {}

        @inlinable
        mutating func take() -> Element? {
            guard head < items.count else { return nil }
            let element = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: items.capacity <= 64)
                head = 0
            } else if head >= 64 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    @usableFromInline let state = Mutex(State())

    @inlinable public init() {}

    /// A queue that is already finished (a consumer of it gets nil at once).
    @inlinable public static func finished() -> AsyncQueue {
        let queue = AsyncQueue()
        queue.finish()
        return queue
    }

    /// Adds `element` for the consumer; false (and the element dropped) once finished.
    @inlinable @discardableResult
    public func yield(_ element: Element) -> Bool {
        let (accepted, waiter) = state.withLock { s -> (Bool, UnsafeContinuation<Element?, Never>?) in
            guard !s.finished else { return (false, nil) }
            if let w = s.waiter {
                s.waiter = nil
                return (true, w)
            }
            s.items.append(element)
            return (true, nil)
        }
        waiter?.resume(returning: element)
        return accepted
    }

    /// Ends the queue: the consumer gets what is queued, then nil.
    @inlinable
    public func finish() {
        let waiter = state.withLock { s -> UnsafeContinuation<Element?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter  // a consumer waits only when nothing is queued
        }
        waiter?.resume(returning: nil)
    }

    /// The next element, waiting for one; nil once finished and drained, or when the waiting task
    /// is cancelled.
    @inlinable
    public func next() async -> Element? {
        // The common case, an element already queued, takes the lock once and never suspends.
        let ready = state.withLock { s -> (Element?, done: Bool) in
            if let e = s.take() { return (e, false) }
            return (nil, s.finished)
        }
        if let element = ready.0 { return element }
        if ready.done || Task.isCancelled { return nil }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (c: UnsafeContinuation<Element?, Never>) in
                let resumeNow = state.withLock { s -> (Bool, Element?) in
                    if let e = s.take() { return (true, e) }
                    // Checked under the lock: a cancellation whose handler ran before the waiter
                    // was stored is seen here (the flag is set before the handler runs).
                    if s.finished || Task.isCancelled { return (true, nil) }
                    precondition(s.waiter == nil, "AsyncQueue: two tasks wait for the same queue")
                    s.waiter = c
                    return (false, nil)
                }
                if resumeNow.0 { c.resume(returning: resumeNow.1) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> UnsafeContinuation<Element?, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let queue: AsyncQueue
        @inlinable init(queue: AsyncQueue) { self.queue = queue }
        @inlinable public mutating func next() async -> Element? { await queue.next() }
    }

    @inlinable public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: self) }
}
