// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity
import FoundationEssentials
import HotspotCore
import NetworkManager
import Synchronization

/// Probes each joined Wi-Fi link through that link (bound to the interface, resolving through its
/// DNS servers) and publishes the verdict on the interface object: when it joins, after a sign-in,
/// then on the Connectivity module's schedule (backoff while not online, the interval while online,
/// hysteresis before leaving online). RFC 8908 sessions tell the core when maintain must run.
/// The endpoints, and whether the schedule runs at all, come from the ``ProbePolicy``: without
/// periodic checks a link is probed when it joins, after a sign-in and when a helper asks.
/// The RFC 8908 API of a link is its profile's `capport-url`, else the one the network announces
/// (RFC 8910) in its IPv6 Router Advertisements (option 37, heard through rtnetlink) or in DHCP
/// option 114 (asked for with a DHCPINFORM when the link joins, since NetworkManager does not
/// ask), else `[connectivity] capport-url`.
actor ConnectivityMonitor {
    let settings: ConnectivitySettings
    private(set) var checker: ConnectivityChecker
    private(set) var policy: ConnectivityProbePolicy
    let dnsLookup: @Sendable (String) async -> [String]
    let capportURL: @Sendable (SSID) -> String?
    let dhcpLease: @Sendable (String) async -> DHCPv4Lease?
    /// The captive-portal option of IPv6 Router Advertisements (RFC 8910 §2.3); nil when the
    /// daemon could not listen for it.
    let routerAdvertisements: RouterAdvertisementWatch?
    let log: @Sendable (String) -> Void
    /// Where every check's verdict goes (the engine's connectivity service reads it).
    let reports: AsyncStream<ConnectivityReport>.Continuation?

    private struct Link {
        /// The engine's number for this join (its `LinkNumbering`, `Engine.link(_:)`), carried by the link's reports.
        var id: UInt64
        var ssid: SSID
        var schedule: ConnectivitySchedule
        var capport: CaptivePortalAPIClient?
        /// The DHCPINFORM under way (RFC 8910); checks wait for it so the first one can use the API.
        var discovery: Task<Void, Never>?
        var loop: Task<Void, Never>?
        var inflight: (task: Task<ProbeVerdict, Never>, started: ContinuousClock.Instant)?
        var last: (verdict: ProbeVerdict, at: ContinuousClock.Instant)?
        /// When the link joined, for ``JoinPatience``.
        var joinedAt: ContinuousClock.Instant
        var patience: JoinPatience
        /// Whether the join has its verdict: a definite one (online, portal, partial), or
        /// nothing but "none" for ``ConnectivityMonitor/unsettledWindow``.
        var settled = false
        /// How long a check of this link waits for a probe's answer: the probe timeout at first,
        /// doubled after each timeout while unsettled, up to ``ConnectivityMonitor/slowAnswerCap``.
        var limit: Duration
        /// The lead probe of the link (unsettled, or slow and not online), in flight; it may be an
        /// earlier check's, whose answer counts when it comes.
        var lead: (task: Task<ProbeVerdict, Never>, started: ContinuousClock.Instant)?
        /// The gateway was slow (a lead answered late or not within the limit): until the link is
        /// online, checks send the lead probe alone and come no sooner than `limit` apart, so the
        /// helpers' sign-in requests do not queue behind probes.
        var slow = false
        /// The last lead was waited for to the cap and never answered: that wait was the spacing,
        /// the next lead goes out at once rather than after the backoff.
        var leadTimedOut = false
    }
    private var links: [String: Link] = [:]
    private let origin = ContinuousClock.now

    /// How long after a join "no answer" is not taken as the join's verdict: checks go on, at
    /// most `unsettledBackoffCap` apart, and the link is reported unsettled.
    static let unsettledWindow: Duration = .seconds(300)
    /// The longest wait between checks of an unsettled link.
    static let unsettledBackoffCap: Duration = .seconds(30)
    /// NetworkManager's own connectivity-check timeout (`NM_CONFIG_DEFAULT_CONNECTIVITY_TIMEOUT`).
    static let networkManagerCheckTimeout: Duration = .seconds(20)

    /// The longest a probe of an unsettled link is waited for: NetworkManager's check timeout,
    /// or a longer `probe-timeout` (a site whose gateway is known to be slower).
    var slowAnswerCap: Duration { max(Self.networkManagerCheckTimeout, settings.probeTimeout) }

    /// `policy` defaults to the configured probes (or the built-in set), checked periodically.
    init(settings: ConnectivitySettings, policy: ConnectivityProbePolicy? = nil, dnsLookup: @escaping @Sendable (String) async -> [String],
         capportURL: @escaping @Sendable (SSID) -> String?,
         dhcpLease: @escaping @Sendable (String) async -> DHCPv4Lease? = { _ in nil },
         routerAdvertisements: RouterAdvertisementWatch? = nil,
         log: @escaping @Sendable (String) -> Void = { _ in }, reports: AsyncStream<ConnectivityReport>.Continuation? = nil) {
        self.reports = reports
        self.routerAdvertisements = routerAdvertisements
        self.settings = settings
        let policy = policy ?? ConnectivityProbePolicy.decide(configured: settings.probes, networkManager: nil)
        self.policy = policy
        self.checker = Self.checker(settings, policy)
        self.dnsLookup = dnsLookup
        self.capportURL = capportURL
        self.dhcpLease = dhcpLease
        self.log = log
    }

    private static func checker(_ settings: ConnectivitySettings, _ policy: ConnectivityProbePolicy) -> ConnectivityChecker {
        // The connect and DNS bounds are the probe's own: a gateway that takes 8 s to accept is
        // an answer coming, not a failure at 3 s.
        var transfer = TransferOptions(timeout: settings.probeTimeout, connectTimeout: settings.probeTimeout)
        transfer.caFile = settings.caFile
        return ConnectivityChecker(configuration: ConnectivityConfiguration(probes: policy.probes, transfer: transfer))
    }

    /// Follows NetworkManager's own connectivity-check setting: when the policy changes, new
    /// endpoints serve the next check and periodic checks start or stop on every joined link.
    /// Returns the new policy, or nil when it did not change.
    func follow(networkManager check: NetworkManagerCheck?) -> ConnectivityProbePolicy? {
        let next = ConnectivityProbePolicy.decide(configured: settings.probes, networkManager: check)
        guard next != policy else { return nil }
        policy = next
        checker = Self.checker(settings, next)
        for interface in links.keys {
            if next.periodic { restartLoop(interface) } else { links[interface]?.loop?.cancel() }
        }
        return next
    }

    /// The published (hysteresis-smoothed) state of a link, once checked.
    func published(_ interface: String) -> ProbeVerdict.State? {
        links[interface]?.schedule.published
    }

    private var elapsed: Duration { ContinuousClock.now - origin }

    /// The link joined `ssid` (the engine's link `id`): check it now and keep checking.
    func joined(_ interface: String, ssid: SSID, link id: UInt64) {
        if let link = links[interface], link.ssid == ssid {
            links[interface]?.id = id
            return
        }
        stopChecking(interface)
        let fromProfile = capportURL(ssid)
        let api = fromProfile ?? settings.capportURL
        let schedule = ConnectivitySchedule(configuration: .init(interval: settings.interval))
        links[interface] = Link(id: id, ssid: ssid, schedule: schedule, capport: api.map(apiClient), joinedAt: ContinuousClock.now,
                                patience: JoinPatience(bound: settings.joinPatience), limit: settings.probeTimeout)
        if fromProfile == nil {
            // Outlives joined(): owned by the link (cancelled when it is left), and awaited by checks.
            links[interface]?.discovery = Task { [weak self] in await self?.discoverCaptivePortalAPI(interface, ssid: ssid) }
        }
        restartLoop(interface)
    }

    private func apiClient(_ url: String) -> CaptivePortalAPIClient {
        var transfer = checker.configuration.transfer
        transfer.maxBodyBytes = 64 * 1024
        return CaptivePortalAPIClient(url: url, options: transfer)
    }

    /// RFC 8910: asks the link's DHCP server (a DHCPINFORM from the lease address, unicast to
    /// the server identifier, else broadcast) for option 114 and, with an https URI, uses it as
    /// the link's RFC 8908 API. Every outcome is logged once; the link keeps its API otherwise.
    private func discoverCaptivePortalAPI(_ interface: String, ssid: SSID) async {
        // The RA usually arrives while NetworkManager is still activating: it is known already.
        if heardFromRouterAdvertisement(interface) { return }
        guard let lease = await dhcpLease(interface) else {
            log("\(interface): no DHCPv4 lease reported by NetworkManager; not asking for the RFC 8910 captive-portal URI")
            return
        }
        var query = DHCPInformQuery(interface: settings.bindInterface ? interface : nil, clientAddress: lease.address, server: lease.serverIdentifier)
        query.timeout = .seconds(3)
        let result = await DHCPInform.ask(query)
        guard links[interface]?.ssid == ssid else { return }
        switch result {
        case .success(.api(let url)):
            log("\(interface): RFC 8910: DHCP option 114 names the RFC 8908 API \(UntrustedText.forLog(url))")
            links[interface]?.capport = apiClient(url)
            return
        case .success(.unrestricted):
            log("\(interface): RFC 8910: DHCP option 114 says there is no captive portal (\(DHCPInform.unrestricted))")
            return
        case .success(.none):
            log("\(interface): RFC 8910: the DHCP server's answer has no captive-portal URI (option 114)")
        case .failure(let e):
            log("\(interface): RFC 8910: no captive-portal URI from DHCP: \(UntrustedText.forLog(e.description))")
        }
        // An RA may have come while DHCP was asked.
        _ = heardFromRouterAdvertisement(interface)
    }

    /// Uses the captive-portal option the link's Router Advertisements carried, if one was heard;
    /// true when it settled the question (an API, or "unrestricted").
    private func heardFromRouterAdvertisement(_ interface: String) -> Bool {
        switch routerAdvertisements?.captivePortal(interface: interface) {
        case .success(.api(let url)):
            log("\(interface): RFC 8910: the IPv6 Router Advertisement names the RFC 8908 API \(UntrustedText.forLog(url))")
            links[interface]?.capport = apiClient(url)
            return true
        case .success(.unrestricted):
            log("\(interface): RFC 8910: the IPv6 Router Advertisement says there is no captive portal (\(DHCPInform.unrestricted))")
            return true
        case .failure(let problem):
            log("\(interface): RFC 8910: the IPv6 Router Advertisement's captive-portal option was not used: \(UntrustedText.forLog(problem.description))")
            return false
        case .success(.none), nil:
            return false
        }
    }

    /// The API the link is checked with: profile, announced or configured.
    func captivePortalAPI(_ interface: String) async -> String? {
        if let d = links[interface]?.discovery { await d.value }
        return links[interface]?.capport?.url
    }

    /// The link left its network: stop checking it.
    func left(_ interface: String) {
        // What its Router Advertisements said belonged to that network; the next one announces its own.
        routerAdvertisements?.forget(interface: interface)
        stopChecking(interface)
    }

    private func stopChecking(_ interface: String) {
        guard let link = links.removeValue(forKey: interface) else { return }
        link.loop?.cancel()
        link.discovery?.cancel()
        link.lead?.task.cancel()
    }

    /// NetworkManager's own connectivity changed: a link still without a verdict is checked now.
    func networkManagerConnectivityChanged() {
        for (interface, link) in links where !link.settled {
            log("\(interface): NetworkManager's connectivity changed; checking again now (no verdict yet for this join)")
            recheckSoon(interface)
        }
    }

    /// Whether a check of the link sends the lead probe alone: until the join has its verdict,
    /// and while a slow gateway has not let the link online.
    func needsLead(_ interface: String) -> Bool {
        guard let link = links[interface] else { return false }
        return !link.settled || (link.slow && link.schedule.published != .online)
    }

    /// Whether an unsettled link's lead probe is still out.
    func leadInFlight(_ interface: String) -> Bool { links[interface]?.lead != nil }

    /// Whether the link's join has its verdict (``Link/settled``).
    func isSettled(_ interface: String) -> Bool { links[interface]?.settled ?? true }

    /// How long a request on the link may wait for an answer: twice the cap once its gateway was
    /// slow — at a gateway serving one request at a time a sign-in page may queue behind one of
    /// our probes and one of NetworkManager's own checks (the lab saw an accept abandoned at 20 s
    /// that the gateway then carried out).
    func answerLimit(_ interface: String) -> Duration {
        guard let link = links[interface] else { return settings.probeTimeout }
        return link.slow ? slowAnswerCap * 2 : link.limit
    }

    /// Check again soon (after a sign-in or a maintain): backoff restarts.
    func recheckSoon(_ interface: String) {
        guard links[interface] != nil else { return }
        links[interface]?.schedule.recheckSoon(at: elapsed)
        restartLoop(interface)
    }

    private func restartLoop(_ interface: String) {
        links[interface]?.loop?.cancel()
        // Outlives its caller: the link's check loop, owned by the link and cancelled when it is left
        // or the loop restarts.
        links[interface]?.loop = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let delay = await self.delayBeforeNextCheck(interface)
                if delay > .zero { try? await Task.sleep(for: delay) }
                if Task.isCancelled { return }
                _ = await self.scheduledVerdict(for: interface)
                // Without periodic checks (ProbePolicy), this was the join's or the sign-in's check,
                // once the join has its verdict.
                if await !self.policy.periodic, await self.isSettled(interface) { return }
            }
        }
    }

    /// The schedule's check. Before the join's verdict, a tick that finds the join's check under
    /// way takes its answer: a gateway that serves one request at a time is not sent another
    /// probe the moment it answered one. Otherwise (and after the verdict) a check of its own.
    private func scheduledVerdict(for interface: String) async -> ProbeVerdict {
        if !isSettled(interface), let running = links[interface]?.inflight { return await running.task.value }
        return await verdict(for: interface, fresh: true)
    }

    private func delayBeforeNextCheck(_ interface: String) -> Duration {
        guard let link = links[interface] else { return .seconds(3600) }
        return link.schedule.nextCheck - elapsed
    }

    /// The DNS servers for a link: NetworkManager's, else the configured ones.
    func dnsServers(_ interface: String) async -> [String] {
        let fromNM = await dnsLookup(interface)
        return fromNM.isEmpty ? settings.dnsServers : fromNM
    }

    /// The verdict for a link: the check under way, one younger than 2 s, or (with `fresh`, or
    /// none recent) a new check. A fresh verdict comes from a check that started after it was
    /// asked for: one already under way may predate what the caller just did (a sign-in), so it
    /// is waited for and not used. (The lab found this: the profile helper's verdict after a
    /// sign-in joined the schedule's check started before the accept, read "still behind the
    /// portal", and a successful sign-in became a failure with autoconnect switched off.)
    func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict {
        let asked = ContinuousClock.now
        while let running = links[interface]?.inflight {
            if !fresh || running.started >= asked { return await running.task.value }
            _ = await running.task.value
            // Let the check's owner record it before looking again.
            if links[interface]?.inflight?.task == running.task { await Task.yield() }
        }
        if !fresh, let last = links[interface]?.last, ContinuousClock.now - last.at < .seconds(2) { return last.verdict }
        if let discovery = links[interface]?.discovery { await discovery.value }
        let capport = links[interface]?.capport
        let bind = settings.bindInterface ? interface : nil
        let checker = self.checker
        let dns = await dnsServers(interface)
        if let running = links[interface]?.inflight { return await running.task.value }  // started after `asked`
        // A link with IPv4 and IPv6 is checked once per family: a portal on one only is partial.
        let bothFamilies = LinkFamilies.of(interface).count == 2
        let full: @Sendable () async -> ProbeVerdict = {
            bothFamilies ? await checker.checkBothFamilies(interface: bind, dnsServers: dns, capport: capport)
                         : await checker.check(interface: bind, dnsServers: dns, capport: capport)
        }
        // Until the join has a verdict (and while a slow gateway keeps the link behind its portal),
        // one probe leads (docs/CONNECTIVITY.md, "Gateways slower than the probes"): a gateway
        // that serves one request at a time is not sent a burst, and its late answer counts. The
        // RFC 8908 API, when there is one, decides instead.
        let once: @Sendable () async -> ProbeVerdict = { [weak self] in
            guard let self, capport == nil, await self.needsLead(interface) else { return await full() }
            return await self.leadCheck(interface, bind: bind, dns: dns, full: full)
        }
        // Refused or timed out in the join's first seconds: checked again until something definite
        // answers (JoinPatience); whoever asks meanwhile waits for that answer.
        // Outlives this caller on purpose: the check in flight is the link's (`inflight`), shared by
        // everyone who asks meanwhile, and ends by the probe timeout.
        let task = Task { [weak self] () -> ProbeVerdict in
            var verdict = await once()
            while let self, let delay = await self.patienceDelay(interface, after: verdict) {
                // A lead probe still out is waited for at once: its answer is the next check's.
                if await !self.leadInFlight(interface) { try? await Task.sleep(for: delay) }
                if Task.isCancelled { break }
                verdict = await once()
            }
            return await self?.settle(interface, verdict) ?? verdict
        }
        guard links[interface] != nil else { return await task.value }
        links[interface]?.inflight = (task, ContinuousClock.now)
        let verdict = await task.value
        guard links[interface]?.inflight?.task == task else { return verdict }
        links[interface]?.inflight = nil
        links[interface]?.last = (verdict, ContinuousClock.now)
        let settled = settledAfter(interface, verdict)
        links[interface]?.schedule.record(verdict.state, at: elapsed, unsettled: !settled)
        if !settled, links[interface]?.leadTimedOut == true {
            links[interface]?.leadTimedOut = false
            links[interface]?.schedule.checkAgain(after: .milliseconds(500), at: elapsed)
        } else if links[interface]?.lead != nil {
            // The lead is still out: the next check waits for its answer, it sends nothing.
            links[interface]?.schedule.checkAgain(after: .milliseconds(500), at: elapsed)
        } else if let link = links[interface], link.slow, settled, verdict.state != .online {
            // A slow gateway whose portal is known (the helpers are signing in) is not sent a
            // probe every second; before the verdict, checks follow the join's backoff.
            links[interface]?.schedule.postpone(until: elapsed + link.limit * 3)
        }
        let published = links[interface]?.schedule.published ?? verdict.state
        if let id = links[interface]?.id {
            reports?.yield(ConnectivityReport(interface: InterfaceID(interface), link: id, verdict: verdict, published: published, settled: settled))
        }
        return verdict
    }
}

