// SPDX-License-Identifier: Apache-2.0
/// Whether a helper's display name for one network would pass, to a person, for another network
/// in range: "CoffeeShop" claimed for Office2 while CoffeeShop is in range, or "CoffeeShoр" (with
/// a Cyrillic р). A person picks a network by the name shown; a helper that names Office2 after
/// the café next door sends them to the wrong one.
///
/// Compared by a skeleton in the manner of Unicode TR #39 (section 4, "Confusable Detection"):
/// ``NameFolding/key(_:)`` first (case folded; white space, format and default-ignorable characters
/// removed; fullwidth and other compatibility letters folded to ASCII), then a small table of the
/// common confusables mapped to the Latin letter they look like — the Cyrillic, Greek and Armenian
/// letters that are drawn as Latin ones, dotless i, the Latin letters and digits that look alike
/// once case is folded (0/o, 1/l/i/|, rn/m, vv/w) — and combining marks dropped. The table is
/// small on purpose: the shipped binary links no ICU (whose confusables.txt has 6,000 entries),
/// and the names at stake are short Latin-script SSIDs; what it misses shows as the name the
/// helper chose, as before.
public enum LookAlikeNames {
    /// The skeleton of `name`: two names with equal skeletons read alike.
    public static func skeleton(_ name: some StringProtocol) -> String {
        var out = ""
        for scalar in NameFolding.key(name).unicodeScalars {
            if UntrustedText.isCombiningMark(scalar) { continue }
            if let latin = confusables[scalar.value] { out += latin } else { out.unicodeScalars.append(scalar) }
        }
        // Sequences that read as one letter once case is folded.
        return out.replacing("rn", with: "m").replacing("vv", with: "w")
    }

    /// The SSID among `others` that `displayName` equals or could be taken for, unless the
    /// display name reads as `ownSSID` too (then showing it misleads no more than the SSID does).
    /// SSIDs are compared in their text form (invalid UTF-8 replaced).
    public static func impersonated(by displayName: String, ownSSID: SSID, others: [SSID]) -> SSID? {
        let name = skeleton(displayName)
        guard !name.isEmpty, name != skeleton(text(ownSSID)) else { return nil }
        return others.first { $0 != ownSSID && !$0.bytes.isEmpty && skeleton(text($0)) == name }
    }

    /// Helpers' filter-scan-list claims with every display name that impersonates another network
    /// in `inRange` replaced by the claimed network's own SSID (so the network shows its SSID),
    /// and what was refused, for the log. Each SSID's skeleton is made once: linear in the claims
    /// and the networks.
    public static func screen(_ claims: [ScanClaim], inRange: [Network]) -> (claims: [ScanClaim], refused: [Refusal]) {
        guard claims.contains(where: { $0.displayName != nil }) else { return (claims, []) }
        let ssids = Array(Set(inRange.map(\.ssid))).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        guard ssids.count > 1 else { return (claims, []) }
        var skeletonOf: [SSID: String] = [:]
        var ssidsBySkeleton: [String: [SSID]] = [:]
        for ssid in ssids where !ssid.bytes.isEmpty {
            let k = skeleton(text(ssid))
            skeletonOf[ssid] = k
            ssidsBySkeleton[k, default: []].append(ssid)
        }
        var refused: [Refusal] = []
        let screened = claims.map { claim -> ScanClaim in
            guard let name = claim.displayName else { return claim }
            let k = skeleton(name)
            let own = skeletonOf[claim.ssid] ?? skeleton(text(claim.ssid))
            guard !k.isEmpty, k != own, let other = ssidsBySkeleton[k]?.first(where: { $0 != claim.ssid }) else { return claim }
            refused.append(Refusal(ssid: claim.ssid, displayName: name, readsAs: other))
            var c = claim
            c.displayName = claim.ssid.displayForm
            return c
        }
        return (screened, refused)
    }

    static func text(_ ssid: SSID) -> String { String(decoding: ssid.bytes, as: UTF8.self) }

    /// A display name refused because it reads as another network in range.
    public struct Refusal: Equatable, Sendable, CustomStringConvertible {
        public let ssid: SSID
        public let displayName: String
        public let readsAs: SSID
        public var description: String {
            "the display name '\(UntrustedText.forLog(displayName))' for \(ssid.displayForm) reads as \(readsAs.displayForm), another network in range; "
                + "the network is shown by its SSID"
        }
    }

    /// Letters drawn like a Latin letter (lower case: the table applies after case folding),
    /// from TR #39's confusables.txt, prototype folded to lower case.
    static let confusables: [UInt32: String] = {
        var t: [UInt32: String] = [:]
        // Cyrillic.
        let cyrillic: [(UInt32, String)] = [(0x430, "a"), (0x432, "b"), (0x435, "e"), (0x450, "e"), (0x451, "e"), (0x43A, "k"), (0x43C, "m"), (0x43D, "h"),
                       (0x43E, "o"), (0x440, "p"), (0x441, "c"), (0x442, "t"), (0x443, "y"), (0x445, "x"), (0x455, "s"), (0x456, "l"),
                       (0x457, "l"), (0x458, "j"), (0x45B, "h"), (0x4BB, "h"), (0x501, "d"), (0x51B, "q"), (0x51D, "w"), (0x4CF, "l"),
                       (0x44C, "b"), (0x433, "r"), (0x43F, "n"), (0x4AF, "y"), (0x491, "r")]
        // Greek.
        let greek: [(UInt32, String)] = [(0x3B1, "a"), (0x3B2, "b"), (0x3B5, "e"), (0x3B7, "n"), (0x3B9, "l"), (0x3BA, "k"), (0x3BD, "v"), (0x3BF, "o"),
                       (0x3C1, "p"), (0x3C4, "t"), (0x3C5, "u"), (0x3C7, "x"), (0x3F2, "c"), (0x3F3, "j"), (0x3B6, "z"), (0x3BC, "u"),
                       (0x3C9, "w"), (0x3AF, "l"), (0x3CC, "o")]
        // Armenian, Latin look-alikes, digits and signs.
        let others: [(UInt32, String)] = [(0x585, "o"), (0x581, "g"), (0x570, "h"), (0x578, "n"), (0x57D, "u"), (0x56E, "d"), (0x131, "l"), (0x237, "j"),
                       (0x269, "l"), (0x261, "g"), (0x251, "a"), (0x1D0F, "o"), (0x1D04, "c"), (0x1D20, "v"), (0x1D21, "w"), (0x1D22, "z"),
                       (0x30, "o"), (0x31, "l"), (0x69, "l"), (0x7C, "l"), (0x2160, "l"), (0x217C, "l"), (0x2170, "l"),
                       (0x2010, "-"), (0x2011, "-"), (0x2012, "-"), (0x2013, "-"), (0x2212, "-"), (0x2014, "-"),
                       (0x2018, "'"), (0x2019, "'"), (0x2032, "'"), (0x60, "'")]
        for (c, l) in cyrillic + greek + others { t[c] = l }
        return t
    }()
}
