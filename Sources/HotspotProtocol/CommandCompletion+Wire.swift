// SPDX-License-Identifier: Apache-2.0
import HotspotCore

/// How a command ended, in the words of the `CommandCompleted` signal.
extension CommandCompletion {
    /// The word `CommandCompleted` carries: a result's own, or "cancelled", "timed-out", "helper-left".
    public var wireName: String {
        switch self {
        case .answered(let result): return result.rawValue
        case .cancelled: return "cancelled"
        case .timedOut: return "timed-out"
        case .helperLeft: return "helper-left"
        }
    }
}
