// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
@testable import HotspotDaemon
import HotspotProtocol
import HotspotTesting
import Synchronization
import Testing

/// CheckConnectivity makes the daemon probe over the Wi-Fi link: a caller needs polkit's `control`
/// (as NetworkManager's own check needs network-control), at most one round is in flight per
/// interface, and a caller asking again within the interval gets the last answer.
@Suite struct ConnectivityCheckGateTests {
    final class Rounds: Sendable {
        let count = Atomic<Int>(0)
        let clock = Mutex<Duration>(.zero)
        let base = ContinuousClock.now
        /// Reads of the clock: the gate reads it first thing in every check, so it counts the
        /// callers that have reached the gate.
        let reads = Counter()
        var now: @Sendable () -> ContinuousClock.Instant { { [self] in reads.add(); return base + clock.withLock { $0 } } }
    }

    @Test func concurrentCallersShareOneRoundPerInterface() async {
        let rounds = Rounds()
        let gate = ConnectivityCheckGate<Int>(minimumInterval: .seconds(10), now: rounds.now)
        let outcomes = await withTaskGroup(of: ConnectivityCheckGate<Int>.Outcome.self) { group in
            for caller in 0..<20 {
                group.addTask {
                    await gate.check(interface: "wlan0", caller: "uid \(caller)") {
                        // In flight until every caller has reached the gate.
                        try? await rounds.reads.wait(atLeast: 20, "the 20 callers reach the gate")
                        return rounds.count.add(1, ordering: .relaxed).newValue
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(rounds.count.load(ordering: .relaxed) == 1, "20 callers at once caused \(rounds.count.load(ordering: .relaxed)) probe rounds")
        var probed = 0, shared = 0
        for o in outcomes {
            switch o {
            case .probed(let n): probed += 1; #expect(n == 1)
            case .shared(let n): shared += 1; #expect(n == 1)
            case .recent: Issue.record("no caller had asked before")
            }
        }
        #expect(probed == 1 && shared == 19)
    }

    @Test func aCallerAskingAgainWithinTheIntervalGetsTheLastAnswer() async {
        let rounds = Rounds()
        let gate = ConnectivityCheckGate<Int>(minimumInterval: .seconds(10), now: rounds.now)
        let round: @Sendable () async -> Int = { rounds.count.add(1, ordering: .relaxed).newValue }
        guard case .probed(1) = await gate.check(interface: "wlan0", caller: "uid 65534", round: round) else { Issue.record("first call"); return }
        rounds.clock.withLock { $0 = .seconds(3) }
        for _ in 0..<1_000 {
            guard case .recent(1, let age) = await gate.check(interface: "wlan0", caller: "uid 65534", round: round) else {
                Issue.record("a repeated call probed again"); return
            }
            #expect(age == .seconds(3))
        }
        #expect(rounds.count.load(ordering: .relaxed) == 1)
        // Another interface, or another caller, is a round of its own.
        guard case .probed(2) = await gate.check(interface: "wlan1", caller: "uid 65534", round: round) else { Issue.record("other interface"); return }
        guard case .probed(3) = await gate.check(interface: "wlan0", caller: "uid 1000", round: round) else { Issue.record("other caller"); return }
        // Past the interval the caller gets a new round.
        rounds.clock.withLock { $0 = .seconds(13) }
        guard case .probed(4) = await gate.check(interface: "wlan0", caller: "uid 65534", round: round) else { Issue.record("after the interval"); return }
    }
}

@Suite(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"),
                "needs root (to run callers as nobody), setpriv and python3-dbusmock"))
struct ConnectivityCheckAuthorizationTests {
    func check(_ f: DaemonScenario) async throws -> ManagedProcess.Result {
        try await f.runAsNobody(["/usr/bin/busctl", "--address=\(f.bus.address)", "call", HotspotContract.busName.rawValue,
                                 f.interfacePath.rawValue, HotspotContract.interfaceInterface.rawValue, "CheckConnectivity"])
    }

    @Test func anyUserCannotMakeTheDaemonProbeWithoutPolkit() async throws {
        let f = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")])
        _ = try await f.join("CityFree")
        let refused = try await check(f)
        #expect(refused.status != 0, "nobody made the daemon probe: \(refused.stdout)")
        #expect(refused.stderr.contains("org.freedesktop.NetworkManager.HotspotHelper.control"), "\(refused.stderr)")
    }

    @Test func anAllowedUserAskingAgainGetsTheLastVerdict() async throws {
        let bus = try await PrivateBus()
        let mock = try await HostileCallerTests.polkit(bus, code: "ret = (True, False, {})")
        let f = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")], bus: bus)
        _ = try await f.join("CityFree")
        let first = try await check(f)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!first.stdout.contains(" s ago"), "\(first.stdout)")
        let again = try await check(f)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("s ago (a caller gets at most one check of an interface every 10 s)"), "\(again.stdout)")
        // Root is a caller of its own: its first call is a round of its own.
        let root = try await f.bus.connect().call(destination: HotspotContract.busName, path: f.interfacePath,
                                                 interface: HotspotContract.interfaceInterface, member: "CheckConnectivity")
        #expect(root.first?.varDict?["reason"]?.string?.contains(" s ago") == false, "\(root)")
        _ = mock
    }
}
