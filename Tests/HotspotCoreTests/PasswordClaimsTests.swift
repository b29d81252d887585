// SPDX-License-Identifier: Apache-2.0
@testable import HotspotCore
import Testing

/// How helpers' claims are kept for provisioning: which password each network gets.
struct PasswordClaimsTests {
    static func helper(_ id: String, order: UInt64) -> RegisteredHelper {
        RegisteredHelper(identifier: HelperID(id), displayName: id, commands: Set(CommandType.allCases), registrationOrder: order)
    }
    static let cafe = SSID("Cafe")
    static let cafeList = [Network(ssid: cafe, securityClass: .personal)]

    @Test func aClaimStandsUntilTheHelperIsAskedAboutTheNetworkAgainOrLeaves() {
        var c = PasswordClaims()
        let a = Self.helper("a", order: 1)
        c.record(a, asked: Self.cafeList, claims: [ScanClaim(ssid: Self.cafe, confidence: .low, password: Password("pass-a-1"))])
        #expect(c.passwords()[Self.cafe]?.password == Password("pass-a-1"))
        // Asked about other networks only (Cafe out of range, another interface): the claim stands.
        c.record(a, asked: [Network(ssid: SSID("Elsewhere"))], claims: [])
        c.record(a, asked: [], claims: [])
        #expect(c.passwords()[Self.cafe]?.password == Password("pass-a-1"))
        // Asked about Cafe and not claiming it (or confidence none): withdrawn.
        c.record(a, asked: Self.cafeList, claims: [ScanClaim(ssid: Self.cafe, confidence: .none, password: Password("x"))])
        #expect(c.passwords().isEmpty, "confidence none is no claim")
        c.record(a, asked: Self.cafeList, claims: [ScanClaim(ssid: Self.cafe, confidence: .low, password: Password("pass-a-2"))])
        #expect(c.passwords()[Self.cafe]?.password == Password("pass-a-2"), "a new answer replaces the old password")
        c.remove(HelperID("a"))
        #expect(c.passwords().isEmpty)
    }

    @Test func conflictsResolveAsTheScanListDoes() {
        var c = PasswordClaims()
        c.record(Self.helper("early", order: 1), asked: Self.cafeList, claims: [ScanClaim(ssid: Self.cafe, confidence: .low, password: Password("early-pass"))])
        c.record(Self.helper("late", order: 2), asked: Self.cafeList, claims: [ScanClaim(ssid: Self.cafe, confidence: .low, password: Password("late-pass"))])
        #expect(c.passwords()[Self.cafe]?.helper == HelperID("early"), "equal confidence: the earlier registration")
        c.record(Self.helper("late", order: 2), asked: Self.cafeList, claims: [ScanClaim(ssid: Self.cafe, confidence: .high, password: Password("late-pass"))])
        #expect(c.passwords()[Self.cafe]?.password == Password("late-pass"), "higher confidence wins")
        // A winner without a password means no password, as for the secret agent.
        c.record(Self.helper("late", order: 2), asked: Self.cafeList, claims: [ScanClaim(ssid: Self.cafe, confidence: .high)])
        #expect(c.passwords().isEmpty)
        // A claim for one BSSID supplies the network's password.
        c.remove(HelperID("late"))
        c.record(Self.helper("early", order: 1), asked: Self.cafeList,
                 claims: [ScanClaim(ssid: Self.cafe, bssid: "0a:00:00:00:00:01", confidence: .low, password: Password("bssid-pass"))])
        #expect(c.passwords()[Self.cafe]?.password == Password("bssid-pass"))
    }
}
