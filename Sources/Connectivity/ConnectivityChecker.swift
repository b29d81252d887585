// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Synchronization

/// What a checker probes and how it decides.
public struct ConnectivityConfiguration: Sendable, Hashable {
    /// The probes, run in parallel.
    public var probes: [ConnectivityProbe]
    /// How results become a verdict.
    public var policy: VerdictPolicy
    /// Transfer limits for every probe; `interface` and `dnsServers` are replaced per check.
    public var transfer: TransferOptions

    /// A configuration (default: `ConnectivityProbe.defaultSet`, 50 %, 5 s per probe).
    public init(probes: [ConnectivityProbe] = ConnectivityProbe.defaultSet, policy: VerdictPolicy = VerdictPolicy(),
                transfer: TransferOptions = TransferOptions()) {
        self.probes = probes
        self.policy = policy
        self.transfer = transfer
    }
}

/// Runs connectivity checks: every probe in parallel, each on its own thread with its own libcurl
/// handle, bound to the interface being checked and resolving through that link's DNS servers.
/// The verdict is returned as soon as it is settled; probes still running are cancelled and end
/// in the background.
public struct ConnectivityChecker: Sendable {
    /// The configuration.
    public var configuration: ConnectivityConfiguration
    /// Where the probes go (libcurl on the link in the daemon; a script in tests).
    public let transport: any HTTPTransport

    /// A checker.
    public init(configuration: ConnectivityConfiguration = ConnectivityConfiguration(), transport: any HTTPTransport = CurlTransport()) {
        self.configuration = configuration
        self.transport = transport
    }

    /// Checks connectivity through `interface` (nil: the default route) with names resolved by
    /// `dnsServers` (empty: the system resolver). With `capport`, the RFC 8908 API is queried in
    /// parallel: captive=true decides "portal" with its user-portal-url; its state (or the last
    /// valid one) is attached to the verdict either way.
    public func check(interface: String?, dnsServers: [String], capport: CaptivePortalAPIClient? = nil) async -> ProbeVerdict {
        var options = configuration.transfer
        options.interface = interface
        options.dnsServers = dnsServers
        let run = CheckRun(probes: configuration.probes, policy: configuration.policy, expectCapport: capport != nil)
        let capportTask: Task<Void, Never>? = capport.map { client in
            Task {
                let answer = await client.fetch(interface: interface, dnsServers: dnsServers)
                run.recordCapport(answer.status)
            }
        }
        defer { capportTask?.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<ProbeVerdict, Never>) in
                run.start(options: options, transport: transport, continuation: c)
            }
        } onCancel: {
            run.finish(force: true)
        }
    }
}

extension ConnectivityChecker {
    /// Checks a link that has both IPv4 and IPv6 once per family (each probe held to that family),
    /// the RFC 8908 API asked once, and combines the two verdicts (``ProbeVerdict/combining(ipv4:ipv6:)``).
    public func checkBothFamilies(interface: String?, dnsServers: [String], capport: CaptivePortalAPIClient? = nil) async -> ProbeVerdict {
        var v4 = self, v6 = self
        v4.configuration.transfer.addressFamily = .ipv4
        v6.configuration.transfer.addressFamily = .ipv6
        async let a = v4.check(interface: interface, dnsServers: dnsServers, capport: capport)
        async let b = v6.check(interface: interface, dnsServers: dnsServers)
        return ProbeVerdict.combining(ipv4: await a, ipv6: await b)
    }
}

/// One check in flight. Probe threads, the grace timer and cancellation all reach it, so its
/// state is behind a mutex; the continuation is resumed exactly once.
final class CheckRun: Sendable {
    private struct State {
        var aggregator: VerdictAggregator
        var continuation: CheckedContinuation<ProbeVerdict, Never>?
        var jobs: [any TransferHandle] = []
        var graceTimer: Task<Void, Never>?
        var done = false
        var earlyFinish = false
    }
    private let state: Mutex<State>
    private let started = ContinuousClock.now
    private let probes: [ConnectivityProbe]
    private let grace: Duration?
    private let graceFloor: Duration

    init(probes: [ConnectivityProbe], policy: VerdictPolicy, expectCapport: Bool) {
        self.probes = probes
        self.grace = policy.grace
        self.graceFloor = policy.graceFloor
        state = Mutex(State(aggregator: VerdictAggregator(probes: probes, policy: policy, expectCapport: expectCapport)))
    }

    private var elapsed: Duration { ContinuousClock.now - started }

    func start(options: TransferOptions, transport: any HTTPTransport, continuation: CheckedContinuation<ProbeVerdict, Never>) {
        let alreadyFinished = state.withLock { s -> Bool in
            s.continuation = continuation
            return s.earlyFinish
        }
        if alreadyFinished || probes.isEmpty { finish(force: true); return }
        var jobs: [any TransferHandle] = []
        for (i, probe) in probes.enumerated() {
            jobs.append(transport.start(HTTPRequestSpec(url: probe.url), options: options) { [self] result in
                record(i, ProbeClassifier.classify(probe, result, elapsed: elapsed))
            })
        }
        let cancelNow = state.withLock { s -> Bool in
            s.jobs = jobs
            return s.done
        }
        if cancelNow { jobs.forEach { $0.cancel() } }
    }

    func record(_ index: Int, _ result: ProbeResult) {
        state.withLock { s in s.aggregator.record(index, result) }
        evaluate()
    }

    func recordCapport(_ status: CaptivePortalStatus?) {
        state.withLock { s in s.aggregator.recordCapport(status) }
        evaluate()
    }

    private func evaluate() {
        let decision = state.withLock { s -> VerdictAggregator.Decision? in
            s.done ? nil : s.aggregator.evaluate(elapsed: elapsed)
        }
        switch decision {
        case .decided(let v): complete(v)
        case .settledButForPendingHTTP: startGraceTimer()
        case .pending, nil: break
        }
    }

    private func startGraceTimer() {
        guard let ceiling = grace else { return }
        let grace = min(ceiling, max(graceFloor, elapsed))
        state.withLock { s in
            guard s.graceTimer == nil, !s.done else { return }
            s.graceTimer = Task { [self] in
                try? await Task.sleep(for: grace)
                if !Task.isCancelled { finish(force: true) }
            }
        }
    }

    /// Decides with what has arrived.
    func finish(force: Bool) {
        let verdict = state.withLock { s -> ProbeVerdict? in
            if s.continuation == nil { s.earlyFinish = true; return nil }
            guard !s.done else { return nil }
            if case .decided(let v) = s.aggregator.evaluate(elapsed: elapsed, force: force) { return v }
            return nil
        }
        if let verdict { complete(verdict) }
    }

    private func complete(_ verdict: ProbeVerdict) {
        let (continuation, jobs, timer) = state.withLock { s -> (CheckedContinuation<ProbeVerdict, Never>?, [any TransferHandle], Task<Void, Never>?) in
            guard !s.done else { return (nil, [], nil) }
            s.done = true
            defer { s.continuation = nil }
            return (s.continuation, s.jobs, s.graceTimer)
        }
        guard let continuation else { return }
        timer?.cancel()
        jobs.forEach { $0.cancel() }
        continuation.resume(returning: verdict)
    }
}