extension ConnectivityMonitor {
    fileprivate func patienceDelay(_ interface: String, after verdict: ProbeVerdict) -> Duration? {
        guard let link = links[interface] else { return nil }
        let delay = links[interface]?.patience.retryDelay(after: verdict, sinceJoin: ContinuousClock.now - link.joinedAt)
        if let delay {
            log("\(interface): no connectivity yet (\(UntrustedText.forLog("\(verdict.reason)"))); checking again in \(delay) (the gateway may still be letting this client in)")
        }
        return delay
    }

    fileprivate func settle(_ interface: String, _ verdict: ProbeVerdict) -> ProbeVerdict {
        links[interface]?.patience.settle(verdict) ?? verdict
    }
    /// Records whether the join has its verdict: a definite one, or none for `unsettledWindow`.
    fileprivate func settledAfter(_ interface: String, _ verdict: ProbeVerdict) -> Bool {
        guard let link = links[interface] else { return true }
        if link.settled { return true }
        let since = ContinuousClock.now - link.joinedAt
        if JoinPatience.isDefinite(verdict) {
            log("\(interface): verdict \(verdict.state.rawValue) \(Self.shown(since)) after the join")
        } else if since >= Self.unsettledWindow {
            log("\(interface): still no answer \(Self.shown(since)) after the join; taking \"none\" as the verdict")
        } else {
            return false
        }
        links[interface]?.settled = true
        links[interface]?.lead?.task.cancel()
        links[interface]?.lead = nil
        return true
    }

