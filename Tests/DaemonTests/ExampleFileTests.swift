// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import BuiltInHelpers
import HotspotCore
import Foundation
@testable import HotspotDaemon
import Testing

/// Every profile and configuration example in README.md, the man pages and
/// packaging/ loads with the real loaders, without warnings. The examples are found in the files
/// themselves (```ini blocks, .EX/.EE and .nf/.fi blocks holding a [group]), so one added later is
/// checked too.
@Suite("Example files")
struct ExampleFileTests {
    static let root = TestKitPaths.repositoryRoot

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The keyfile examples in a document: ```ini fenced blocks in Markdown; .EX/.EE or .nf/.fi
    /// blocks with a `[group]` line in roff (escapes `\-` and `\(dq` undone).
    static func examples(in document: String, roff: Bool) -> [String] {
        var out: [String] = []
        var current: [String]?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if roff {
                if line == ".EX" || line == ".nf" { current = []; continue }
                if line == ".EE" || line == ".fi", let block = current {
                    if block.contains(where: { $0.hasPrefix("[") && $0.hasSuffix("]") }) { out.append(block.joined(separator: "\n") + "\n") }
                    current = nil
                    continue
                }
                current?.append(line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\(dq", with: "\""))
            } else {
                if current == nil, line.trimmingCharacters(in: .whitespaces) == "```ini" { current = []; continue }
                if line.trimmingCharacters(in: .whitespaces) == "```", let block = current {
                    out.append(block.joined(separator: "\n") + "\n")
                    current = nil
                    continue
                }
                current?.append(line)
            }
        }
        return out
    }

    /// A configuration example names [daemon] or [connectivity]; anything else is profiles.
    static func isConfiguration(_ example: String) -> Bool {
        example.contains("[daemon]") || example.contains("[connectivity]")
    }

    /// The example with its commented-out settings (`#key=value`, `#[group]`) switched on.
    static func uncommented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("#"), let next = line.dropFirst().first, next == "[" || next.isLetter else { return String(line) }
            let body = line.dropFirst()
            if body.hasPrefix("[") { return String(body) }
            guard let eq = body.firstIndex(of: "="), body[..<eq].allSatisfy({ $0.isLetter || $0 == "-" }) else { return String(line) }
            return String(body)
        }.joined(separator: "\n")
    }

    static func checkConfiguration(_ text: String, name: String) throws -> DaemonConfiguration {
        let config = try DaemonConfiguration.parse(Array(text.utf8), path: name)
        #expect(config.unknownKeys.isEmpty, "\(name): unknown keys \(config.unknownKeys)")
        #expect(config.warnings.isEmpty, "\(name): \(config.warnings)")
        return config
    }

    static func checkProfiles(_ text: String, name: String) throws -> [String] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("examples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("example.conf")
        try text.write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o600)
        let set = ProfileLoader.load(directory: dir.path, requireRootOwner: false)
        #expect(set.problems.isEmpty, "\(name): \(set.problems)")
        #expect(set.warnings.isEmpty, "\(name): \(set.warnings)")
        let groups = text.split(separator: "\n").filter { $0.hasPrefix("[") }.count
        #expect(set.index.count == groups, "\(name): \(set.index.count) of \(groups) profiles loaded")
        return set.index.profiles.map(\.name)
    }

    @Test func readmeAndManPageExamplesLoad() throws {
        var checked = 0
        for (doc, roff) in [("README.md", false), ("packaging/man/hotspot-helperd.8", true), ("packaging/man/hotspotctl.1", true),
                            ("packaging/man/hotspot-helper-agent.1", true)] {
            for (n, example) in Self.examples(in: try Self.text(doc), roff: roff).enumerated() {
                let name = "\(doc) example \(n + 1)"
                if Self.isConfiguration(example) { _ = try Self.checkConfiguration(example, name: name) } else { _ = try Self.checkProfiles(example, name: name) }
                checked += 1
            }
        }
        // README has the profile example, the man page a configuration example: both kinds are checked.
        #expect(checked >= 2)
    }

    @Test func readmeProfileExampleMeansWhatItSays() throws {
        let example = try #require(Self.examples(in: try Self.text("README.md"), roff: false).first { $0.contains("[CityFree]") })
        let names = try Self.checkProfiles(example, name: "README.md")
        #expect(Set(names) == ["CityFree", "Office", "Hotel", "Roaming", "Airport"])
    }

    @Test func shippedConfigurationDocumentsTheDefaultsAndEveryKey() throws {
        let shipped = try Self.text("packaging/hotspot-helperd.conf")
        #expect(try Self.checkConfiguration(shipped, name: "hotspot-helperd.conf") == DaemonConfiguration())
        // Switching every commented-out setting on gives the defaults: the file says them truly.
        #expect(try Self.checkConfiguration(Self.uncommented(shipped), name: "hotspot-helperd.conf (uncommented)") == DaemonConfiguration())
        // Every key the loader reads is described in its group.
        for (group, keys) in DaemonConfiguration.knownKeys {
            let start = try #require(shipped.range(of: "[\(group)]"))
            let own = String(shipped[start.upperBound...]).components(separatedBy: "\n[").first ?? ""
            for key in keys {
                #expect(own.contains("#\(key)=") || own.contains("e.g. \(key)="), "hotspot-helperd.conf: [\(group)] \(key) is not described")
            }
        }
    }

    @Test func shippedExampleProfileLoadsWithItsCommentedProfiles() throws {
        let shipped = try Self.text("packaging/example-profile.conf")
        #expect(try Self.checkProfiles(shipped, name: "example-profile.conf") == ["CityFree"])
        let all = try Self.checkProfiles(Self.uncommented(shipped), name: "example-profile.conf (uncommented)")
        #expect(Set(all).isSuperset(of: ["CityFree", "Office", "Hotel", "Roaming", "Airport"]))
    }

    /// The README's old example: a trailing `# …` would have been part of the SSID.
    @Test func inlineCommentsAreWarnedAboutWithoutTheValue() throws {
        let profile = "[CityFree]\nssid=CityFree   # or ssid-prefix=CityFree-\n\n[Office]\nssid=Office\npassword=hunter22\t# secret-ish\n"
        let warnings = InlineComments.warnings(in: try KeyFile(parsing: Array(profile.utf8)), name: "profile /x.conf")
        #expect(warnings.count == 2)
        #expect(warnings.first?.hasPrefix("profile /x.conf line 2: [CityFree] ssid:") == true)
        #expect(warnings.last?.hasPrefix("profile /x.conf line 6: [Office] password:") == true)
        #expect(!warnings.joined().contains("hunter22") && !warnings.joined().contains("secret-ish") && !warnings.joined().contains("or ssid-prefix"))
        // A '#' not after a blank (a URL fragment) and comment lines are fine.
        #expect(InlineComments.warnings(in: try KeyFile(parsing: Array("[a]\n# x=1 # y\nform-url=https://p.example/#login\n".utf8)), name: "f").isEmpty)

        let config = "[daemon]\nmaintain-interval=600\n\n[connectivity]\ndns-servers=192.0.2.53   # the office resolver\n"
        let parsed = try DaemonConfiguration.parse(Array(config.utf8), path: "/etc/h.conf")
        #expect(parsed.warnings.count == 1)
        #expect(parsed.warnings.first?.hasPrefix("/etc/h.conf:5: warning: [connectivity] dns-servers:") == true)
        #expect(parsed.warnings.first?.contains("office resolver") == false)
        // A number with a comment is an error naming the line, as before (GKeyFile keeps the comment).
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration.parse(Array("[daemon]\nmaintain-interval=600 # ten minutes\n".utf8), path: "/x") }
    }

    @Test func profileLoaderReportsInlineCommentWarnings() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "[CityFree]\nssid=CityFree   # or ssid-prefix=CityFree-\n".write(to: dir.appendingPathComponent("a.conf"), atomically: true, encoding: .utf8)
        let set = ProfileLoader.load(directory: dir.path, requireRootOwner: false)
        #expect(set.warnings.count == 1)
        #expect(set.warnings.first?.contains("a.conf line 2: [CityFree] ssid") == true)
    }
}
