// SPDX-License-Identifier: Apache-2.0
import Testing

import HotspotCore

/// Issue 14 item 3: text from networks, helpers and files cannot forge or flood a log line.
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
}
