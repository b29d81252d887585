// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import Testing

/// A profile provisioning wants, as the plan sees it: a WPA-PSK passphrase is 8 to 63 characters.
struct TestSpec: WantedProfile {
    enum KeyManagement { case wpaPSK, sae }
    var ssid: [UInt8]
    var keyManagement: KeyManagement
    var password: String
    var helper: String
    var hasValidPassword: Bool { (8...63).contains(password.count) }
}

/// A profile NetworkManager holds, at a numbered path.
struct TestHeld: HeldWiFiProfile {
    var path: Int
    var uuid: String
    var ssid: [UInt8]
    var isProvisioned: Bool
    var autoconnect = true
}

/// The pure provisioning policy: which profiles to add, rewrite and withdraw given the claims
/// and what NetworkManager holds.
struct ProfilePlanTests {
    typealias ProfilePlan = HotspotCore.ProfilePlan<TestSpec, TestHeld>

    static func spec(_ ssid: String, _ password: String = "password-1", km: TestSpec.KeyManagement = .wpaPSK, helper: String = "h1") -> TestSpec {
        TestSpec(ssid: Array(ssid.utf8), keyManagement: km, password: password, helper: helper)
    }
    static func held(_ n: Int, _ ssid: String, marked: Bool = true, uuid: String? = nil) -> TestHeld {
        TestHeld(path: n, uuid: uuid ?? "uuid-\(n)", ssid: Array(ssid.utf8), isProvisioned: marked)
    }
    static func plan(wanted: [TestSpec], held: [TestHeld] = [], written: [String: TestSpec] = [:],
                     declined: Set<[UInt8]> = [], active: Set<Int> = [], adopting: Bool = false) -> ProfilePlan {
        ProfilePlan(wanted: wanted, held: held, written: written, declined: declined, active: active, adopting: adopting)
    }

    @Test func aClaimedNetworkGetsAProfileOnce() {
        #expect(Self.plan(wanted: [Self.spec("Cafe")]).actions == [.add(Self.spec("Cafe"))])
        // Already written with this password: nothing to do.
        let p = Self.plan(wanted: [Self.spec("Cafe")], held: [Self.held(1, "Cafe")], written: ["uuid-1": Self.spec("Cafe")])
        #expect(p.actions.isEmpty)
    }

    @Test func aChangedPasswordOrKeyManagementRewritesTheProfile() {
        let old = ["uuid-1": Self.spec("Cafe", "password-1")]
        #expect(Self.plan(wanted: [Self.spec("Cafe", "password-2")], held: [Self.held(1, "Cafe")], written: old).actions
                == [.update(Self.held(1, "Cafe"), Self.spec("Cafe", "password-2"), autoconnect: true)])
        #expect(Self.plan(wanted: [Self.spec("Cafe", km: .sae)], held: [Self.held(1, "Cafe")], written: old).actions
                == [.update(Self.held(1, "Cafe"), Self.spec("Cafe", km: .sae), autoconnect: true)])
        // Autoconnect switched off after a failed sign-in stays off through a new password…
        var off = Self.held(1, "Cafe")
        off.autoconnect = false
        #expect(Self.plan(wanted: [Self.spec("Cafe", "password-2")], held: [off], written: old).actions
                == [.update(off, Self.spec("Cafe", "password-2"), autoconnect: false)])
        // …until the network is forgotten.
        #expect(ProfilePlan(wanted: [Self.spec("Cafe")], held: [off], written: [:], declined: [], active: [], adopting: false,
                            fresh: [Array("Cafe".utf8)]).actions == [.update(off, Self.spec("Cafe"), autoconnect: true)])
        // A marked profile this run did not write (an earlier run's) is rewritten once claimed:
        // its secret cannot be read back.
        #expect(Self.plan(wanted: [Self.spec("Cafe")], held: [Self.held(1, "Cafe")]).actions
                == [.update(Self.held(1, "Cafe"), Self.spec("Cafe"), autoconnect: true)])
    }

    @Test func aProfileNoHelperClaimsIsWithdrawnUnlessInUse() {
        let written = ["uuid-1": Self.spec("Cafe")]
        #expect(Self.plan(wanted: [], held: [Self.held(1, "Cafe")], written: written).actions == [.delete(Self.held(1, "Cafe"), .unclaimed)])
        #expect(Self.plan(wanted: [], held: [Self.held(1, "Cafe")], written: written, active: [Self.held(1, "Cafe").path]).actions.isEmpty,
                "deleting an active profile would cut the user off")
    }

    @Test func profilesTheUserMadeAreNeverTouchedAndWin() {
        let user = Self.held(1, "Cafe", marked: false)
        // Not provisioned next to the user's own profile…
        #expect(Self.plan(wanted: [Self.spec("Cafe")], held: [user]).actions.isEmpty)
        // …and ours is withdrawn when the user makes one; the user's is never in any action.
        let p = Self.plan(wanted: [Self.spec("Cafe")], held: [user, Self.held(2, "Cafe")], written: ["uuid-2": Self.spec("Cafe")])
        #expect(p.actions == [.delete(Self.held(2, "Cafe"), .userProfile)])
        let other = Self.held(3, "Home", marked: false)
        #expect(Self.plan(wanted: [], held: [other]).actions.isEmpty)
    }

    @Test func aProfileDeletedBySomeoneElseIsDeclined() {
        let p = Self.plan(wanted: [Self.spec("Cafe")], held: [], written: ["uuid-1": Self.spec("Cafe")])
        #expect(p.newlyDeclined == [Array("Cafe".utf8)])
        #expect(p.actions.isEmpty, "not added again behind the user's back")
        #expect(Self.plan(wanted: [Self.spec("Cafe")], declined: [Array("Cafe".utf8)]).actions.isEmpty)
    }

    @Test func earlierRunsProfilesAreKeptWhileAdoptingThenWithdrawn() {
        let leftover = Self.held(1, "Cafe")
        let adopting = Self.plan(wanted: [], held: [leftover], adopting: true)
        #expect(adopting.actions.isEmpty && adopting.keptWhileAdopting)
        #expect(Self.plan(wanted: [], held: [leftover], adopting: false).actions == [.delete(leftover, .unclaimed)])
        // Adoption does not shield what this run wrote.
        #expect(Self.plan(wanted: [], held: [leftover], written: ["uuid-1": Self.spec("Cafe")], adopting: true).actions
                == [.delete(leftover, .unclaimed)])
    }

    @Test func oneProfilePerNetwork() {
        let p = Self.plan(wanted: [Self.spec("Cafe")], held: [Self.held(1, "Cafe"), Self.held(2, "Cafe")], written: ["uuid-1": Self.spec("Cafe")])
        #expect(p.actions == [.delete(Self.held(2, "Cafe"), .duplicate)])
    }

    @Test func invalidPasswordsAreNotProvisioned() {
        #expect(Self.plan(wanted: [Self.spec("Cafe", "short")]).actions.isEmpty)
    }

    @Test func shutdownWithdrawsWhatIsNotInUse() {
        let a = Self.held(1, "Cafe"), b = Self.held(2, "Bar"), user = Self.held(3, "Home", marked: false)
        #expect(ProfilePlan.withdrawAll(held: [a, b, user], active: [b.path]) == [.delete(a, .shutdown)])
    }
}
