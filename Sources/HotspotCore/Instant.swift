// SPDX-License-Identifier: Apache-2.0
/// A point on the daemon's monotonic clock, expressed as the time elapsed since an arbitrary epoch.
///
/// HotspotCore never reads a clock. Every event is handled at an `Instant` the caller supplies, and
/// every timer is armed for an `Instant`. The daemon maps its monotonic clock onto instants; tests
/// drive a virtual clock, so a 300 s maintain interval takes no real time at all.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Time elapsed since the epoch.
    public var sinceEpoch: Duration

    /// Creates the instant `sinceEpoch` after the epoch.
    public init(sinceEpoch: Duration) {
        self.sinceEpoch = sinceEpoch
    }

    /// The epoch itself.
    public static let epoch = Instant(sinceEpoch: .zero)

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.sinceEpoch < rhs.sinceEpoch
    }

    /// The instant `duration` after `instant`.
    public static func + (instant: Instant, duration: Duration) -> Instant {
        Instant(sinceEpoch: instant.sinceEpoch + duration)
    }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        lhs.sinceEpoch - rhs.sinceEpoch
    }

    public var description: String { "epoch+\(sinceEpoch)" }
}
