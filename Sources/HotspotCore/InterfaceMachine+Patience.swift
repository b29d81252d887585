// SPDX-License-Identifier: Apache-2.0
/// Patience with slow gateways, in the state machine: an authenticate that failed temporarily is
/// sent again within bounds, and a portal that showed itself only after the join is evaluated.
extension InterfaceMachine {
    /// The daemon saw a portal: with no helper signed in, the helpers are asked again (a portal
    /// that intercepted only after the join's evaluation, or that a slow gateway hid from it).
    mutating func portalDetected(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        let waiting = isWaitingForVerdict
        association?.awaitingVerdict = false
        guard state == .authenticated || waiting, let current = association, current.chosenHelper == nil,
            current.lateEvaluations < Self.lateEvaluationLimit
        else {
            // A join that waited for this verdict and may not be evaluated again is no longer pending.
            if waiting { enterAuthenticatedWithoutHelper(now: now, context: &context, effects: &effects) }
            return
        }
        association?.lateEvaluations += 1
        // "Not captive" was wrong evidence: the next join of this network must not trust it.
        if context.persistent.cache[current.network.key] == .notCaptive {
            context.removeFromCache(current.network.key)
        }
        startEvaluation(now: now, context: &context, effects: &effects)
    }

    /// Evaluation ended with no claim and the join has no connectivity verdict yet: evaluating,
    /// with no helper asked.
    var isWaitingForVerdict: Bool {
        state == .evaluating && arbiter == nil && association?.awaitingVerdict == true && outstanding.isEmpty
    }

    /// The daemon's checks gave the join its verdict: a network no helper claimed that waited
    /// for it is authenticated now, with no helper.
    mutating func connectivitySettled(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        let waiting = isWaitingForVerdict
        association?.awaitingVerdict = false
        if waiting { enterAuthenticatedWithoutHelper(now: now, context: &context, effects: &effects) }
    }

    /// The backoff after a temporary failure ended: authenticate goes to the chosen helper again.
    mutating func retryTimerFired(_ timer: TimerID, now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        guard timer == retryTimer, state == .authenticating, let chosen = association?.chosenHelper else { return }
        retryTimer = nil
        send(.authenticate, to: chosen, deadline: context.configuration.commandDeadline, now: now, context: &context, effects: &effects)
    }

    /// Temporary failure means "try again": the same helper is asked again after a backoff
    /// (`authenticateRetryDelay`, doubling), the interface staying joined and authenticating. Past
    /// `authenticateRetries` repeats, or when the next would start later than
    /// `authenticateRetryWindow` after the first failure, the interface is disconnected (auto-join
    /// unchanged) and the reason published.
    mutating func retryAuthenticate(
        after command: OutstandingCommand, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        guard let current = association else { return }
        let failures = current.temporaryFailures + 1
        let first = current.firstTemporaryFailure ?? now
        association?.temporaryFailures = failures
        association?.firstTemporaryFailure = first
        let configuration = context.configuration
        let delay = configuration.authenticateRetryDelay * (1 << min(failures - 1, 16))
        let retries = configuration.authenticateRetries
        guard failures <= retries, (now + delay) - first <= configuration.authenticateRetryWindow else {
            let spent = Int(((now - first).components.seconds))
            let why = failures > retries
                ? "sign-in by \(command.helper) failed temporarily \(failures) times (retries=\(retries))"
                : "sign-in by \(command.helper) still failing temporarily \(spent) s after its first temporary failure (window \(configuration.authenticateRetryWindow.components.seconds) s)"
            effects.append(.explain(interface, "\(why); disconnected, auto-join unchanged"))
            fail(disablingAutoconnect: false, context: &context, effects: &effects)
            return
        }
        let timer = context.makeTimer(.retryAuthenticate, on: interface)
        retryTimer = timer
        effects.append(.armTimer(timer, at: now + delay))
        effects.append(.explain(interface, "sign-in by \(command.helper) failed temporarily; trying again in \(Self.shown(delay)) (retry \(failures) of \(retries))"))
    }

    /// "2 s", "0.5 s".
    static func shown(_ d: Duration) -> String {
        let ms = Int64(d / .milliseconds(1))
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }
}
