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
    /// its command's deadline.
    @Test func aHungHelperHoldsTheJoinNoLongerThanTheBound() async throws {
        let s = try await Scenario(settings: ["join-hold": "1", "command-timeout": "30"])
        _ = try await s.helper("Stuck", script: HelperScript(confidence: .high, silent: [.authenticate]))
        try await s.joinHeld("CityFree")
        let started = ContinuousClock.now
        #expect(try await s.settleJoin() == "timed-out")
        let held = ContinuousClock.now - started
        #expect(held >= .seconds(1) && held < .seconds(30), "held \(held)")
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
