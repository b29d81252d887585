// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import HotspotProtocol

/// Signing in before the desktop sees the connection.
///
/// NetworkManager checks connectivity as soon as a connection is ACTIVATED, and a desktop opens
/// its captive-portal window the moment that check says PORTAL, even when a helper is about to
/// sign in (GNOME Shell 43 keeps the window open after the sign-in). NetworkManager runs its pre-up
/// dispatcher scripts once the interface has its addresses and waits for them before announcing
/// ACTIVATED; the package's script calls `SettleJoin`, which starts the state machine on the
/// network at once and answers when it has settled. A sign-in then ends with NetworkManager
/// re-checking connectivity, so the connection is announced already online. Anything the daemon
/// cannot settle alone (the user is needed, no helper, a failure) is released at once, and
/// everything else at the bound: the join is never held longer.
///
/// What is decided is the core's ``JoinHoldBook`` (the calls, their bound, the early reports, the
/// links NetworkManager re-checked); the engine tells it what happens, keeps each waiting call's
/// continuation (`holdWaiters`) and carries out its ``JoinHoldBook/Answer``.
extension Engine {
    func settleJoin(_ name: InterfaceID) async -> JoinHoldOutcome {
        guard interfaces[name] != nil, let network else { return .notJoining }
        let started = ContinuousClock.now
        let id = joinHolds.begin(on: name, at: now)
        let bound = joinHolds.bound
        let deadline = start + (joinHolds.deadline(of: id) ?? now + bound).sinceEpoch
        // The bound is a child of this call: it ends (cancelled) as soon as the hold is answered.
        let outcome = await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled else { return }
                await self?.joinHoldBoundsPassed()
            }
            // The answer comes in order with NetworkManager's other events (joinReportedEarly).
            if await !network.reportJoinEarly(interface: name, token: id) { carryOut(joinHolds.reportUnavailable(id)) }
            let outcome = await withCheckedContinuation { (c: CheckedContinuation<JoinHoldOutcome, Never>) in
                holdWaiters[id] = c
                carryOut(joinHolds.waiting(id))
            }
            group.cancelAll()
            return outcome
        }
        let ms = (ContinuousClock.now - started).components
        let elapsed = ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000
        let state = interfaces[name]?.status?.state.rawValue ?? "inactive"
        switch outcome {
        case .timedOut:
            log.warning("\(name): released the join NetworkManager held for the daemon after the bound of \(bound) ([daemon] join-hold) while \(state)")
        case .notJoining:
            log.info("\(name): NetworkManager's pre-up hook asked, but the device is not being activated; nothing to hold")
        default:
            log.info("\(name): released the join NetworkManager held for the daemon after \(elapsed) ms: \(outcome.wireWord)")
        }
        return outcome
    }

    /// NetworkManager's client answered the request `token` to report a join early; every event
    /// before the answer has reached the engine.
    func joinReportedEarly(token: UInt64, reported: Bool) {
        guard let name = joinHolds.interface(of: token) else { return }
        carryOut(joinHolds.reportArrived(token, reported: reported, status: interfaces[name]?.status, link: link(name)))
    }

    /// Answers the holds on `name` whose join has settled, or (`askingRecheck`) asks
    /// NetworkManager for the re-check a held sign-in waits for.
    func checkHolds(_ name: InterfaceID, askingRecheck: Bool = true) {
        carryOut(joinHolds.check(name, status: interfaces[name]?.status, link: link(name), askingRecheck: askingRecheck))
    }

    /// The join on `name` was left: its holds end.
    func releaseHolds(left name: InterfaceID) {
        carryOut(joinHolds.left(name))
    }

    /// A call's bound passed: it ends, and any other whose bound has passed with it.
    func joinHoldBoundsPassed() {
        carryOut(joinHolds.due(at: now))
    }

    /// Resumes the calls the book ended and asks NetworkManager for the re-check it wants.
    func carryOut(_ answer: JoinHoldBook.Answer) {
        for release in answer.resume { holdWaiters.removeValue(forKey: release.call)?.resume(returning: release.outcome) }
        if let recheck = answer.recheck { recheckNetworkManager(recheck.interface, link: recheck.link) }
    }

    /// A helper signed in (or signed in again): NetworkManager is asked to check connectivity now
    /// rather than at its next interval, so the desktop hears "full" within a second.
    func recheckNetworkManager(_ name: InterfaceID) {
        guard network != nil, let link = link(name) else { return }
        joinHolds.recheckAsked(name, link: link)
        recheckNetworkManager(name, link: link)
    }

    private func recheckNetworkManager(_ name: InterfaceID, link: UInt64) {
        guard let network else { return }
        networkEffects.enqueue(lane: name.rawValue) { [weak self, log] in
            do {
                let verdict = try await network.recheckConnectivity()
                log.info("\(name): NetworkManager re-checked connectivity after the sign-in: \(verdict)")
            } catch {
                log.warning("\(name): could not have NetworkManager re-check connectivity after the sign-in: \(error)")
            }
            await self?.networkManagerRechecked(name, link: link)
        }
    }

    func networkManagerRechecked(_ name: InterfaceID, link: UInt64) {
        carryOut(joinHolds.rechecked(name, link: link, status: interfaces[name]?.status, current: self.link(name)))
    }
}
