// SPDX-License-Identifier: Apache-2.0
/// The join hold's book: every `SettleJoin` call NetworkManager's pre-up dispatcher made, its
/// bound, where its request to report the join early stands, and on which link NetworkManager was
/// asked to re-check connectivity and did. It answers the engine with ``Answer``: which calls to
/// resume and how they end, and whether to ask NetworkManager to re-check. The engine keeps only
/// the calls' continuations; everything it decides is here, on the core's clock.
///
/// A call goes through two phases:
/// - **reporting**: the engine has asked NetworkManager's client to report the join early, and
///   waits for the answer to come *in order with NetworkManager's other events*. The dispatcher
///   runs right after NetworkManager announced the activation (often right after a leave, when it
///   switches networks) and the engine may not have heard those events yet: a call that settled
///   on what the engine knows when it comes would settle on the last link's state, or hold to its
///   bound. A leave does not end a call in this phase; the answer does (``reportArrived(_:reported:status:link:)``).
/// - **holding**: the join is reported; the call ends when the join settles
///   (``JoinHoldOutcome/settled(by:networkManagerRechecked:)``), is left, or at the bound.
///
/// A call may end before the engine waits on it (the answer or the bound came first): the outcome
/// is kept until ``waiting(_:)``. The bound wins over an outcome not yet read: the call is late.
public struct JoinHoldBook: Sendable {
    /// A call to resume, and how it ends.
    public struct Release: Hashable, Sendable {
        public let call: UInt64
        public let outcome: JoinHoldOutcome

        public init(call: UInt64, outcome: JoinHoldOutcome) {
            self.call = call
            self.outcome = outcome
        }
    }

    /// NetworkManager to be asked to re-check connectivity, for a join on `link`.
    public struct Recheck: Hashable, Sendable {
        public let interface: InterfaceID
        public let link: UInt64

        public init(interface: InterfaceID, link: UInt64) {
            self.interface = interface
            self.link = link
        }
    }

    /// What the engine does after telling the book something.
    public struct Answer: Hashable, Sendable {
        /// The calls to resume now, in call order.
        public var resume: [Release] = []
        /// Ask NetworkManager to re-check connectivity (already recorded as asked).
        public var recheck: Recheck?

        public init(resume: [Release] = [], recheck: Recheck? = nil) {
            self.resume = resume
            self.recheck = recheck
        }
    }

    private enum Phase: Sendable, Equatable {
        case reporting
        case holding
        case ended(JoinHoldOutcome)
    }

    private struct Call: Sendable {
        let interface: InterfaceID
        let deadline: Instant
        var phase: Phase = .reporting
        /// The engine waits on it (holds its continuation).
        var waiting = false

        var isEnded: Bool {
            if case .ended = phase { return true }
            return false
        }
    }

    /// How long a join may be held (`[daemon] join-hold`).
    public let bound: Duration
    /// Whether NetworkManager can be asked to re-check; without it a sign-in settles at once.
    public let canRecheck: Bool
    private var calls: [UInt64: Call] = [:]
    private var lastCall: UInt64 = 0
    /// The link on which NetworkManager last re-checked connectivity after a sign-in.
    private var rechecked: [InterfaceID: UInt64] = [:]
    /// The link on which NetworkManager was last asked to re-check connectivity.
    private var recheckAsked: [InterfaceID: UInt64] = [:]

    public init(bound: Duration, canRecheck: Bool = true) {
        self.bound = bound
        self.canRecheck = canRecheck
    }

    // MARK: - Reading

    /// The calls not yet resumed.
    public var openCalls: [UInt64] { calls.keys.sorted() }

    /// The interface a call holds.
    public func interface(of call: UInt64) -> InterfaceID? { calls[call]?.interface }

    /// When a call's bound passes.
    public func deadline(of call: UInt64) -> Instant? { calls[call]?.deadline }

    // MARK: - A call's life

    /// A `SettleJoin` call on `interface` at `now`: its number, which is also the token of its
    /// request to report the join early. Its bound passes at `now + bound`.
    public mutating func begin(on interface: InterfaceID, at now: Instant) -> UInt64 {
        lastCall += 1
        calls[lastCall] = Call(interface: interface, deadline: now + bound)
        return lastCall
    }

    /// NetworkManager's client could not be asked to report the join (NetworkManager is not
    /// being followed): the call ends as not joining.
    public mutating func reportUnavailable(_ call: UInt64) -> Answer {
        guard calls[call] != nil else { return Answer() }
        var answer = Answer()
        end(call, .notJoining, overriding: true, into: &answer)
        return answer
    }

