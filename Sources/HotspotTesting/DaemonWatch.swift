// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol
import Synchronization

/// Reading the daemon from outside, for the programs that drive it and measure (benchmarks, the
/// stress tool, the demo). Tests wait with ``BusWaiter`` and ``DaemonScenario`` instead.
extension Connection {
    /// The daemon's interface objects (the manager's `Interfaces`).
    public func daemonInterfaces() async throws -> [ObjectPath] {
        try await call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                       member: "Get", body: [.string(HotspotContract.managerInterface.rawValue), "Interfaces"]).first?.unwrapped.objectPaths ?? []
    }

    /// A property of one of the daemon's interface objects.
    public func daemonProperty(_ path: ObjectPath, _ name: String) async throws -> DBusValue? {
        try await call(destination: HotspotContract.busName, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                       body: [.string(HotspotContract.interfaceInterface.rawValue), .string(name)]).first?.unwrapped
    }
}

/// Checks `condition` every `every` until it holds (true) or `timeout` has passed (false, after
/// one last check). For programs that measure: what they wait for is not always announced, and
/// a poll costs them nothing they report.
public func pollUntil(timeout: Duration, every: Duration = .milliseconds(10), isolation: isolated (any Actor)? = #isolation,
                      _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: every)
    }
    return try await condition()
}

/// When NetworkManager announced a device ACTIVATED (`activated`) and when the daemon announced
/// each `State` of one interface, stamped on arrival, in the order the bus delivered them. A
/// join's latency is the time between the two.
public actor StateStamps {
    public struct Stamp: Sendable {
        public var state: String
        public var at: ContinuousClock.Instant
    }
    private var buffer: [Stamp] = []
    private var waiter: (state: String, continuation: CheckedContinuation<ContinuousClock.Instant, Never>)?
    private let listener = Mutex<Task<Void, Never>?>(nil)

    /// Stamps `device`'s ACTIVATED and `interface`'s States as `connection` receives them. One
    /// stream for both keeps the bus's order (with a stream and a task each, a fast join's
    /// `authenticated` could be stamped before its `activated`). Detached: a caller on the main
    /// actor would otherwise take each signal through the main queue (a thread woken) first.
    public static func observe(_ connection: Connection, device: ObjectPath, interface: ObjectPath) async throws -> StateStamps {
        let observed = try await connection.signals(matchingAny: [
            MatchRule(path: device, interface: "org.freedesktop.NetworkManager.Device", member: "StateChanged"),
            MatchRule(sender: HotspotContract.busName, path: interface, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
        ])
        let stamps = StateStamps()
        let listener = Task.detached {
            for await s in observed {
                if s.member == "StateChanged" {
                    if s.body.first == .uint32(100) { await stamps.push(Stamp(state: "activated", at: .now)) }
                } else if s.body.count > 1, let state = s.body[1].varDict?["State"]?.string {
                    await stamps.push(Stamp(state: state, at: .now))
                }
            }
        }
        stamps.listener.withLock { $0 = listener }
        return stamps
    }

    /// Stops stamping.
    public nonisolated func stop() { listener.withLock { $0?.cancel() } }

    public func push(_ s: Stamp) {
        if let w = waiter {
            if w.state == s.state {
                waiter = nil
                w.continuation.resume(returning: s.at)
            }
        } else {
            buffer.append(s)
        }
    }

    /// When `state` is next stamped; the stamps before it are skipped, as reading a stream would.
    public func wait(for state: String) async -> ContinuousClock.Instant {
        while !buffer.isEmpty {
            let s = buffer.removeFirst()
            if s.state == state { return s.at }
        }
        return await withCheckedContinuation { waiter = (state, $0) }
    }
}
