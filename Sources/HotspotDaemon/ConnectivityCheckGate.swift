// SPDX-License-Identifier: Apache-2.0

/// Coalesces the connectivity checks callers ask for (`CheckConnectivity`), so that no caller can
/// make the daemon flood a network with probes: at most one probe round is in flight per interface
/// (callers that ask meanwhile share its answer), and a caller that asks again about an interface
/// within `minimumInterval` gets the last answer instead of a new round. Every round goes out on
/// the Wi-Fi link; uid 65534 once caused 7,953 rounds in 10 s.
actor ConnectivityCheckGate<Answer: Sendable> {
    /// How an answer was come by.
    enum Outcome {
        /// This call started the round.
        case probed(Answer)
        /// A round already in flight answered it.
        case shared(Answer)
        /// The caller asked within `minimumInterval`: the last round's answer, `age` old.
        case recent(Answer, age: Duration)
    }

    /// A caller asking about an interface.
    struct Asker: Hashable {
        var caller: String
        var interface: String
    }

    let minimumInterval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private var rounds: [String: Task<Answer, Never>] = [:]
    private var latest: [String: (answer: Answer, at: ContinuousClock.Instant)] = [:]
    private var asked: [Asker: ContinuousClock.Instant] = [:]

    init(minimumInterval: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.minimumInterval = minimumInterval
        self.now = now
    }

    /// The answer for `caller` (a uid, or a bus name when the uid is unknown) about `interface`:
    /// from `round`, from the round in flight, or from the last round when the caller asked
    /// within `minimumInterval`.
    func check(interface: String, caller: String, round: @escaping @Sendable () async -> Answer) async -> Outcome {
        let time = now()
        let asker = Asker(caller: caller, interface: interface)
        if let last = asked[asker], time - last < minimumInterval, let recent = latest[interface] {
            return .recent(recent.answer, age: time - recent.at)
        }
        asked[asker] = time
        forgetOldAskers(at: time)
        if let running = rounds[interface] { return .shared(await running.value) }
        // Outlives this caller on purpose: later callers share the round, and it finishes for them
        // even when the first caller is cancelled (a bus call given up).
        let task = Task { await round() }
        rounds[interface] = task
        let answer = await task.value
        rounds[interface] = nil
        latest[interface] = (answer, now())
        return .probed(answer)
    }

    /// Who asked longer ago than the interval no longer matters; bounds the table by the callers
    /// of the last interval.
    private func forgetOldAskers(at time: ContinuousClock.Instant) {
        guard asked.count > 256 else { return }
        asked = asked.filter { time - $0.value < minimumInterval }
    }
}
