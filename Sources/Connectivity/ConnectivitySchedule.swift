// SPDX-License-Identifier: Apache-2.0
/// Hysteresis and backoff for periodic checks on one interface. Pure: time is passed in as a
/// duration since any fixed origin, so tests never sleep.
///
/// - Leaving "online" takes `failuresBeforeLeavingOnline` consecutive non-online verdicts; while
///   that many have not been seen, the published state stays online and the next check comes
///   after the backoff delay (so a doubt is confirmed quickly).
/// - Entering "online" is immediate.
/// - While not online, or doubting, checks back off: `initialDelay`, doubling while the observed
///   state stays the same, capped at `interval`. A change of observed state resets it.
/// - While online, checks come every `interval`.
/// - A join without its verdict yet (`unsettled`) backs off to `unsettledCap` at most (30 s), not
///   to the interval: "no answer" from a gateway that is still slow is looked at again soon.
public struct ConnectivitySchedule: Sendable, Hashable {
    /// The tuning.
    public struct Configuration: Sendable, Hashable {
        /// Consecutive non-online verdicts before the published state leaves online.
        public var failuresBeforeLeavingOnline: Int
        /// The first backoff delay.
        public var initialDelay: Duration
        /// The periodic interval, and the backoff's cap.
        public var interval: Duration
        /// The backoff's cap while the join has no verdict.
        public var unsettledCap: Duration = .seconds(30)

        /// A configuration (defaults: 2 failures, 1 s doubling to 300 s, like NetworkManager).
        public init(failuresBeforeLeavingOnline: Int = 2, initialDelay: Duration = .seconds(1), interval: Duration = .seconds(300)) {
            self.failuresBeforeLeavingOnline = max(1, failuresBeforeLeavingOnline)
            self.initialDelay = initialDelay
            self.interval = interval
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The state to publish (nil until the first verdict).
    public private(set) var published: ProbeVerdict.State?
    /// The last observed state.
    public private(set) var observed: ProbeVerdict.State?
    /// Consecutive non-online verdicts while published online.
    public private(set) var consecutiveFailures = 0
    /// The delay before the next check.
    public private(set) var currentDelay: Duration
    /// When the next check is due (same origin as the times passed in).
    public private(set) var nextCheck: Duration = .zero

    /// A schedule; the first check is due at once.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.currentDelay = configuration.initialDelay
    }

    /// Records a verdict's state observed at `now`; returns true when the published state changed.
    @discardableResult
    public mutating func record(_ state: ProbeVerdict.State, at now: Duration, unsettled: Bool = false) -> Bool {
        let before = published
        let previousObserved = observed
        observed = state
        if state == .online {
            consecutiveFailures = 0
            published = .online
            currentDelay = configuration.initialDelay
            nextCheck = now + configuration.interval
        } else {
            if published == .online {
                consecutiveFailures += 1
                if consecutiveFailures >= configuration.failuresBeforeLeavingOnline { published = state }
            } else {
                published = state
            }
            if previousObserved != state || previousObserved == .online {
                currentDelay = configuration.initialDelay
            } else {
                currentDelay = min(currentDelay * 2, configuration.interval)
            }
            if unsettled { currentDelay = min(currentDelay, configuration.unsettledCap) }
            nextCheck = now + currentDelay
        }
        return before != published
    }

    /// Forces a quick re-check (after a sign-in, a roam or a helper's request): the next check is
    /// due at `now`, and backoff restarts from `initialDelay`.
    public mutating func recheckSoon(at now: Duration) {
        currentDelay = configuration.initialDelay
        nextCheck = now
    }

    /// The next check comes `delay` after `now`, the backoff unchanged (a probe still in flight
    /// is waited for by the next check rather than followed by a new one).
    public mutating func checkAgain(after delay: Duration, at now: Duration) {
        nextCheck = min(nextCheck, now + delay)
    }

    /// The next check comes no sooner than `instant` (a slow gateway busy with a sign-in).
    public mutating func postpone(until instant: Duration) {
        nextCheck = max(nextCheck, instant)
    }

    /// Whether a check is due at `now`.
    public func isDue(at now: Duration) -> Bool { now >= nextCheck }
}
