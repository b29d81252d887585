// SPDX-License-Identifier: Apache-2.0
/// The core's armed timers as deadlines, for a daemon that keeps one sleeping task, for the
/// earliest deadline, rather than one task per timer: every command arms a deadline and nearly
/// every one is cancelled a few hundred microseconds later by the helper's answer, and a task per
/// timer cost each join three task creations, three cancellations and the timer thread's
/// wake-ups. Cancelling only forgets a deadline; a sleeper that wakes for a forgotten one finds
/// nothing due and sleeps again until the next.
public struct TimerSchedule: Sendable {
    public private(set) var deadlines: [TimerID: Instant] = [:]

    public init() {}

    /// Arms `id` (``HotspotEffect/armTimer(_:at:)``); arming it again moves its deadline.
    public mutating func arm(_ id: TimerID, at deadline: Instant) { deadlines[id] = deadline }

    /// Forgets `id` (``HotspotEffect/cancelTimer(_:)``).
    public mutating func cancel(_ id: TimerID) { deadlines[id] = nil }

    /// The earliest deadline armed, if any.
    public var earliest: Instant? { deadlines.values.min() }

    /// Takes the timers due at `now`, earliest first (ties in arming order: the serial).
    public mutating func takeDue(now: Instant) -> [TimerID] {
        let due = deadlines.filter { $0.value <= now }.sorted { ($0.value, $0.key.serial) < ($1.value, $1.key.serial) }.map(\.key)
        for id in due { deadlines[id] = nil }
        return due
    }

    /// Whether a sleeper set to wake at `target` wakes in time for every deadline armed (so
    /// arming a later one needs no new sleeper).
    public func isCovered(by target: Instant?) -> Bool {
        guard let earliest else { return true }
        guard let target else { return false }
        return target <= earliest
    }
}
