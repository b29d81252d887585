// SPDX-License-Identifier: Apache-2.0
import Foundation
import HotspotCore
@testable import HotspotDaemon
import HotspotHelperKit
import HotspotTesting
import Logging
import Synchronization
import Testing

/// The engine's actions on NetworkManager are effects that finish: a failed sign-in's disconnect
/// and autoconnect change reach NetworkManager one after the other, in the order the core asked
/// for them, and shutdown (``NetworkEffects/drain(closing:)``) waits for both. Asserted by the
/// order of events a NetworkManager stand-in records, never by time.
struct NetworkEffectsTests {
    /// NetworkManager as the engine reaches it: records each action's start and end; a disconnect
    /// does not end until the test lets it.
    final class StandIn: NetworkControl, Sendable {
        let events = Mutex<[String]>([])
        let changes = Changes()
        let disconnectGate = Gate()

        func record(_ event: String) {
            events.withLock { $0.append(event) }
            changes.bump()
        }
        var seen: [String] { events.withLock { $0 } }

        func disconnect(interface: InterfaceID) async throws {
            record("disconnect \(interface) started")
            await disconnectGate.wait()
            record("disconnect \(interface) ended")
        }
        func setAutoconnect(_ enabled: Bool, connection: ConnectionID) async throws {
            record("autoconnect=\(enabled) \(connection) started")
            record("autoconnect=\(enabled) \(connection) ended")
        }
        func recheckConnectivity() async throws -> String { "full" }
        func reportJoinEarly(interface: InterfaceID, token: UInt64) async -> Bool { false }
    }

    /// Opens once; waiters before and after pass.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { c in
                let resume = state.withLock { s -> Bool in
                    if s.open { return true }
                    s.waiting.append(c)
                    return false
                }
                if resume { c.resume() }
            }
        }
        func open() {
            for c in state.withLock({ s -> [CheckedContinuation<Void, Never>] in s.open = true; defer { s.waiting = [] }; return s.waiting }) { c.resume() }
        }
    }

    @Test func aFailedSignInsDisconnectAndAutoconnectChangeArriveInOrderAndShutdownWaitsForBoth() async throws {
        let state = try ScratchDirectory("effects")
        var configuration = DaemonConfiguration()
        configuration.stateDirectory = state.path
        let nm = StandIn()
        let engine = Engine(configuration: configuration, log: Logger(label: "test"), network: nm, monitor: nil, provisioner: nil,
                            announcements: { _ in })
        // A helper that claims every network and whose sign-in fails: disconnect, autoconnect off.
        try await engine.register(inProcess: InProcessHelper(options: HotspotHelperOptions(displayName: "Cafe", identifier: "cafe")) { command in
            switch command.commandType {
            case .evaluate:
                guard let n = command.network else { return command.createResponse(.failure).deliver() }
                n.setConfidence(.high)
                let r = command.createResponse(.success)
                r.setNetwork(n)
                r.deliver()
            default:
                command.createResponse(.failure).deliver()
            }
        })
        await engine.interfaceAppeared("wlan0")
        await engine.joined("wlan0", network: Network(ssid: SSID("CityFree"), bssid: "0A:00:00:00:00:01"), connection: "conn-1")
        try await nm.changes.until("the disconnect reached NetworkManager", timeout: .seconds(30)) {
            nm.seen.contains("disconnect wlan0 started")
        }
        // Shutdown begins while NetworkManager is still disconnecting (and, on a busy machine,
        // perhaps while the engine is still queuing the autoconnect change: it closes the lanes
        // on the engine, so the event's actions are queued whole).
        let drained = Task {
            nm.record("shutdown")
            await engine.finishNetworkEffects()
            nm.record("drained")
        }
        try await nm.changes.until("shutdown began", timeout: .seconds(30)) { nm.seen.contains("shutdown") }
        nm.disconnectGate.open()
        await drained.value
        #expect(nm.seen == ["disconnect wlan0 started", "shutdown", "disconnect wlan0 ended",
                            "autoconnect=false conn-1 started", "autoconnect=false conn-1 ended", "drained"])
        // Nothing starts once shutdown has drained.
        #expect(engine.networkEffects.enqueue(lane: "wlan0") { nm.record("late") } == false)
    }
}
