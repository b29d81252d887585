// SPDX-License-Identifier: Apache-2.0
/// One interface's scan list and the filter-scan-list rounds about it.
struct ScanListState: Sendable {
    /// The latest scan list.
    var networks: [Network] = []
    /// When the last round went out.
    var lastRoundAt: Instant?
    /// Armed when a change arrived too soon after the last round.
    var coalescingTimer: TimerID?
    /// Filter-scan-list commands awaiting an answer.
    var outstanding: [CommandToken: OutstandingCommand] = [:]
    /// Each helper's latest claims.
    var claims: [HelperID: [ScanClaim]] = [:]
    /// The published, annotated scan list.
    var annotated: [AnnotatedNetwork] = []
}

// Filter-scan-list is out of band (Apple: "at any time, in addition to a state machine command"):
// it runs in every state, never changes the state, and its commands are tracked apart from the
// state machine's. Rounds are coalesced to at most one per filter interval per interface.
extension InterfaceMachine {
    mutating func scanListChanged(
        _ networks: [Network], now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        scanList.networks = networks
        // Publish at once with the claims already known; fresh claims follow the next round.
        republishScanList(context: context, effects: &effects)
        requestScanListRound(now: now, context: &context, effects: &effects)
    }

    mutating func requestScanListRound(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        guard scanList.coalescingTimer == nil else { return }
        if let last = scanList.lastRoundAt, now < last + context.configuration.filterScanListInterval {
            let timer = context.makeTimer(.filterScanList, on: interface)
            scanList.coalescingTimer = timer
            effects.append(.armTimer(timer, at: last + context.configuration.filterScanListInterval))
        } else {
            startScanListRound(now: now, context: &context, effects: &effects)
        }
    }

    mutating func startScanListRound(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        guard !scanList.networks.isEmpty else { return }
        scanList.lastRoundAt = now
        let busy = Set(scanList.outstanding.values.map(\.helper))
        for helper in context.registry.inRegistrationOrder where helper.filtersScanLists {
            // A helper still busy with the previous round keeps one command at a time; its answer
            // still counts.
            guard !busy.contains(helper.identifier) else { continue }
            let sent = issue(
                .filterScanList, to: helper.identifier, deadline: context.configuration.filterScanListDeadline,
                now: now, context: &context, effects: &effects)
            scanList.outstanding[sent.request.token] = sent
        }
    }

    mutating func scanListAnswered(
        by helper: HelperID, claims: [ScanClaim],
        context: CoreContext, effects: inout [HotspotEffect]
    ) {
        let kept = claims.filter { $0.confidence > .none }
        scanList.claims[helper] = kept.isEmpty ? nil : kept
        republishScanList(context: context, effects: &effects)
    }

    mutating func scanListHelperDeparted(_ helper: HelperID, context: inout CoreContext, effects: inout [HotspotEffect]) {
        for (token, command) in scanList.outstanding.sorted(by: { $0.key < $1.key }) where command.helper == helper {
            scanList.outstanding[token] = nil
            end(command, as: .helperLeft, timerFired: false, context: &context, effects: &effects)
        }
        if scanList.claims.removeValue(forKey: helper) != nil {
            republishScanList(context: context, effects: &effects)
        }
    }

    mutating func endScanListCommands(context: inout CoreContext, effects: inout [HotspotEffect]) {
        for (_, command) in scanList.outstanding.sorted(by: { $0.key < $1.key }) {
            end(command, as: .cancelled, timerFired: false, context: &context, effects: &effects)
        }
        scanList.outstanding = [:]
        if let timer = scanList.coalescingTimer { effects.append(.cancelTimer(timer)) }
        scanList.coalescingTimer = nil
    }

    private mutating func republishScanList(context: CoreContext, effects: inout [HotspotEffect]) {
        let claims = scanList.claims.compactMap { helper, claims in
            context.registry[helper].map { (helper: $0, claims: claims) }
        }
        let annotated = ScanListAnnotator(claims: claims).annotate(scanList.networks)
        guard annotated != scanList.annotated else { return }
        scanList.annotated = annotated
        effects.append(.publishScanList(interface, annotated))
    }

    /// The password the winning claim supplies for an SSID, for the secret agent.
    func password(for ssid: SSID, context: CoreContext) -> Password? {
        // NetworkManager asks for a profile's password by SSID, whichever access point it joins:
        // a claim made for one BSSID of the network supplies it too.
        let claims = scanList.claims.compactMap { helper, claims in
            context.registry[helper].map { registered in
                (helper: registered, claims: claims.filter { $0.ssid == ssid }.map {
                    ScanClaim(ssid: $0.ssid, confidence: $0.confidence, password: $0.password)
                })
            }
        }
        return ScanListAnnotator(claims: claims).annotation(for: Network(ssid: ssid))?.password
    }
}
