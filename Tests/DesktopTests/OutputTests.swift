// SPDX-License-Identifier: Apache-2.0
@testable import HotspotCtlCommand
@testable import HotspotDaemonCommand
import Testing

extension DesktopTests {
    /// hotspotctl's printing and argument handling, and the daemon's journal lines, without a bus.
    @Suite struct OutputTests {
        @Test func displayWidthCountsWideCharactersAndEmojiAsTwoAndCombiningMarksAsNone() {
            #expect(DisplayWidth.of("CityFree") == 8)
            #expect(DisplayWidth.of("星巴克") == 6)
            #expect(DisplayWidth.of("ｗｉｆｉ") == 8)
            #expect(DisplayWidth.of("카페") == 4)
            #expect(DisplayWidth.of("Café ☕") == 7)
            #expect(DisplayWidth.of("e\u{301}") == 1)
            #expect(DisplayWidth.of("🇯🇵") == 2)
            #expect(DisplayWidth.of("👨‍👩‍👧") == 2)
            #expect(DisplayWidth.of("❤️") == 2)
            #expect(DisplayWidth.of("a\u{200B}b") == 2)
        }

        @Test func tableColumnsLineUpByDisplayWidthWithCJKAndEmojiSSIDs() {
            let table = Output.table(["SSID", "SIGNAL"], [["星巴克WiFi", "70"], ["Café ☕", "55"], ["plain", "40"]])
            let lines = table.split(separator: "\n").map(String.init)
            // The second column starts at the same display column on every line.
            let starts = lines.map { line -> Int in
                let prefix = line[..<line.range(of: line.hasPrefix("SSID") ? "SIGNAL" : String(line.split(separator: " ").last!))!.lowerBound]
                return DisplayWidth.of(String(prefix))
            }
            #expect(Set(starts).count == 1, "\(table)")
            #expect(starts.first == DisplayWidth.of("星巴克WiFi") + 2, "\(table)")
        }

        @Test func jsonMayComeBeforeOrAfterTheSubcommand() throws {
            #expect(HotspotCtl.movingGlobalFlags(["--json", "status"]) == ["status", "--json"])
            #expect(HotspotCtl.movingGlobalFlags(["--json", "networks", "wlan0"]) == ["networks", "--json", "wlan0"])
            #expect(HotspotCtl.movingGlobalFlags(["status", "--json"]) == ["status", "--json"])
            #expect(HotspotCtl.movingGlobalFlags(["--json"]) == ["--json"])
            #expect(HotspotCtl.movingGlobalFlags(["forget", "--json", "status"]) == ["forget", "--json", "status"])
            #expect(HotspotCtl.movingGlobalFlags(["--bogus", "status"]) == ["--bogus", "status"])
            let before = try HotspotCtl.parseAsRoot(HotspotCtl.movingGlobalFlags(["--json", "status"]))
            #expect((before as? Status)?.options.json == true)
            let after = try HotspotCtl.parseAsRoot(HotspotCtl.movingGlobalFlags(["status", "--json"]))
            #expect((after as? Status)?.options.json == true)
        }

        @Test func durationsPrintWithTwoDecimals() {
            #expect(Output.twoDecimals(0.25) == "0.25")
            #expect(Output.twoDecimals(1.005) == "1.00" || Output.twoDecimals(1.005) == "1.01")
            #expect(Output.twoDecimals(12.3) == "12.30")
            #expect(Output.twoDecimals(0.004) == "0.00")
            #expect(Output.twoDecimals(-1.5) == "-1.50")
        }

        @Test func daemonLogLinesCarryTheSyslogPriorityOfTheirLevel() {
            #expect(SyslogPriorityLogHandler.format(level: .error, message: "cannot take the bus name", metadata: [:]) == "<3>cannot take the bus name")
            #expect(SyslogPriorityLogHandler.format(level: .critical, message: "x", metadata: [:]) == "<2>x")
            #expect(SyslogPriorityLogHandler.format(level: .warning, message: "x", metadata: [:]) == "<4>x")
            #expect(SyslogPriorityLogHandler.format(level: .notice, message: "x", metadata: [:]) == "<5>x")
            #expect(SyslogPriorityLogHandler.format(level: .info, message: "x", metadata: ["b": "2", "a": "1"]) == "<6>x a=1 b=2")
            #expect(SyslogPriorityLogHandler.format(level: .debug, message: "x", metadata: [:]) == "<7>x")
            #expect(SyslogPriorityLogHandler.format(level: .error, message: "one\ntwo", metadata: [:]) == "<3>one\n<3>two")
            #expect(!JournalStream.isStandardError(environment: nil))
            #expect(!JournalStream.isStandardError(environment: "0:0"))
            #expect(!JournalStream.isStandardError(environment: "garbage"))
        }
    }
}
