// SPDX-License-Identifier: Apache-2.0
import HotspotCore

/// How a join held by NetworkManager's pre-up dispatcher script ended (``Engine/settleJoin(_:)``),
/// as `SettleJoin` answers it.
enum JoinHoldOutcome: String, Sendable {
    /// A helper signed in, and NetworkManager re-checked its connectivity.
    case signedIn = "signed-in"
    /// No helper claims the network: nothing to sign in to on the desktop's behalf.
    case noHelper = "no-helper"
    /// The chosen helper needs the user (presenting-ui): the desktop's own portal flow takes over.
    case needsUser = "needs-user"
    /// The sign-in failed (the daemon disconnects the network).
    case failed
    /// The network was left while the join was held.
    case left
    /// The bound (`[daemon] join-hold`) passed first.
    case timedOut = "timed-out"
    /// Not a Wi-Fi interface the daemon follows, or not between its addresses and ACTIVATED.
    case notJoining = "not-joining"
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
        guard await network.reportJoinEarly(interface: name) else {
            log.info("\(name): NetworkManager's pre-up hook asked, but the device is not being activated; nothing to hold")
            return .notJoining
        }
        nextHold += 1
        let id = nextHold
        let bound = joinHold
        let outcome = await withCheckedContinuation { (c: CheckedContinuation<JoinHoldOutcome, Never>) in
            holds[name, default: [:]][id] = c
            checkHolds(name)
            if holds[name]?[id] != nil {
                Task { [weak self] in
                    try? await Task.sleep(for: bound)
                    await self?.releaseHold(name, id: id, .timedOut)
                }
            }
        }
        let ms = (ContinuousClock.now - started).components
        let elapsed = ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000
        let state = interfaces[name]?.status?.state.rawValue ?? "inactive"
        switch outcome {
        case .timedOut:
            log.warning("\(name): released the join NetworkManager held for the daemon after the bound of \(bound) ([daemon] join-hold) while \(state)")
        default:
            log.info("\(name): released the join NetworkManager held for the daemon after \(elapsed) ms: \(outcome.rawValue)")
        }
        return outcome
    }

    /// Answers the holds on `name` whose join has settled.
    func checkHolds(_ name: InterfaceID) {
        guard holds[name]?.isEmpty == false, let link = links[name]?.id, let status = interfaces[name]?.status else { return }
        let outcome: JoinHoldOutcome
        switch status.state {
        case .authenticated where status.chosenHelper == nil: outcome = .noHelper
        case .authenticated:
            // Signed in: released once NetworkManager has re-checked, so it announces the
            // connection with a verdict made after the sign-in.
            guard network == nil || networkManagerRechecked[name] == link else { return }
            outcome = .signedIn
        case .presentingUI: outcome = .needsUser
        case .failure: outcome = .failed
        case .inactive, .evaluating, .authenticating, .maintaining, .loggingOff: return
        }
        releaseHolds(name, outcome)
    }

    func releaseHolds(_ name: InterfaceID, _ outcome: JoinHoldOutcome) {
        for (_, c) in holds.removeValue(forKey: name) ?? [:] { c.resume(returning: outcome) }
    }

    func releaseHold(_ name: InterfaceID, id: Int, _ outcome: JoinHoldOutcome) {
        guard let c = holds[name]?.removeValue(forKey: id) else { return }
        c.resume(returning: outcome)
    }

    /// A helper signed in (or signed in again): NetworkManager is asked to check connectivity now
    /// rather than at its next interval, so the desktop hears "full" within a second.
    func recheckNetworkManager(_ name: InterfaceID) {
        guard let network, let link = links[name]?.id else { return }
        Task { [weak self, log] in
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
        guard links[name]?.id == link else { return }
        networkManagerRechecked[name] = link
        checkHolds(name)
    }
}
