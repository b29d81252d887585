// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import BuiltInHelpers
import HotspotCore
import Foundation
import HotspotDaemon
import Testing
import HotspotProtocol

/// What the daemon says about a configuration it cannot use: every problem of the file at once,
/// in line order, as FILE:LINE with the key and the fix; an unknown group or key stops it (a typo
/// must not undo an administrator's choice), with `--check-config` to ask without starting.
@Suite("Configuration diagnostics")
struct ConfigurationDiagnosticsTests {
    /// The administrator's two typos and two bad values, in one file.
    static let typos = """
        [daemon]
        maintain-intervall=600
        command-timeout=soon

        [conectivity]
        enabled=false

        [daemon]
        provision-profiles=maybe
        """ + "\n"

    @Test func everyProblemOfAFileIsNamedInLineOrderWithTheKeyAndAFix() {
        let (_, problems) = DaemonConfiguration.check(Array(Self.typos.utf8), path: "/etc/h.conf")
        #expect(problems.map(\.description) == [
            "/etc/h.conf:2: unknown key 'maintain-intervall' in [daemon] (did you mean 'maintain-interval'?)",
            "/etc/h.conf:3: [daemon] command-timeout is not a number of seconds greater than 0 (decimals allowed, e.g. command-timeout=0.5)",
            "/etc/h.conf:5: unknown group [conectivity] (did you mean [connectivity]?); none of its keys is read. The groups are [daemon] and [connectivity] (hotspot-helperd(8))",
            "/etc/h.conf:9: [daemon] provision-profiles must be true or false",
        ])
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration.parse(Array(Self.typos.utf8), path: "/etc/h.conf") }
    }

    @Test func anUnknownKeyIsRefusedNotIgnoredAndAFarOffOneListsTheKeys() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try DaemonConfiguration.parse(Array("[connectivity]\nenable=false\nfrobnicate=1\n".utf8), path: "c.conf")
        }
        #expect(error.problems.count == 2)
        #expect(error.problems.first?.description == "c.conf:2: unknown key 'enable' in [connectivity] (did you mean 'enabled'?)")
        #expect(error.problems.last?.description.hasPrefix("c.conf:3: unknown key 'frobnicate' in [connectivity] (the keys of [connectivity] are: bind-interface, ") == true)
    }

    @Test func everyBrokenLineIsNamedNotOnlyTheFirstAndNothingOfItsText() {
        let (_, problems) = DaemonConfiguration.check(Array("[daemon]\nsecret-looking line\ncommand-timeout=5\n[bad\nalso broken\n".utf8), path: "b.conf")
        #expect(problems.map { $0.line } == [2, 4], "\(problems)")
        #expect(problems.allSatisfy { $0.severity == .error && !$0.description.contains("secret") })
    }

    /// A key is text from a file anyone may have written into: shown escaped and capped, and a
    /// huge one costs no "did you mean" table.
    @Test func anUnknownKeyIsShownEscapedAndCapped() {
        let long = String(repeating: "k", count: 200_000)
        let (_, problems) = DaemonConfiguration.check(Array("[daemon]\n\u{1B}]0;title\u{07}x=1\n\(long)=2\n".utf8), path: "e.conf")
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { !$0.description.unicodeScalars.contains { $0.value < 0x20 } }, "\(problems)")
        #expect(problems.allSatisfy { $0.description.count < 600 }, "\(problems.map(\.description.count))")
    }

    @Test func misspeltNamesFindTheirKeyAndStrangersDoNot() {
        #expect(Suggestion.didYouMean("maintain-intervall", among: ["maintain-interval", "interval"], format: { $0 }) == " (did you mean maintain-interval?)")
        #expect(Suggestion.didYouMean("intreval", among: ["interval", "enabled"], format: { $0 }) == " (did you mean interval?)")
        #expect(Suggestion.didYouMean("colour", among: ["ssid", "password"], format: { $0 }) == "")
        #expect(Suggestion.distance("kitten", "sitting") == 3)
    }

    /// The daemon itself: the same file stops it with EX_CONFIG (78) before it touches the bus,
    /// all problems on stderr and no usage text; --check-config says the same, and 0 for a good file.
    @Test func theDaemonRefusesToStartOnAnUnknownGroupAndCheckConfigSaysWhy() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("config-diagnostics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.conf")
        try Self.typos.write(to: bad, atomically: true, encoding: .utf8)
        let daemon = TestKitPaths.product("hotspot-helperd").path
        // No bus at all: a daemon that got past its configuration would fail on the bus instead (status 1).
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.path)/no-bus"]

        let start = try await ManagedProcess.run(daemon, ["--config", bad.path, "--state-dir", dir.path], environment: environment)
        #expect(start.status == 78, "\(start.stdout)\(start.stderr)")
        let lines = start.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(start.stderr)")
        #expect(lines.first == "\(bad.path):2: unknown key 'maintain-intervall' in [daemon] (did you mean 'maintain-interval'?)")
        #expect(lines.last == "hotspot-helperd: \(bad.path): 4 errors; not starting. Fix them and run: hotspot-helperd --check-config --config \(bad.path)")
        #expect(!start.stderr.contains("USAGE"), "no usage text after a configuration error")

        let check = try await ManagedProcess.run(daemon, ["--check-config", "--config", bad.path], environment: environment)
        #expect(check.status == 78)
        #expect(check.stderr.hasPrefix(lines.prefix(4).joined(separator: "\n")), "\(check.stderr)")

        // A good file with a profiles directory that is not there: a warning naming it, status 0.
        let good = dir.appendingPathComponent("good.conf")
        try "[daemon]\nprofiles-dir=\(dir.path)/missing.d\n".write(to: good, atomically: true, encoding: .utf8)
        let fine = try await ManagedProcess.run(daemon, ["--check-config", "--config", good.path], environment: environment)
        #expect(fine.status == 0, "\(fine.stdout)\(fine.stderr)")
        #expect(fine.stderr.contains("warning: profiles directory \(dir.path)/missing.d does not exist"), "\(fine.stderr)")
        #expect(fine.stdout.contains("no errors"), "\(fine.stdout)")

        let version = try await ManagedProcess.run(daemon, ["--version"])
        #expect(version.status == 0 && version.stdout == "\(ProductVersion.current)\n", "\(version.stdout)\(version.stderr)")
        let usage = try await ManagedProcess.run(daemon, ["--frobnicate"])
        #expect(usage.status == 2, "a usage error is 2, as for hotspotctl: \(usage.stderr)")
    }
}
