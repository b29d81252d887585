// SPDX-License-Identifier: Apache-2.0
/// How a command sent to a helper ended, as `CommandCompleted` reports it.
public enum CommandCompletion: Hashable, Sendable {
    /// The helper answered (an answer that could not be understood counts as failure).
    case answered(CommandResult)
    /// The core gave up on it (evaluation ended, the interface left, the user acted again).
    case cancelled
    /// Its deadline passed without an answer.
    case timedOut
    /// The helper left the bus (or its channel closed) before answering.
    case helperLeft

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
