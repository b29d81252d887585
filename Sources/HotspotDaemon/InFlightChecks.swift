// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// How many polkit checks each caller, each user and all of them have waiting, per kind.
final class InFlightChecks: Sendable {
    enum Entry: Equatable { case entered, callerFull, userFull, daemonFull }
    private struct Counts {
        var byCaller: [Authorizer.Kind: [String: Int]] = [:]
        var byUser: [Authorizer.Kind: [String: Int]] = [:]
        var total: [Authorizer.Kind: Int] = [:]
    }
    private let counts = Mutex(Counts())

    /// Counts one more check of `kind` for `caller` (a connection) of `user` unless the caller, the
    /// user or everyone has as many of that kind waiting as `slots` allow. Checks of the other
    /// kind do not count.
    func enter(caller: String, user: String, kind: Authorizer.Kind, slots: Authorizer.Slots) -> Entry {
        counts.withLock { c in
            guard c.byCaller[kind, default: [:]][caller, default: 0] < slots.perCaller else { return .callerFull }
            guard c.byUser[kind, default: [:]][user, default: 0] < slots.perUser else { return .userFull }
            guard c.total[kind, default: 0] < slots.total else { return .daemonFull }
            c.byCaller[kind, default: [:]][caller, default: 0] += 1
            c.byUser[kind, default: [:]][user, default: 0] += 1
            c.total[kind, default: 0] += 1
            return .entered
        }
    }

    func leave(caller: String, user: String, kind: Authorizer.Kind) {
        counts.withLock { c in
            let n = c.byCaller[kind, default: [:]][caller, default: 1] - 1
            c.byCaller[kind, default: [:]][caller] = n > 0 ? n : nil
            let u = c.byUser[kind, default: [:]][user, default: 1] - 1
            c.byUser[kind, default: [:]][user] = u > 0 ? u : nil
            c.total[kind, default: 0] -= 1
        }
    }
}
