// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// The outcome of one connectivity check on one interface.
public struct ProbeVerdict: Sendable, Hashable {
    /// The four connectivity states.
    public enum State: String, Sendable, Hashable {
        /// Enough probes got their expected answers (over HTTPS too, when HTTPS probes are configured).
        case online
        /// Something intercepts requests: a captive portal.
        case portal
        /// HTTP answers as expected but HTTPS does not (TLS blocked or broken).
        case partial
        /// No connectivity; `reason` tells why (dns, tls, timeout, refused, status).
        case none
    }
    /// The state.
    public var state: State
    /// Why: `.expected` when online, the deciding probe's reason for a portal, the HTTPS failure for
    /// partial, and the most frequent failure for none.
    public var reason: ProbeReason
    /// For a portal: where to sign in (RFC 8908 user-portal-url, Location, WISPr LoginURL, or the
    /// probe URL of a 200 portal page).
    public var signInURL: String?
    /// The WISPr gateway message when a probe found one.
    public var wispr: WISPrMessage?
    /// The RFC 8908 API's state when an API URL was given and it answered validly (or the last
    /// valid answer the client kept).
    public var capport: CaptivePortalStatus?
    /// Every probe that finished before the decision (the rest are `.cancelled`).
    public var results: [ProbeResult]
    /// Probes that got their expected answer.
    public var successes: Int
    /// Probes configured.
    public var total: Int
    /// Time from the check's start to the decision.
    public var elapsed: Duration

    /// A verdict.
    public init(state: State, reason: ProbeReason, signInURL: String? = nil, wispr: WISPrMessage? = nil,
                capport: CaptivePortalStatus? = nil, results: [ProbeResult] = [], successes: Int = 0, total: Int = 0,
                elapsed: Duration = .zero) {
        self.state = state
        self.reason = reason
        self.signInURL = signInURL
        self.wispr = wispr
        self.capport = capport
        self.results = results
        self.successes = successes
        self.total = total
        self.elapsed = elapsed
    }
}

/// How probe results become a verdict.
public struct VerdictPolicy: Sendable, Hashable {
    /// The share of probes that must succeed for "online" (default 0.5, as rwbutler/Connectivity).
    public var successThreshold: Double
    /// A portal answer from any HTTP probe decides "portal" at once (once the RFC 8908 API, when
    /// one is queried, has answered: its user-portal-url is the better sign-in URL) and vetoes "online": a portal
    /// that lets a few well-known probe hosts through is still found.
    /// Online (or none) is decided as soon as the quorum is reached (or out of reach) and no
    /// pending HTTP probe could still report a portal; or, when HTTP probes are still pending,
    /// a grace period after that moment: as long as the check took so far (portals answer from
    /// the local gateway, as fast as the probes that already answered), at least `graceFloor`,
    /// at most `grace`. `nil` waits for them.
    public var grace: Duration?
    /// The shortest grace period.
    public var graceFloor: Duration
    /// Wait for every probe before deciding (what rwbutler/Connectivity does); for comparison.
    public var waitForAll: Bool

    /// A policy.
    public init(successThreshold: Double = 0.5, grace: Duration? = .milliseconds(750), graceFloor: Duration = .milliseconds(100),
                waitForAll: Bool = false) {
        self.successThreshold = successThreshold
        self.grace = grace
        self.graceFloor = graceFloor
        self.waitForAll = waitForAll
    }
}

/// Turns probe results, as they arrive, into a verdict as soon as it is settled. Pure.
public struct VerdictAggregator: Sendable {
    /// What `evaluate` says.
    public enum Decision: Sendable, Hashable {
        /// Decided.
        case decided(ProbeVerdict)
        /// Would be decided, but HTTP probes that could still see a portal are pending.
        case settledButForPendingHTTP
        /// Not yet.
        case pending
    }

    /// The probes.
    public let probes: [ConnectivityProbe]
    /// The policy.
    public let policy: VerdictPolicy
    private(set) var results: [Int: ProbeResult] = [:]
    private var capportPending: Bool
    private(set) var capport: CaptivePortalStatus?

    /// An aggregator; `expectCapport` makes it wait for `recordCapport` before deciding online.
    public init(probes: [ConnectivityProbe], policy: VerdictPolicy, expectCapport: Bool = false) {
        self.probes = probes
        self.policy = policy
        self.capportPending = expectCapport
    }

    /// Successes needed for online.
    public var required: Int { max(1, Int((policy.successThreshold * Double(probes.count)).rounded(.up))) }

    /// Records probe `index`'s result.
    public mutating func record(_ index: Int, _ result: ProbeResult) { results[index] = result }

