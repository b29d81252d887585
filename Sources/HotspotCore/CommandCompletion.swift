// SPDX-License-Identifier: Apache-2.0
/// How a command sent to a helper ended, as `CommandCompleted` reports it (its words are
/// HotspotProtocol's, beside the published interface).
public enum CommandCompletion: Hashable, Sendable {
    /// The helper answered (an answer that could not be understood counts as failure).
    case answered(CommandResult)
    /// The core gave up on it (evaluation ended, the interface left, the user acted again).
    case cancelled
    /// Its deadline passed without an answer.
    case timedOut
    /// The helper left the bus (or its channel closed) before answering.
    case helperLeft
}