    /// One check of an unsettled link: the lead probe alone (the one in flight, whoever started
    /// it, or a new one), waited for up to the link's limit. A portal or a failure is the
    /// check's answer; online is confirmed by every probe (partial is told apart there).
    fileprivate func leadCheck(_ interface: String, bind: String?, dns: [String],
                               full: @escaping @Sendable () async -> ProbeVerdict) async -> ProbeVerdict {
        guard let link = links[interface] else { return await full() }
        let lead: (task: Task<ProbeVerdict, Never>, started: ContinuousClock.Instant)
        if let running = link.lead {
            lead = running
        } else {
            let probes = policy.probes
            guard let probe = probes.first(where: { !$0.isHTTPS }) ?? probes.first else { return await full() }
            // The transfer itself may take up to the cap: an answer after this check's wait is
            // still taken by the next one.
            var configuration = checker.configuration
            configuration.probes = [probe]
            configuration.transfer.timeout = slowAnswerCap
            configuration.transfer.connectTimeout = slowAnswerCap
            let single = ConnectivityChecker(configuration: configuration, transport: checker.transport)
            // Outlives this check on purpose: the link's lead, cancelled when the link settles or is left.
            lead = (Task { await single.check(interface: bind, dnsServers: dns) }, ContinuousClock.now)
            links[interface]?.lead = lead
        }
        let wait = link.limit - (ContinuousClock.now - lead.started)
        let answer = await Self.value(of: lead.task, within: max(wait, .milliseconds(100)))
        guard let answer else {
            let waited = ContinuousClock.now - lead.started
            let next = min(link.limit * 2, slowAnswerCap)
            links[interface]?.limit = next
            links[interface]?.slow = true
            log("\(interface): no answer from the gateway after \(Self.shown(waited)); waiting for the probe in flight (up to \(Self.shown(slowAnswerCap))) rather than sending more, next wait \(Self.shown(next))")
            return ProbeVerdict(state: .none, reason: .timeout, results: [], successes: 0, total: 1, elapsed: waited)
        }
        if links[interface]?.lead?.task == lead.task { links[interface]?.lead = nil }
        let took = ContinuousClock.now - lead.started
        if answer.state == .none, answer.reason == .timeout { links[interface]?.leadTimedOut = true }
        if answer.state != .none, took > settings.probeTimeout / 2 {
            // A slow gateway: what follows (the sign-in's pages) gets as long as this answer took, twice.
            links[interface]?.limit = min(max(link.limit, took * 2), slowAnswerCap)
            links[interface]?.slow = true
        }
        if answer.state != .none || took > settings.probeTimeout {
            let what = answer.state == .none ? "the lead probe ended" : "the gateway answered the lead probe"
            log("\(interface): \(what) after \(Self.shown(took)): \(answer.state.rawValue) (\(UntrustedText.forLog("\(answer.reason)")))")
        }
        guard answer.state == .online else { return answer }
        return await full()
    }

