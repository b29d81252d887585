// SPDX-License-Identifier: Apache-2.0
/// Why the joined network is as it is (an interface's `Reason`): the chosen helper's reason for
/// its last answer, or the core's explanation (``HotspotEffect/explain(_:_:)``) with the helper's
/// last reason after it. Typed, so an explanation is told from a helper's words by its case, not
/// by reading the text back.
public enum InterfaceReason: Hashable, Sendable {
    /// Nothing to say (a new join, or an answer without a reason).
    case none
    /// The chosen helper's reason for its last answer.
    case helper(String)
    /// The core's explanation, and the chosen helper's reason for its last answer before it.
    case explained(String, lastAnswer: String?)

    /// What starts an explanation of the daemon's own in the published text.
    public static let explanationMark = "hotspot-helperd: "

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

    /// Unicode scalars of a helper's words published, counted after escaping (the contract's
    /// "at most 300 characters"; the escaped form of 300 scalars can be eight times as long).
    public static let maximumHelperWords = 300
    /// Unicode scalars published in all: the daemon's explanation and the helper's words after it.
    public static let maximumPublished = 600

    /// The published text: a helper's words (escaped when its answer was decoded) cut to
    /// ``maximumHelperWords`` scalars, the whole to ``maximumPublished``, both after escaping.
    public var text: String {
        switch self {
        case .none: return ""
        case .helper(let said): return Self.bounded(said)
        case .explained(let text, let last):
            let whole = Self.explanationMark + text + (last.map { "; its last answer: \(Self.bounded($0))" } ?? "")
            return UntrustedText.capped(escaped: whole, limit: Self.maximumPublished)
        }
    }

    static func bounded(_ words: String) -> String { UntrustedText.capped(escaped: words, limit: maximumHelperWords) }
}
