// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Testing

/// Signing in before the desktop sees the connection: NetworkManager's pre-up dispatcher script
/// calls `SettleJoin` while the device waits in IP_CHECK, and the daemon answers once the join
/// has settled. The mock stops the activation where real NetworkManager runs the script; the
/// real stack is checked in the lab (docs/LAB.md).
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct JoinHoldTests {
    @Test func aHeldJoinIsSignedInBeforeNetworkManagerAnnouncesIt() async throws {
        let s = try await Scenario()
        let (_, script) = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        try await s.joinHeld("CityFree")
        #expect(try await s.settleJoin() == "signed-in")
        // Answered while the device is still in IP_CHECK: signed in, and NetworkManager asked to
        // check again so that it announces ACTIVATED with a verdict made after the sign-in.
        #expect(try await s.state() == "authenticated")
        #expect(try await s.property("Helper") == .string("Cafe"))
        #expect(script.received.filter { $0 != .filterScanList } == [.evaluate, .authenticate])
        #expect(try await s.networkManagerChecks() == 1)
        // ACTIVATED then is the same join: no second evaluate, no second check.
        try await s.finishJoin()
        let quiet = try await s.holdsThroughout(.milliseconds(600)) {
            script.received.filter { $0 != .filterScanList } == [.evaluate, .authenticate]
        }
        #expect(quiet, "\(script.received)")
        #expect(try await s.state() == "authenticated")
        #expect(try await s.networkManagerChecks() == 1)
    }

    @Test func aNetworkNoHelperClaimsIsReleasedAtOnce() async throws {
        let s = try await Scenario()
        let (_, script) = try await s.helper("Shy", script: HelperScript(confidence: .none))
        try await s.joinHeld("Library", accessPoint: "ap3")
        #expect(try await s.settleJoin() == "no-helper")
        #expect(!script.received.contains(.authenticate))
        #expect(try await s.networkManagerChecks() == 0)
    }

    @Test func aNetworkThatNeedsTheUserIsReleasedForTheDesktopsOwnPortalFlow() async throws {
        let s = try await Scenario()
        _ = try await s.helper("Cafe", script: HelperScript(confidence: .high, results: [.authenticate: .uiRequired]))
        try await s.joinHeld("CityFree")
        #expect(try await s.settleJoin() == "needs-user")
        #expect(try await s.state() == "presenting-ui")
    }

    @Test func aFailedSignInIsReleasedAsFailed() async throws {
        let s = try await Scenario()
        _ = try await s.helper("Cafe", script: HelperScript(confidence: .high, results: [.authenticate: .failure]))
        try await s.joinHeld("CityFree")
        #expect(try await s.settleJoin() == "failed")
    }

    /// A helper that never answers authenticate holds the join only until the bound, not until
    /// its command's deadline (600 s: past SettleJoin's 70 s call timeout, so only the bound can
    /// release it as timed-out).
    @Test func aHungHelperHoldsTheJoinNoLongerThanTheBound() async throws {
        let s = try await Scenario(settings: ["join-hold": "1", "command-timeout": "600"])
        _ = try await s.helper("Stuck", script: HelperScript(confidence: .high, silent: [.authenticate]))
        try await s.joinHeld("CityFree")
        let started = ContinuousClock.now
        #expect(try await s.settleJoin() == "timed-out")
        let held = ContinuousClock.now - started
        // At least the bound: a timer never fires early, however busy the machine.
        #expect(held >= .seconds(1), "held \(held)")
        #expect(try await s.state() == "authenticating")
        try await s.waitUntil("the log says why the join was released") {
            s.daemon.log.contains("after the bound of 1.0 seconds ([daemon] join-hold) while authenticating")
        }
    }

    @Test func theJoinIsReleasedWhenTheNetworkIsLeft() async throws {
        let s = try await Scenario(settings: ["command-timeout": "30"])
        _ = try await s.helper("Stuck", script: HelperScript(confidence: .high, silent: [.authenticate]))
        try await s.joinHeld("CityFree")
        async let outcome = s.settleJoin()
        try await s.waitFor("authenticating")
        try await s.leave()
        #expect(try await outcome == "left")
    }

    /// NetworkManager switching networks announces the leave and the next activation and runs
    /// the dispatcher at once: the hold is for the new join, settled by its own sign-in (not by
    /// the last join's state, nor left to the bound because the last join still looked current).
    @Test func aJoinHeldRightAfterALeaveIsHeldForTheNewJoin() async throws {
        let (s, script) = try await signedIntoCityFree()
        let first = script.received.filter { $0 != .filterScanList }

        try await s.nm.deactivate(s.client, device: s.device)
        try await s.joinHeld("CityFree", accessPoint: "ap1", active: "second")
        #expect(try await s.settleJoin() == "signed-in", "\(s.daemon.log.suffix(3000))")
        // Answered after the second join's sign-in and NetworkManager's check that followed it.
        let commands = script.received.filter { $0 != .filterScanList }
        #expect(commands.count > first.count, "settled before the helper heard of the second join: \(commands)")
        #expect(try await s.networkManagerChecks() == 2)
        #expect(try await s.state() == "authenticated")
    }

    /// A network joined again is signed in by a maintain to its cached helper, which asks
    /// NetworkManager for no check; a hold that comes after it (here on a join already
    /// ACTIVATED; with the dispatcher, when the helper answers before the hold is registered)
    /// asks for the check it waits for instead of waiting for the bound.
    @Test func aHoldOnAJoinSignedInByAMaintainHasNetworkManagerCheckAgain() async throws {
        let (s, script) = try await signedIntoCityFree()
        try await s.nm.deactivate(s.client, device: s.device)
        try await s.waitFor("inactive")
        try await s.join("CityFree", accessPoint: "ap1", active: "again")
        try await s.waitUntil("the cached helper's maintain signed in again") {
            guard script.received.contains(.maintain) else { return false }
            return try await s.state() == "authenticated"
        }
        #expect(try await s.networkManagerChecks() == 1, "a maintain that found the session alive asks for no check")
        #expect(try await s.settleJoin() == "signed-in", "\(s.daemon.log.suffix(3000))")
        #expect(try await s.networkManagerChecks() == 2)
    }

    /// Helper "Cafe" signed in to CityFree (joined without the hold), and NetworkManager
    /// re-checked after it.
    func signedIntoCityFree() async throws -> (Scenario, HelperScript) {
        let s = try await Scenario()
        let (_, script) = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        try await s.waitUntil("NetworkManager re-checked after the sign-in") { try await s.networkManagerChecks() == 1 }
        return (s, script)
    }

    @Test func aDeviceThatIsNotBeingActivatedIsNotHeld() async throws {
        let s = try await Scenario()
        #expect(try await s.settleJoin() == "not-joining")
        #expect(try await s.settleJoin("eth0") == "not-joining")
    }

    @Test func onlyRootMayHoldAJoin() async throws {
        let s = try await Scenario()
        let r = try await s.runAsNobody(["busctl", "--address=\(s.bus.address)", "call", HotspotContract.busName.rawValue,
                                         HotspotContract.managerPath.rawValue, HotspotContract.managerInterface.rawValue, "SettleJoin", "s", "wlan0"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("NetworkManager's pre-up dispatcher"), "\(r.stderr)")
    }

    /// Without the dispatcher (the join seen only at ACTIVATED) a sign-in still has NetworkManager
    /// check again at once.
    @Test func aSignInAfterActivatedAlsoHasNetworkManagerCheckAgain() async throws {
        let s = try await Scenario()
        _ = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        try await s.join("CityFree")
        try await s.waitFor("authenticated")
        try await s.waitUntil("NetworkManager asked to check connectivity") { try await s.networkManagerChecks() == 1 }
    }

    @Test func theScanListAnnouncesChangesOfItsAnnotationsOnly() async throws {
        let s = try await Scenario()
        let announced = try await s.client.signals(matching: MatchRule(sender: HotspotContract.busName, path: s.interfacePath,
                                                                       interface: HotspotContract.interfaceInterface,
                                                                       member: HotspotContract.Interface.scanListChanged.name))
        let first = Task { () -> Bool in
            for await _ in announced { return true }
            return false
        }
        _ = try await s.helper("Cafe", script: HelperScript(claims: ["CityFree": nil]))
        try await s.waitUntil("the claim in GetScanList") {
            let list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface,
                                               member: HotspotContract.Interface.getScanList.name).first?.arrayItems?.compactMap(\.varDict) ?? []
            return list.contains { $0["display-name"]?.string == "Cafe" }
        }
        #expect(await first.value)
    }
}
