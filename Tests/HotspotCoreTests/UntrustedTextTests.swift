// SPDX-License-Identifier: Apache-2.0
import Testing

import HotspotCore

/// Text from networks, helpers and files cannot forge or flood a log line.
@Suite struct UntrustedTextTests {
    @Test func forgedLogLineWithEmbeddedNewlineStaysOnOneLine() {
        let hostile = "ok\nNov 22 09:00:00 host hotspot-helperd[1]: helper root granted"
        let safe = UntrustedText.forLog(hostile)
        #expect(!safe.contains("\n"))
        #expect(safe.hasPrefix("ok\\nNov 22"))
    }

    @Test func terminalEscapesAndBidiOverridesAreEscaped() {
        let safe = UntrustedText.forLog("a\u{1B}[2Jb\u{202E}c\u{7F}d\u{85}e\r")
        #expect(safe == "a\\u{1B}[2Jb\\u{202E}c\\u{7F}d\\u{85}e\\r")
        #expect(!safe.unicodeScalars.contains { UntrustedText.needsEscape($0) })
    }

    @Test func backslashIsEscapedSoAnEscapeCannotBeFaked() {
        #expect(UntrustedText.forLog(#"x\ny"#) == #"x\\ny"#)
    }

    @Test func megabyteOfPortalHTMLIsCappedAndSaysHowMuchWasLeftOut() {
        let page = String(repeating: "<p>", count: 400_000)
        let safe = UntrustedText.forLog(page, limit: 10)
        #expect(safe == "<p><p><p><…(+1199990 more)")
    }

    @Test func ordinaryTextIsUnchanged() {
        #expect(UntrustedText.forLog("Café Wi-Fi — sign in ✓") == "Café Wi-Fi — sign in ✓")
        #expect(UntrustedText.forLog("") == "")
    }

    @Test func invalidUTF8BytesAreReplacedNotPassedThrough() {
        let safe = UntrustedText.forLog(bytes: [0x41, 0xFF, 0x0A, 0x42])
        #expect(safe == "A\u{FFFD}\\nB")
    }

    /// Every format character (Unicode's Cf) is escaped: the Arabic letter mark, isolates,
    /// zero-width characters, the soft hyphen, tags; not just C0, DEL and the overrides.
    @Test func bidiIsolatesZeroWidthAndOtherFormatCharactersAreEscaped() {
        let safe = UntrustedText.forLog("a\u{061C}b\u{2066}c\u{2069}d\u{200B}e\u{200D}f\u{2060}g\u{00AD}h\u{E0041}i")
        #expect(safe == "a\\u{61C}b\\u{2066}c\\u{2069}d\\u{200B}e\\u{200D}f\\u{2060}g\\u{AD}h\\u{E0041}i")
        for v: UInt32 in [0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x202E, 0x2060, 0x2064, 0x2066, 0x2069, 0xFEFF, 0xFFF9, 0x110BD, 0xE0001] {
            #expect(UntrustedText.needsEscape(Unicode.Scalar(v)!), "U+\(String(v, radix: 16))")
        }
    }

    /// A stack of 300 combining marks keeps its first few; the rest are escapes, which do not stack.
    @Test func longCombiningRunsAreCapped() {
        let safe = UntrustedText.forLog("Z" + String(repeating: "\u{301}", count: 300), limit: 400)
        #expect(UntrustedText.longestCombiningRun(safe) == UntrustedText.maximumCombiningRun)
        #expect(safe.hasPrefix("Z" + String(repeating: "\u{301}", count: UntrustedText.maximumCombiningRun) + "\\u{301}"))
        #expect(UntrustedText.forLog("Tiếng Việt") == "Tiếng Việt")
    }

    /// An SSID's display form (the "joined …" log line, hotspotctl) is escaped the same way.
    @Test func ssidWithARightToLeftOverrideIsShownEscaped() {
        #expect(SSID("Free\u{202E}iFW").displayForm == "Free\\u{202E}iFW")
        #expect(SSID("Cafe\u{200B}").displayForm == "Cafe\\u{200B}")
        #expect(SSID("Café").displayForm == "Café")
    }

    /// Names compared as a person reads them (the built-in helpers' names are reserved so).
    @Test func nameFoldingIgnoresCaseSpacingInvisiblesAndCompatibilityForms() {
        let key = NameFolding.key("Known Networks")
        #expect(key == "knownnetworks")
        for same in ["Known\u{200B}Networks", "KnownNetworks", "KNOWN   NETWORKS", "Ｋｎｏｗｎ Ｎｅｔｗｏｒｋｓ", "Known\u{3000}Networks", "\u{FEFF}known networks ",
                     "𝐊𝐧𝐨𝐰𝐧 𝐍𝐞𝐭𝐰𝐨𝐫𝐤𝐬", "Known\u{FE0F}Networks"] {
            #expect(NameFolding.key(same) == key, "\(UntrustedText.forLog(same))")
        }
        for other in ["Known Network", "Knöwn Networks", "Unknown Networks"] { #expect(NameFolding.key(other) != key) }
    }
}
