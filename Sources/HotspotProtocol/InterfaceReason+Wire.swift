// SPDX-License-Identifier: Apache-2.0
import HotspotCore

extension HotspotContract {
    /// What starts an explanation of the daemon's own in an interface's `Reason`; `hotspotctl`
    /// tells the daemon's words from a helper's by it.
    public static let explanationMark = "hotspot-helperd: "
}

/// `Reason` as the daemon publishes it: the core keeps the reason typed (``InterfaceReason``),
/// and its text, bounded after escaping, is made here, beside the published interface.
extension InterfaceReason {
    /// Unicode scalars of a helper's words published, counted after escaping (the contract's
    /// "at most 300 characters"; the escaped form of 300 scalars can be eight times as long).
    public static let maximumHelperWords = 300
    /// Unicode scalars published in all: the daemon's explanation and the helper's words after it.
    public static let maximumPublished = 600

    /// The published text: a helper's words (escaped when its answer was decoded) cut to
    /// ``maximumHelperWords`` scalars, the whole to ``maximumPublished``, both after escaping; an
    /// explanation starts with ``HotspotContract/explanationMark``.
    public var wireText: String {
        switch self {
        case .none: return ""
        case .helper(let said): return Self.bounded(said)
        case .explained(let text, let last):
            let whole = HotspotContract.explanationMark + text + (last.map { "; its last answer: \(Self.bounded($0))" } ?? "")
            return UntrustedText.capped(escaped: whole, limit: Self.maximumPublished)
        }
    }

    static func bounded(_ words: String) -> String { UntrustedText.capped(escaped: words, limit: maximumHelperWords) }
}
