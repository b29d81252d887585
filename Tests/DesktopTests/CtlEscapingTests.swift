// SPDX-License-Identifier: Apache-2.0
@testable import HotspotCtlCommand
import Testing

extension DesktopTests {
    /// hotspotctl escapes at every output, whatever the daemon checked: a helper's name or
    /// purpose, a URL, a line of `monitor`.
    @Suite struct CtlEscapingTests {
        @Test func everyTableCellIsEscapedAsTheNetworksTableIs() {
            // `hotspotctl helpers`' table, with what a daemon that checked nothing would pass on.
            let table = Output.table(["IDENTIFIER", "NAME", "STATE", "COMMANDS VIA", "PURPOSE"],
                                     [["com.example.evil", "Free\u{202E}iFW", "active", "bus", "line one\nline two\u{1B}[2J"]])
            let lines = table.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2, "a newline in a cell made another line:\n\(table)")
            #expect(table.contains("Free\\u{202E}iFW"), "\(table)")
            #expect(table.contains("line one\\nline two\\u{1B}[2J"), "\(table)")
            #expect(!table.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{1B}" })
        }

        @Test func textEscapedAlreadyIsNotEscapedTwice() {
            // An SSID's display form and the daemon's Reason arrive escaped.
            #expect(Output.safe("Caf\\u{202E}e") == "Caf\\u{202E}e")
            #expect(Output.safe("Café ☕ 星巴克") == "Café ☕ 星巴克")
            #expect(Output.table(["SSID"], [["Office\\u{200B}"]]).hasSuffix("Office\\u{200B}"))
        }

        @Test func aLongNameIsCut() {
            let cell = Output.safe(String(repeating: "n", count: 10_000))
            #expect(cell.unicodeScalars.count < 450 && cell.hasSuffix("…(+9600 more)"), "\(cell.suffix(20))")
        }

        @Test func printedLinesAreOneLine() {
            #expect(Output.line("wlan0: present-ui sent to Evil\nhotspot-helperd: signed in") == "wlan0: present-ui sent to Evil\\nhotspot-helperd: signed in")
        }
    }
}
