// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import NetworkManager
import Testing

/// The daemon provisions in-memory NetworkManager profiles holding a helper's password as a
/// system-owned secret, follows the helper (password changes, unregistering), never touches a
/// profile the user made, and cleans up when it stops. Against python-dbusmock's NetworkManager
/// with AddConnection2/Update2 added.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ProvisioningTests {
    static let password = "first-secret-pw"
    static let changed = "second-secret-pw"

    /// The profiles the mock holds for `ssid`.
    static func profiles(_ s: Scenario, _ ssid: String) async throws -> [HeldProfile] {
        try await NetworkManagerClient(connection: s.client).wifiProfiles().filter { $0.ssid == Array(ssid.utf8) }
    }

    /// Waits until `condition` holds (woken by the bus, the daemon's log and the helpers'
    /// commands); fails with the daemon's log otherwise.
    static func eventually(_ s: Scenario, _ what: String, timeout: Duration = SafetyNet.wait,
                           _ condition: () async throws -> Bool) async throws {
        try await s.waitUntil(what, timeout: timeout, condition)
    }

    /// A scenario with AddConnection2/Update2 in the mock and a helper "Coffee" claiming `claims`;
    /// returns once the daemon has provisioned CoffeeShop, with that profile.
    static func provisioned(identifier: String = "Coffee", claims: [String: String?] = ["CoffeeShop": password])
        async throws -> (s: Scenario, helper: HotspotHelper, script: HelperScript, profile: HeldProfile)
    {
        let s = try await Scenario()
        try await s.nm.addProfileMethods(s.client)
        let (helper, script) = try await s.helper("Coffee", identifier: identifier, script: HelperScript(claims: claims))
        try await eventually(s, "no profile for CoffeeShop") { try await !profiles(s, "CoffeeShop").isEmpty }
        let profile = try #require(try await profiles(s, "CoffeeShop").first)
        return (s, helper, script, profile)
    }

    /// A scan-list change, so helpers get a new filter-scan-list round.
    static func rescan(_ s: Scenario, _ n: Int) async throws {
        _ = try await s.mock("AddAccessPoint", [.string(s.device), .string("extra\(n)"), .string("Elsewhere\(n)"),
                                                .string(String(format: "0A:00:00:00:01:%02X", n)), .uint32(2), .uint32(2412), .uint32(54000),
                                                .byte(40), .uint32(0)])
    }

    @Test func aHelpersPasswordBecomesAnInMemoryProfileThatFollowsTheHelper() async throws {
        let (s, helper, script, profile) = try await Self.provisioned(identifier: "com.example.coffee",
                                                                     claims: ["CoffeeShop": Self.password, "CityFree": "open-network-pw"])
        #expect(profile.isProvisioned && profile.helper == "com.example.coffee" && profile.keyManagement == "wpa-psk")
        #expect(try await s.nm.profileSecret(s.client, profile: profile.path) == Self.password)
        #expect(try await s.nm.profileWrites(s.client, profile: profile.path).map(\.flags) == [0x2],
                "AddConnection2 with IN_MEMORY only: not to disk, autoconnect not blocked")
        let settings = try await NetworkManagerClient(connection: s.client).settings(of: profile.path)
        #expect(settings["802-11-wireless-security"]?["psk-flags"] == .uint32(0))
        #expect(settings["connection"]?["permissions"] == nil)
        #expect(try await Self.profiles(s, "CityFree").isEmpty, "an open network needs no profile")

        // The password changes: the same profile is rewritten in memory.
        script.plan.withLock { $0.claims["CoffeeShop"] = .some(Self.changed) }
        try await Self.rescan(s, 1)
        try await Self.eventually(s, "the profile never got the new password") {
            try await s.nm.profileSecret(s.client, profile: profile.path) == Self.changed
        }
        #expect(try await s.nm.profileWrites(s.client, profile: profile.path).map(\.method) == ["AddConnection2", "Update2"])
        #expect(try await s.nm.profileWrites(s.client, profile: profile.path).map(\.flags) == [0x2, 0x2])
        #expect(try await Self.profiles(s, "CoffeeShop").map(\.path) == [profile.path])

        // The helper goes: so does its profile.
        try await helper.unregister()
        try await Self.eventually(s, "the profile outlived its helper") { try await Self.profiles(s, "CoffeeShop").isEmpty }
        #expect(!s.daemon.log.contains(Self.password) && !s.daemon.log.contains(Self.changed), "the daemon logged a password")
    }

    @Test func theUsersProfilesAreNeverTouchedAndADeletedProfileStaysDeletedUntilForgotten() async throws {
        let (s, _, script, ours) = try await Self.provisioned()

        // The user deletes it (the desktop's "Forget"): it is not added again when the password changes…
        try await NetworkManagerClient(connection: s.client).deleteProfile(ours.path)
        script.plan.withLock { $0.claims["CoffeeShop"] = .some(Self.changed) }
        try await Self.rescan(s, 1)
        try await Self.eventually(s, "the daemon did not notice the deletion") { s.daemon.log.contains("was deleted by someone else") }
        #expect(try await Self.profiles(s, "CoffeeShop").isEmpty)

        // …but is after ForgetNetwork, with the current password.
        _ = try await s.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                    member: "ForgetNetwork", body: [.bytes(Array("CoffeeShop".utf8))])
        try await Self.eventually(s, "ForgetNetwork did not provision afresh") { try await !Self.profiles(s, "CoffeeShop").isEmpty }
        let again = try #require(try await Self.profiles(s, "CoffeeShop").first)
        // The rescan's new claim may reach the provisioner after a reconcile started by the same
        // scan's sightings: the profile ends with the current password, perhaps one write later.
        try await Self.eventually(s, "the profile provisioned afresh never got the current password") {
            try await s.nm.profileSecret(s.client, profile: again.path) == Self.changed
        }

        // The user makes a profile of their own: ours is withdrawn, theirs is left alone.
        let user = try await s.mock("AddWiFiConnection", [.string(s.device), .string("mine"), .string("CoffeeShop"), .string("")]).first?.string ?? ""
        script.plan.withLock { $0.claims["CoffeeShop"] = .some(Self.password) }
        try await Self.rescan(s, 2)
        try await Self.eventually(s, "our profile stayed beside the user's") {
            try await Self.profiles(s, "CoffeeShop").map(\.path.rawValue) == [user]
        }
        let methods = try await s.calls(user).map(\.method)
        #expect(methods.allSatisfy { $0 == "GetSettings" || $0 == "GetAll" }, "the user's profile was modified: \(methods)")
    }

    /// The user's own profile keeps the daemon from provisioning that network; when the user
    /// deletes it (the desktop's "Forget"), the network is provisioned at once, with no scan, claim
    /// or join in between (it used to wait for the next one: a user who then picked the network
    /// joined without the helper's password).
    @Test func deletingTheUsersOwnProfileProvisionsTheNetworkAtOnce() async throws {
        let s = try await Self.provisioned().s
        let user = try #require(try await s.mock("AddWiFiConnection", [.string(s.device), .string("mine"), .string("CoffeeShop"), .string("")])
            .first?.string)
        try await Self.rescan(s, 1)
        try await Self.eventually(s, "our profile stayed beside the user's") {
            try await Self.profiles(s, "CoffeeShop").map(\.path.rawValue) == [user]
        }

        try await NetworkManagerClient(connection: s.client).deleteProfile(ObjectPath(user))
        try await Self.eventually(s, "the network was not provisioned after the user's profile went") {
            try await Self.profiles(s, "CoffeeShop").contains(where: \.isProvisioned)
        }
    }

    @Test func aNetworkOutOfRangeKeepsItsProfile() async throws {
        let (s, _, script, ours) = try await Self.provisioned()
        let before = script.received.filter { $0 == .filterScanList }.count
        _ = try await s.mock("RemoveAccessPoint", [.string(s.device), .string("/org/freedesktop/NetworkManager/AccessPoint/ap2")])
        try await Self.rescan(s, 1)
        try await Self.eventually(s, "no new filter-scan-list round") { script.received.filter { $0 == .filterScanList }.count > before }
        #expect(try await s.holdsThroughout(.milliseconds(300)) { try await Self.profiles(s, "CoffeeShop").map(\.path) == [ours.path] },
                "\(s.daemon.log.suffix(3000))")
        #expect(try await s.nm.profileWrites(s.client, profile: ours.path).map(\.method) == ["AddConnection2"])
    }

    /// Forgetting a network no helper supplies a password for has no profile to provision: the
    /// daemon reads none of NetworkManager's (the reads competed with the next join).
    /// A forgotten claimed network is still provisioned afresh, after one read.
    @Test func forgettingANetworkWithoutAPasswordReadsNoProfiles() async throws {
        let (s, _, _, ours) = try await Self.provisioned()
        let settings = "/org/freedesktop/NetworkManager/Settings"
        func listings() async throws -> Int { try await s.calls(settings).filter { $0.method == "ListConnections" }.count }
        func forget(_ ssid: String) async throws {
            _ = try await s.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                        interface: HotspotContract.managerInterface, member: "ForgetNetwork", body: [.bytes(Array(ssid.utf8))])
        }
        let before = try await listings()
        try await forget("Library")
        try await forget("CoffeeShop")
        try await Self.eventually(s, "the forgotten CoffeeShop was not written afresh") {
            try await s.nm.profileWrites(s.client, profile: ours.path).map(\.method).contains("Update2")
        }
        // One reconciliation (CoffeeShop's): Library's would have read the profiles first.
        #expect(try await listings() == before + 1, "\(s.daemon.log.suffix(3000))")
    }

    @Test func aProfileInUseIsWithdrawnOnlyOnceTheConnectionEnds() async throws {
        let (s, helper, _, ours) = try await Self.provisioned()
        let active = try await s.mock("AddActiveConnection", [.strings([s.device]), .string(ours.path.rawValue),
                                                               .string("/org/freedesktop/NetworkManager/AccessPoint/ap2"), .string("inuse"), .uint32(2)])
        try await helper.unregister()
        try await Self.eventually(s, "the daemon never reconsidered the profile") { s.daemon.log.contains("helper Coffee unregistered") }
        #expect(try await s.holdsThroughout(.milliseconds(500)) { try await Self.profiles(s, "CoffeeShop").map(\.path) == [ours.path] },
                "deleting it would have cut the user off")
        _ = try await s.mock("RemoveActiveConnection", [.string(s.device), .string(active.first?.string ?? "")])
        try await Self.eventually(s, "the profile stayed after the connection ended") { try await Self.profiles(s, "CoffeeShop").isEmpty }
    }

    @Test func aRestartedDaemonAdoptsItsEarlierProfileInsteadOfAddingAnother() async throws {
        let (s, _, script, ours) = try await Self.provisioned()
        // Killed: no chance to clean up. The helper registers again with the next daemon (as
        // HotspotHelperKit does), this time with another password.
        script.plan.withLock { $0.claims["CoffeeShop"] = .some(Self.changed) }
        s.daemon.process.send(SIGKILL)
        _ = await s.daemon.process.waitForExit()
        try await s.bus.waitForNameGone(HotspotContract.busName.rawValue)
        let second = try await DaemonProcess.start(on: s.bus, settings: ["command-timeout": "2", "filter-interval": "0.2", "provision-after": "0"])
        try await Self.eventually(s, "the earlier profile was not rewritten") {
            try await s.nm.profileSecret(s.client, profile: ours.path) == Self.changed
        }
        #expect(try await Self.profiles(s, "CoffeeShop").map(\.path) == [ours.path], "no second profile\n\(second.log)")
        #expect(try await s.nm.profileWrites(s.client, profile: ours.path).map(\.method) == ["AddConnection2", "Update2"])
        #expect(!second.log.contains(Self.changed))
    }

    @Test func aFailedSignInSwitchesAutoconnectOffInMemoryAndANewPasswordKeepsItOff() async throws {
        let (s, _, script, ours) = try await Self.provisioned()
        script.plan.withLock { $0.confidence = .high; $0.results[.authenticate] = .failure }
        let client = NetworkManagerClient(connection: s.client)
        _ = try await s.mock("AddActiveConnection", [.strings([s.device]), .string(ours.path.rawValue),
                                                      .string("/org/freedesktop/NetworkManager/AccessPoint/ap2"), .string("failing"), .uint32(2)])
        try await s.waitForDisconnect()
        try await Self.eventually(s, "autoconnect was not switched off") {
            try await client.settings(of: ours.path)["connection"]?["autoconnect"] == .bool(false)
        }
        #expect(try await !s.calls(ours.path.rawValue).contains { $0.method == "Update" },
                "Update would have saved the profile, password included, to disk")
        #expect(try await s.nm.profileWrites(s.client, profile: ours.path).map(\.flags).allSatisfy { $0 == 0x2 })

        script.plan.withLock { $0.claims["CoffeeShop"] = .some(Self.changed) }
        try await Self.rescan(s, 1)
        try await Self.eventually(s, "the new password was not written") { try await s.nm.profileSecret(s.client, profile: ours.path) == Self.changed }
        #expect(try await client.settings(of: ours.path)["connection"]?["autoconnect"] == .bool(false), "a new password undid the failure")

        _ = try await s.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                    member: "ForgetNetwork", body: [.bytes(Array("CoffeeShop".utf8))])
        try await Self.eventually(s, "forgetting did not switch autoconnect back on") {
            try await client.settings(of: ours.path)["connection"]?["autoconnect"] == .bool(true)
        }
        #expect(try await !s.calls(ours.path.rawValue).contains { $0.method == "Update" })
    }

    @Test func provisioningCanBeSwitchedOff() async throws {
        let s = try await Scenario(settings: ["provision-profiles": "false"])
        try await s.nm.addProfileMethods(s.client)
        let (_, script) = try await s.helper("Coffee", script: HelperScript(claims: ["CoffeeShop": Self.password]))
        try await Self.eventually(s, "no filter-scan-list answered") { script.received.contains(.filterScanList) }
        #expect(try await s.holdsThroughout(.milliseconds(500)) { try await Self.profiles(s, "CoffeeShop").isEmpty })
        #expect(s.daemon.log.contains("provisioning is off"))
    }

    @Test func stoppingTheDaemonWithdrawsItsProfiles() async throws {
        let (s, _, _, _) = try await Self.provisioned()
        s.daemon.process.send(SIGTERM)
        #expect(await s.daemon.process.waitForExit() == 0, "\(s.daemon.log.suffix(3000))")
        #expect(try await Self.profiles(s, "CoffeeShop").isEmpty, "\(s.daemon.log.suffix(3000))")
    }
}