    /// Records the RFC 8908 API's answer (nil: no valid answer).
    public mutating func recordCapport(_ status: CaptivePortalStatus?) {
        capportPending = false
        capport = status
    }

    /// The decision given what has arrived; `force` decides with what is there (grace expired,
    /// or the check was cancelled).
    public func evaluate(elapsed: Duration, force: Bool = false) -> Decision {
        let finished = results.sorted { $0.key < $1.key }.map(\.value)
        let all = probes.indices.map { i in
            results[i] ?? ProbeResult(probe: probes[i], outcome: .failed, reason: .cancelled, elapsed: elapsed)
        }
        let pending = probes.indices.filter { results[$0] == nil }
        let pendingHTTP = pending.filter { !probes[$0].isHTTPS }.count
        let pendingHTTPS = pending.count - pendingHTTP
        let successes = finished.filter { $0.outcome == .online }.count
        let httpsCount = probes.filter(\.isHTTPS).count
        let httpsSuccesses = finished.filter { $0.outcome == .online && $0.probe.isHTTPS }.count
        let httpSuccesses = successes - httpsSuccesses
        func verdict(_ state: ProbeVerdict.State, _ reason: ProbeReason, url: String? = nil, wispr: WISPrMessage? = nil) -> ProbeVerdict {
            ProbeVerdict(state: state, reason: reason, signInURL: url, wispr: wispr, capport: capport,
                         results: all, successes: successes, total: probes.count, elapsed: elapsed)
        }
        if let c = capport, c.captive {
            return .decided(verdict(.portal, .capportCaptive, url: c.userPortalURL, wispr: finished.compactMap(\.wispr).first))
        }
        let everythingIn = pending.isEmpty && !capportPending
        if policy.waitForAll && !everythingIn && !force { return .pending }
        if let portal = finished.first(where: { $0.outcome == .portal }), !capportPending || force {
            let wispr = finished.compactMap(\.wispr).first
            return .decided(verdict(.portal, portal.reason, url: portal.signInURL, wispr: wispr))
        }
        let httpsOK = httpsCount == 0 || httpsSuccesses > 0
        let canStillBeOnline = successes + pending.count >= required && (httpsOK || pendingHTTPS > 0)
        let settledOnline = successes >= required && httpsOK && !capportPending
        let settledNotOnline = !canStillBeOnline && !capportPending
        if settledOnline || settledNotOnline || everythingIn || force {
            if !(everythingIn || force) && pendingHTTP > 0 {
                // Online is settled: a pending HTTP probe gets a short grace in case it reveals a
                // portal. Not online: what the HTTP probes answer decides between portal, partial
                // and none, so wait for them (each has its own timeout) instead of guessing.
                return settledOnline ? .settledButForPendingHTTP : .pending
            }
            if successes >= required && httpsOK { return .decided(verdict(.online, .expected)) }
            if httpSuccesses > 0 && httpsCount > 0 && httpsSuccesses == 0 {
                let httpsReason = finished.first { $0.probe.isHTTPS && $0.outcome == .failed }?.reason ?? .timeout
                return .decided(verdict(.partial, httpsReason))
            }
            return .decided(verdict(.none, Self.dominantFailure(all)))
        }
        return .pending
    }

    static func dominantFailure(_ results: [ProbeResult]) -> ProbeReason {
        var counts: [ProbeReason: Int] = [:]
        var order: [ProbeReason] = []
        for r in results where r.outcome == .failed && r.reason != .cancelled {
            if counts[r.reason] == nil { order.append(r.reason) }
            counts[r.reason, default: 0] += 1
        }
        return order.max { counts[$0]! < counts[$1]! } ?? .timeout
    }
}

extension ProbeVerdict {
    /// One verdict from a check per address family. A portal that intercepts one family while the
    /// other is online is reported as partial (with that family's sign-in URL), never as online;
    /// a family with no connectivity at all says nothing about a portal, so the other decides.
    /// The RFC 8908 state, asked once, is kept.
    public static func combining(ipv4: ProbeVerdict, ipv6: ProbeVerdict) -> ProbeVerdict {
        var v: ProbeVerdict
        switch (ipv4.state, ipv6.state) {
        case (.online, .portal):
            v = ipv6
            v.state = .partial
            v.reason = .oneFamilyIntercepted("IPv6")
        case (.portal, .online):
            v = ipv4
            v.state = .partial
            v.reason = .oneFamilyIntercepted("IPv4")
        case (.none, .online), (.none, .portal), (.none, .partial):
            v = ipv6
        default:
            v = ipv4
        }
        v.capport = ipv4.capport ?? ipv6.capport
        return v
    }
}