    /// `task`'s value, or nil when it is not in within `limit` (the task runs on).
    fileprivate static func value(of task: Task<ProbeVerdict, Never>, within limit: Duration) async -> ProbeVerdict? {
        let once = OnceResume()
        return await withCheckedContinuation { (c: CheckedContinuation<ProbeVerdict?, Never>) in
            once.set(c)
            // Both end on their own: the waiter with the lead (bounded by the cap), the timer at `limit`.
            Task { let v = await task.value; once.resume(v) }
            Task { try? await Task.sleep(for: limit); once.resume(nil) }
        }
    }

    /// "2 s", "7.5 s".
    static func shown(_ d: Duration) -> String {
        let ms = Int64(d / .milliseconds(100)) * 100
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }
}

/// Resumes a continuation once, with the first value offered.
private final class OnceResume: Sendable {
    private let state = Mutex<(CheckedContinuation<ProbeVerdict?, Never>?, Bool)>((nil, false))
    func set(_ c: CheckedContinuation<ProbeVerdict?, Never>) { state.withLock { $0.0 = c } }
    func resume(_ v: ProbeVerdict?) {
        let c = state.withLock { s -> CheckedContinuation<ProbeVerdict?, Never>? in
            guard !s.1, let c = s.0 else { return nil }
            s.1 = true
            return c
        }
        c?.resume(returning: v)
    }
}
