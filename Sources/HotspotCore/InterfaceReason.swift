// SPDX-License-Identifier: Apache-2.0
/// Why the joined network is as it is (an interface's `Reason`): the chosen helper's reason for
/// its last answer, or the core's explanation (``HotspotEffect/explain(_:_:)``) with the helper's
/// last reason after it. Typed, so an explanation is told from a helper's words by its case, not
/// by reading the text back; its published text is HotspotProtocol's (`wireText`).
public enum InterfaceReason: Hashable, Sendable {
    /// Nothing to say (a new join, or an answer without a reason).
    case none
    /// The chosen helper's reason for its last answer.
    case helper(String)
    /// The core's explanation, and the chosen helper's reason for its last answer before it.
    case explained(String, lastAnswer: String?)

    /// The chosen helper's reason for an answer (none when it gave none).
    public init(helperSaid reason: String?) {
        if let reason, !reason.isEmpty { self = .helper(reason) } else { self = .none }
    }

    /// The reason once the core explains `text`: a helper's reason stays, after it; an earlier
    /// explanation is replaced whole, the helper's reason it carried with it (the newest
    /// explanation is told alone, never nested in or quoting another).
    public func explaining(_ text: String) -> InterfaceReason {
        switch self {
        case .helper(let said): return .explained(text, lastAnswer: said)
        case .none, .explained: return .explained(text, lastAnswer: nil)
        }
    }
}
