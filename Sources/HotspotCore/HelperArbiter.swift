// SPDX-License-Identifier: Apache-2.0
/// Chooses the helper for a network from evaluate answers that arrive in parallel.
///
/// The rules: the first high answer wins at once; otherwise, once every helper asked has answered
/// (a missed deadline or a departure counts as none), the highest confidence wins, ties going to
/// the earliest answer; if nobody claimed the network it is not captive. A helper still awaited
/// whose answer could at most tie the best claim so far (its ``HelperRegistration/highestConfidence``)
/// is not waited for: ties go to the earlier answer, so it cannot change the verdict.
public struct HelperArbiter: Hashable, Sendable {
    /// Where the arbitration stands.
    public enum Verdict: Hashable, Sendable {
        /// Still waiting for answers.
        case undecided
        /// This helper handles the network.
        case chosen(HelperID)
        /// No helper claimed the network.
        case noClaim
    }

    private struct Claim: Hashable, Sendable {
        let helper: HelperID
        let confidence: Confidence
    }

    /// Every helper asked.
    public let asked: [HelperID]
    /// Helpers asked that have not answered yet.
    public private(set) var awaiting: Set<HelperID>
    private var claims: [Claim] = []
    private var firstHigh: HelperID?
    /// The most confidence each helper asked may answer with (high when not said).
    private let ceilings: [HelperID: Confidence]

    /// Starts an arbitration among the helpers asked; `ceilings` says which of them answer with
    /// less than high at most.
    public init(asking helpers: [HelperID], ceilings: [HelperID: Confidence] = [:]) {
        self.asked = helpers
        self.awaiting = Set(helpers)
        self.ceilings = ceilings
    }

    /// Records a helper's confidence. Answers from helpers not awaited are ignored.
    public mutating func recordAnswer(_ confidence: Confidence, from helper: HelperID) -> Verdict {
        guard firstHigh == nil, awaiting.remove(helper) != nil else { return verdict }
        if confidence == .high {
            firstHigh = helper
        } else if confidence == .low {
            claims.append(Claim(helper: helper, confidence: confidence))
        }
        return verdict
    }

    /// Records that a helper will not answer (its deadline passed): it counts as none.
    public mutating func recordSilence(of helper: HelperID) -> Verdict {
        recordAnswer(.none, from: helper)
    }

    /// Withdraws a helper that left: its pending answer counts as none and a claim it made no
    /// longer counts.
    public mutating func withdraw(_ helper: HelperID) -> Verdict {
        awaiting.remove(helper)
        claims.removeAll { $0.helper == helper }
        if firstHigh == helper { firstHigh = nil }
        return verdict
    }

    /// Where the arbitration stands now.
    public var verdict: Verdict {
        if let firstHigh { return .chosen(firstHigh) }
        guard let best = claims.map(\.confidence).max() else { return awaiting.isEmpty ? .noClaim : .undecided }
        // Whoever is still awaited could at most tie the best claim, and a tie goes to the earlier answer.
        guard awaiting.allSatisfy({ (ceilings[$0] ?? .high) <= best }) else { return .undecided }
        // `claims` is in answer order, so the first claim at the best confidence is the earliest.
        return .chosen(claims.first { $0.confidence == best }!.helper)
    }
}