    /// The answer to the call's request to report the join early, in order with
    /// NetworkManager's events: every event before it has reached the engine. Not `reported`:
    /// the device is not being activated. Reported: the call holds the join as it stands now
    /// (`status` on `link`).
    public mutating func reportArrived(_ call: UInt64, reported: Bool, status: InterfaceStatus?, link: UInt64?) -> Answer {
        guard let c = calls[call], c.phase == .reporting else { return Answer() }
        var answer = Answer()
        if !reported {
            end(call, .notJoining, into: &answer)
            return answer
        }
        calls[call]?.phase = .holding
        settle(c.interface, status: status, link: link, into: &answer)
        return answer
    }

    /// The engine now waits on `call`: it is resumed at once if it has already ended.
    public mutating func waiting(_ call: UInt64) -> Answer {
        guard var c = calls[call] else { return Answer() }
        if case .ended(let outcome) = c.phase {
            calls[call] = nil
            return Answer(resume: [Release(call: call, outcome: outcome)])
        }
        c.waiting = true
        calls[call] = c
        return Answer()
    }

    /// The calls whose bound has passed at `now` end as timed out, whatever phase they are in
    /// (an outcome the engine has not read yet included: the call is late).
    public mutating func due(at now: Instant) -> Answer {
        var answer = Answer()
        for call in calls.keys.sorted() where calls[call]!.deadline <= now {
            end(call, .timedOut, overriding: true, into: &answer)
        }
        return answer
    }

    // MARK: - The join

    /// The join on `interface` is now `status` on `link` (nil when not joined): the calls holding
    /// it end if it has settled, or (`askingRecheck`) NetworkManager is asked for the re-check a
    /// sign-in waits for. A state just published is checked without asking: the rule after a
    /// sign-in, which follows it, asks (``HotspotEffect/recheckConnectivity(_:networkManager:)``).
    public mutating func check(_ interface: InterfaceID, status: InterfaceStatus?, link: UInt64?, askingRecheck: Bool = true) -> Answer {
        var answer = Answer()
        settle(interface, status: status, link: link, askingRecheck: askingRecheck, into: &answer)
        return answer
    }

    /// The join on `interface` was left: the calls holding it end as left. Calls still waiting for
    /// their report are not about this join (their answer comes after the leave).
    public mutating func left(_ interface: InterfaceID) -> Answer {
        var answer = Answer()
        for call in holding(interface) { end(call, .left, into: &answer) }
        return answer
    }

    /// NetworkManager was asked to re-check `interface`'s `link` after a sign-in (the core's
    /// ``HotspotEffect/recheckConnectivity(_:networkManager:)``): a hold on that join waits for the
    /// answer rather than asking again.
    public mutating func recheckAsked(_ interface: InterfaceID, link: UInt64) {
        recheckAsked[interface] = link
    }

    /// NetworkManager re-checked connectivity as asked for `link`; the join is now `status` on
    /// `current`. A re-check of a link already left counts for nothing.
    public mutating func rechecked(_ interface: InterfaceID, link: UInt64, status: InterfaceStatus?, current: UInt64?) -> Answer {
        guard current == link else { return Answer() }
        rechecked[interface] = link
        return check(interface, status: status, link: current)
    }

    // MARK: - Inside

    private func holding(_ interface: InterfaceID) -> [UInt64] {
        calls.keys.sorted().filter { calls[$0]!.interface == interface && calls[$0]!.phase == .holding }
    }

    private mutating func settle(_ interface: InterfaceID, status: InterfaceStatus?, link: UInt64?, askingRecheck: Bool = true,
                                 into answer: inout Answer) {
        let held = holding(interface)
        guard !held.isEmpty, let link else { return }
        let didRecheck = !canRecheck || rechecked[interface] == link
        if let outcome = JoinHoldOutcome.settled(by: status, networkManagerRechecked: didRecheck) {
            for call in held { end(call, outcome, into: &answer) }
        } else if askingRecheck, canRecheck, JoinHoldOutcome.needsRecheck(by: status, rechecked: didRecheck, asked: recheckAsked[interface] == link) {
            recheckAsked[interface] = link
            answer.recheck = Recheck(interface: interface, link: link)
        }
    }

    /// Ends `call`: resumed now if the engine waits on it, else kept until it does. An outcome not
    /// yet read stays unless `overriding` (the bound, or the report that could not be asked).
    private mutating func end(_ call: UInt64, _ outcome: JoinHoldOutcome, overriding: Bool = false, into answer: inout Answer) {
        guard let c = calls[call] else { return }
        if c.waiting {
            calls[call] = nil
            answer.resume.append(Release(call: call, outcome: outcome))
        } else if !c.isEnded || overriding {
            calls[call]?.phase = .ended(outcome)
        }
    }
}
