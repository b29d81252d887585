// SPDX-License-Identifier: Apache-2.0
import HotspotCore

extension JoinHoldOutcome {
    /// The word `SettleJoin` answers with (``HotspotContract/Manager/settleJoin``), which
    /// NetworkManager's pre-up dispatcher script and the journal read.
    public var wireWord: String {
        switch self {
        case .signedIn: "signed-in"
        case .noHelper: "no-helper"
        case .needsUser: "needs-user"
        case .failed: "failed"
        case .left: "left"
        case .timedOut: "timed-out"
        case .notJoining: "not-joining"
        }
    }
}
