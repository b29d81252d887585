// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

@Suite struct ScanListAnnotatorTests {
    static func helper(_ id: HelperID, order: UInt64) -> RegisteredHelper {
        RegisteredHelper(identifier: id, displayName: "Helper \(id)", commands: [.filterScanList], registrationOrder: order)
    }

    @Test func higherConfidenceWinsOverEarlierRegistration() {
        let annotator = ScanListAnnotator(claims: [
            (helper: Self.helper("early", order: 0), claims: [ScanClaim(ssid: SSID("Net"), confidence: .low)]),
            (helper: Self.helper("late", order: 1), claims: [ScanClaim(ssid: SSID("Net"), confidence: .high)]),
        ])
        #expect(annotator.annotation(for: network("Net"))?.helper == "late")
    }

    @Test func equalConfidenceGoesToTheEarlierRegistrationWhateverTheOrderOfClaims() {
        let annotator = ScanListAnnotator(claims: [
            (helper: Self.helper("late", order: 5), claims: [ScanClaim(ssid: SSID("Net"), confidence: .low)]),
            (helper: Self.helper("early", order: 2), claims: [ScanClaim(ssid: SSID("Net"), confidence: .low)]),
        ])
        #expect(annotator.annotation(for: network("Net"))?.displayName == "Helper early")
    }

    @Test func claimsWithConfidenceNoneAnnotateNothing() {
        let annotator = ScanListAnnotator(claims: [
            (helper: Self.helper("a", order: 0), claims: [ScanClaim(ssid: SSID("Net"), confidence: Confidence.none)])
        ])
        #expect(annotator.annotate([network("Net")]).first?.annotation == nil)
    }

    @Test func claimNamingABSSIDAppliesToThatAccessPointOnly() {
        let annotator = ScanListAnnotator(claims: [
            (helper: Self.helper("a", order: 0), claims: [ScanClaim(ssid: SSID("Net"), bssid: "AA:00", confidence: .low)])
        ])
        let annotated = annotator.annotate([network("Net", bssid: "aa:00"), network("Net", bssid: "bb:00")])
        #expect(annotated.map(\.displayName) == ["Helper a", nil])
    }

    @Test func annotationKeepsTheScanListOrderAndThePassword() {
        let annotator = ScanListAnnotator(claims: [
            (helper: Self.helper("a", order: 0), claims: [ScanClaim(ssid: SSID("B"), confidence: .high, password: Password("s3cret"))])
        ])
        let annotated = annotator.annotate([network("A"), network("B"), network("C")])
        #expect(annotated.map(\.network.ssid) == [SSID("A"), SSID("B"), SSID("C")])
        #expect(annotated.map(\.hasPassword) == [false, true, false])
        #expect(annotated[1].annotation?.password?.secret == "s3cret")
    }

    @Test func passwordsNeverAppearInDescriptions() {
        let claim = ScanClaim(ssid: SSID("B"), confidence: .high, password: Password("s3cret"))
        #expect(!String(describing: claim).contains("s3cret"))
        #expect(!String(reflecting: claim).contains("s3cret"))
    }

    /// Every access point finds its own claim among many (how fast is profiles-benchmark's to
    /// measure, not a test's: the suite must pass on a busy machine).
    @Test func annotatesAThousandAccessPointsAgainstAHundredThousandClaims() {
        let claims = (0..<100_000).map { ScanClaim(ssid: SSID("profile-\($0)"), confidence: $0 % 2 == 0 ? .low : .high) }
        let networks = (0..<1_000).map { network("profile-\($0 * 37)", bssid: "b\($0)") }
        let annotated = ScanListAnnotator(claims: [(helper: Self.helper("kn", order: 0), claims: claims)]).annotate(networks)
        #expect(annotated.count == networks.count)
        for (i, entry) in annotated.enumerated() {
            #expect(entry.network.ssid == SSID("profile-\(i * 37)"))
            #expect(entry.annotation?.confidence == ((i * 37) % 2 == 0 ? .low : .high), "\(entry)")
        }
    }

    @Test func ssidDisplayFormEscapesWhatCannotBeShown() {
        #expect(SSID("Café").displayForm == "Café")
        #expect(SSID(bytes: [0x41, 0xFF, 0x5C]).displayForm == "A\\xff\\x5c")
        #expect(SSID(bytes: [0x41, 0x0A]).displayForm == "A\\n")
    }
}
