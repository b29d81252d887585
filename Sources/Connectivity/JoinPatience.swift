// SPDX-License-Identifier: Apache-2.0
/// Patience with a link that has just joined, and memory of the portal it showed. Pure: time is
/// the duration since the join, so tests never sleep.
///
/// A gateway may refuse a new client until its first packets reach the firewall, or answer its
/// first requests only after seconds: a check that finds no connectivity in the join's first
/// seconds says nothing yet. Such a check is repeated (`initialDelay`, doubling up to `maxDelay`)
/// until a definite answer (online, a portal: a redirect, an intercepted page or the RFC 8908
/// API; partial, where HTTP answered) or until `bound` after the join. Once a portal has been
/// seen, a check that finds nothing (a refused or timed-out probe) does not turn it into "none":
/// only online (or another portal answer) replaces it.
public struct JoinPatience: Sendable, Hashable {
    /// How long after the join "none" is not believed.
    public var bound: Duration
    /// The first wait before a check is repeated.
    public var initialDelay: Duration
    /// The longest wait between repeats.
    public var maxDelay: Duration
    /// The last portal verdict since the link was last online.
    public private(set) var portal: ProbeVerdict?
    /// The wait before the next repeat.
    public private(set) var delay: Duration

    /// Patience for one join (default: 20 s, 0.5 s doubling to 4 s).
    public init(bound: Duration = .seconds(20), initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(4)) {
        self.bound = bound
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.delay = initialDelay
    }

    /// Whether a verdict is definite evidence.
    public static func isDefinite(_ verdict: ProbeVerdict) -> Bool { verdict.state != .none }

    /// How long to wait before checking again, or nil when `verdict` (made `sinceJoin` after the
    /// join) is to be believed.
    public mutating func retryDelay(after verdict: ProbeVerdict, sinceJoin: Duration) -> Duration? {
        guard !Self.isDefinite(verdict), portal == nil, sinceJoin + delay <= bound else { return nil }
        defer { delay = min(delay * 2, maxDelay) }
        return delay
    }

    /// The verdict to publish for a check's `verdict`: a portal seen since the link was last
    /// online stays until definite evidence replaces it.
    public mutating func settle(_ verdict: ProbeVerdict) -> ProbeVerdict {
        switch verdict.state {
        case .portal:
            portal = verdict
            return verdict
        case .online:
            portal = nil
            return verdict
        case .partial:
            return verdict
        case .none:
            guard var kept = portal else { return verdict }
            kept.results = verdict.results
            kept.elapsed = verdict.elapsed
            return kept
        }
    }
}
