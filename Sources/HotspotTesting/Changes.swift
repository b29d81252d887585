// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Something a test can wait on without sleeping: whoever changes what a test looks at (a
/// signal on the bus, a line a child process writes, a request the portal simulator answers)
/// calls ``bump()``, and ``until(_:timeout:context:_:)`` checks its condition again after each
/// bump, until its deadline. The timeout only bounds a wait that fails; a wait that succeeds
/// ends at the change that made its condition true.
///
/// A source can pass its changes on to another (``forward(to:)``), so one wait is woken by all
/// the sources its condition reads (``BusWaiter`` follows the daemon's log that way).
///
/// Checks are at least ``spacing`` apart: in a storm of changes (a flood of signals, a chatty
/// log) a wait whose condition calls the daemon must not turn into a loop of calls.
///
/// A wait also checks again after ``backstop`` without a change. That never ends a wait early;
/// it keeps a wake-up that came too soon from failing a test: a condition may read state that
/// changes just after the signal announcing it was seen (the daemon's scan list after
/// NetworkManager's signal), and nothing announces it again. Such a wait is slower, not wrong.
public final class Changes: Sendable {
    private struct Waiter {
        var after: UInt64
        var continuation: CheckedContinuation<Void, Never>
    }
    private struct State {
        var generation: UInt64 = 0
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var followers: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())
    /// How long a wait goes without a change before it checks its condition anyway.
    public static let backstop = Duration.milliseconds(500)
    /// The least time between two checks of one wait.
    public static let spacing = Duration.milliseconds(5)

    public init() {}

    /// Records a change: every wait checks its condition again, and every follower is told.
    public func bump() {
        let (ready, followers) = state.withLock { s -> ([CheckedContinuation<Void, Never>], [@Sendable () -> Void]) in
            s.generation += 1
            let ready = s.waiters.filter { $0.value.after < s.generation }
            for id in ready.keys { s.waiters[id] = nil }
            return (ready.values.map(\.continuation), s.followers)
        }
        for c in ready { c.resume() }
        for f in followers { f() }
    }

    /// Passes every later change on to `other` (held weakly: a source that outlives its waiter
    /// keeps nothing alive).
    public func forward(to other: Changes) {
        state.withLock { $0.followers.append { [weak other] in other?.bump() } }
    }

    /// Returns when `condition` holds; throws ``TestKitError/timeout(_:)`` naming `what`, with
    /// `context()`, after `timeout`.
    public func until(_ what: String, timeout: Duration = SafetyNet.wait, context: () -> String = { "" },
                      _ condition: () async throws -> Bool) async throws {
        guard try await holds(within: timeout, condition) else {
            throw TestKitError.timeout("\(what): not within \(timeout)\n\(context())")
        }
    }

    /// Whether `condition` came to hold within `timeout` (checked at once, then after each change).
    public func holds(within timeout: Duration, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (seen, checked) = (state.withLock { $0.generation }, ContinuousClock.now)
            if try await condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            await change(after: seen, until: deadline)
            await Self.keepApart(from: checked, until: deadline)
        }
    }

    /// Whether `condition` held throughout `window`: checked at once, after every change and at
    /// the end. For "nothing happens" checks, whose window no signal can end sooner; a change
    /// that breaks the condition is seen when it comes, not after a fixed sleep.
    public func holdsThroughout(_ window: Duration, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let end = ContinuousClock.now + window
        while true {
            let (seen, checked) = (state.withLock { $0.generation }, ContinuousClock.now)
            guard try await condition() else { return false }
            guard ContinuousClock.now < end else { return true }
            await change(after: seen, until: end)
            await Self.keepApart(from: checked, until: end)
        }
    }

    /// Returns once ``spacing`` has passed since `checked` (at once, unless changes came fast).
    private static func keepApart(from checked: ContinuousClock.Instant, until deadline: ContinuousClock.Instant) async {
        let next = min(checked + spacing, deadline)
        if ContinuousClock.now < next { try? await Task.sleep(until: next, clock: .continuous) }
    }

    /// Returns after a change newer than `seen`, or at `deadline` or after ``backstop``, whichever
    /// comes first.
    private func change(after seen: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        let wake = min(deadline, .now + Self.backstop)
        let timer = Task { [weak self] in
            try? await Task.sleep(until: wake, clock: .continuous)
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

/// A count of what happens in other tasks or threads (calls a peer received, lookups begun,
/// answers in a flood), and a wait for it: each ``add()`` wakes the waits.
public final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    public let changes = Changes()

    public init() {}

    public func add() {
        count.add(1, ordering: .relaxed)
        changes.bump()
    }

    public var value: Int { count.load(ordering: .relaxed) }

    /// Returns once the count is at least `n`; throws naming `what` after `timeout`.
    public func wait(atLeast n: Int = 1, _ what: String, timeout: Duration = SafetyNet.wait) async throws {
        try await changes.until(what, timeout: timeout) { value >= n }
    }
}
