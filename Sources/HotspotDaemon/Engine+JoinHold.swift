// SPDX-License-Identifier: Apache-2.0
import HotspotCore

/// A `SettleJoin` call's request that NetworkManager's client report the join early, until
/// its answer reaches the engine in order with NetworkManager's other events.
///
/// The answer must come that way: the dispatcher runs right after NetworkManager announced the
/// activation (often right after a leave, when it switches networks), and the engine may not
/// have heard those events yet. Asked directly, the client could answer about the join before
/// (still activated: nothing new reported, the hold runs to its bound), and a hold registered
/// before the engine heard the leave would settle on the last link's state.
enum EarlyReport {
    /// Asked; the call has not started waiting yet.
    case requested
    /// The call waits for the answer: nil to hold the join, or how the call ends.
    case waiting(CheckedContinuation<JoinHoldOutcome?, Never>)
    /// Answered before the call started waiting.
    case answered(JoinHoldOutcome?)
}

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
extension Engine {
    func settleJoin(_ name: InterfaceID) async -> JoinHoldOutcome {
        guard interfaces[name] != nil, let network else { return .notJoining }
        let started = ContinuousClock.now
        nextHold += 1
        let id = nextHold
        let bound = joinHold
        // The bound is a child of this call: it ends (cancelled) as soon as the hold is answered.
        let outcome = await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                try? await Task.sleep(for: bound)
                guard !Task.isCancelled else { return }
                await self?.releaseHold(name, id: id, .timedOut)
            }
            let outcome: JoinHoldOutcome
            if let early = await joinReported(name, id: id, network: network) {
                outcome = early
            } else {
                outcome = await withCheckedContinuation { (c: CheckedContinuation<JoinHoldOutcome, Never>) in
                    holds[name, default: [:]][id] = c
                    checkHolds(name)
                }
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
            log.info("\(name): released the join NetworkManager held for the daemon after \(elapsed) ms: \(outcome.rawValue)")
        }
        return outcome
    }

    /// Has NetworkManager's client report the join on `name` and waits for the answer to come
    /// through NetworkManager's events (``EarlyReport``): nil when the join is reported and the
    /// engine has heard it, else how the call ends (not joining, or the bound passed first).
    private func joinReported(_ name: InterfaceID, id: UInt64, network: any NetworkControl) async -> JoinHoldOutcome? {
        earlyReports[id] = .requested
        guard await network.reportJoinEarly(interface: name, token: id) else {
            earlyReports[id] = nil
            return .notJoining
        }
        return await withCheckedContinuation { (c: CheckedContinuation<JoinHoldOutcome?, Never>) in
            if case .answered(let outcome)? = earlyReports.removeValue(forKey: id) {
                c.resume(returning: outcome)
            } else {
                earlyReports[id] = .waiting(c)
            }
        }
    }

    /// NetworkManager's client answered the request `token` to report a join early; every event
    /// before the answer has reached the engine.
    func joinReportedEarly(token: UInt64, reported: Bool) {
        answerEarlyReport(token, reported ? nil : .notJoining)
    }

    /// Answers the call `id` while it waits for its report: with the client's answer, or the
    /// bound's (`overriding`), which wins over an answer the call has not read yet.
    private func answerEarlyReport(_ id: UInt64, _ outcome: JoinHoldOutcome?, overriding: Bool = false) {
        switch earlyReports[id] {
        case .waiting(let c)?:
            earlyReports[id] = nil
            c.resume(returning: outcome)
        case .requested?: earlyReports[id] = .answered(outcome)
        case .answered?: if overriding { earlyReports[id] = .answered(outcome) }
        case nil: break
        }
    }

    /// Answers the holds on `name` whose join has settled (``JoinHoldOutcome/settled(by:networkManagerRechecked:)``).
    func checkHolds(_ name: InterfaceID) {
        guard holds[name]?.isEmpty == false, let link = link(name) else { return }
        let status = interfaces[name]?.status
        let rechecked = network == nil || networkManagerRechecked[name] == link
        if let outcome = JoinHoldOutcome.settled(by: status, networkManagerRechecked: rechecked) {
            releaseHolds(name, outcome)
        } else if JoinHoldOutcome.needsRecheck(by: status, rechecked: rechecked, asked: networkManagerRecheckAsked[name] == link) {
            recheckNetworkManager(name)
        }
    }

    func releaseHolds(_ name: InterfaceID, _ outcome: JoinHoldOutcome) {
        for (_, c) in holds.removeValue(forKey: name) ?? [:] { c.resume(returning: outcome) }
    }

    /// Ends the call `id` (the bound passed), whether it waits for the report or for the join.
    func releaseHold(_ name: InterfaceID, id: UInt64, _ outcome: JoinHoldOutcome) {
        if earlyReports[id] != nil {
            answerEarlyReport(id, outcome, overriding: true)
        } else {
            holds[name]?.removeValue(forKey: id)?.resume(returning: outcome)
        }
    }

    /// A helper signed in (or signed in again): NetworkManager is asked to check connectivity now
    /// rather than at its next interval, so the desktop hears "full" within a second.
    func recheckNetworkManager(_ name: InterfaceID) {
        guard let network, let link = link(name) else { return }
        networkManagerRecheckAsked[name] = link
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
        guard self.link(name) == link else { return }
        networkManagerRechecked[name] = link
        checkHolds(name)
    }
}
