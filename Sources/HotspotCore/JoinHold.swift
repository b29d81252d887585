// SPDX-License-Identifier: Apache-2.0
/// How a join held by NetworkManager's pre-up dispatcher script ended. `SettleJoin` answers it in
/// the words of the published interface (HotspotProtocol's `JoinHoldOutcome.wireWord`).
public enum JoinHoldOutcome: Sendable, Hashable, CaseIterable {
    /// A helper signed in, and NetworkManager re-checked its connectivity.
    case signedIn
    /// No helper claims the network: nothing to sign in to on the desktop's behalf.
    case noHelper
    /// The chosen helper needs the user (presenting-ui): the desktop's own portal flow takes over.
    case needsUser
    /// The sign-in failed (the daemon disconnects the network).
    case failed
    /// The network was left while the join was held.
    case left
    /// The bound (`[daemon] join-hold`) passed first.
    case timedOut
    /// Not a Wi-Fi interface the daemon follows, or not between its addresses and ACTIVATED.
    case notJoining

    /// The join-hold outcome table: how a held join settles once its interface is in `status`,
    /// or nil while it has not settled (the hold goes on).
    ///
    /// A sign-in settles the join only once NetworkManager has re-checked connectivity after it
    /// (`networkManagerRechecked`), so NetworkManager announces the connection with a verdict made
    /// after the sign-in. Anything the daemon cannot settle alone (the user is needed, no helper,
    /// a failure) settles it at once. Leaving and the bound are the engine's to report (``left``,
    /// ``timedOut``): they are not states.
    public static func settled(by status: InterfaceStatus?, networkManagerRechecked: Bool) -> JoinHoldOutcome? {
        guard let status else { return nil }
        switch status.state {
        case .authenticated where status.chosenHelper == nil: return .noHelper
        case .authenticated: return networkManagerRechecked ? .signedIn : nil
        case .presentingUI: return .needsUser
        case .failure: return .failed
        case .inactive, .evaluating, .authenticating, .maintaining, .loggingOff: return nil
        }
    }

    /// Whether a held join in `status` needs NetworkManager asked to re-check connectivity: it is
    /// signed in, and NetworkManager has neither re-checked (`rechecked`) nor been asked (`asked`)
    /// since the join. A sign-in asks at once; a maintain that found the session alive asks for
    /// nothing, and a hold can come after it (a network joined again, its helper cached).
    public static func needsRecheck(by status: InterfaceStatus?, rechecked: Bool, asked: Bool) -> Bool {
        !rechecked && !asked && settled(by: status, networkManagerRechecked: true) == .signedIn
    }
}
