// SPDX-License-Identifier: Apache-2.0
// Profiles benchmark: annotation of 1,000 access points against 100,000 profile entries (goal
// under 2 ms), the load time of those profiles, and hotspot-helperd's resident memory with them
// loaded beside the same daemon without profiles. Prints figures and ratios; asserts nothing.
import BenchKit
import BuiltInHelpers
import HotspotTesting
import Foundation
import HotspotCore

/// --tsv: figures on stdout (figure, value, unit, baseline, baseline unit, ratio, goal), the rest on stderr.
let tsvOutput = CommandLine.arguments.contains("--tsv")
func say(_ s: String) { (tsvOutput ? FileHandle.standardError : FileHandle.standardOutput).write(Data((s + "\n").utf8)) }

let entries = 100_000
let dir = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }

// 100 files of 1,000 profiles: 90 % exact SSIDs, 10 % prefixes; a third with Wi-Fi passwords.
for f in 0..<100 {
    var text = ""
    for i in 0..<1000 {
        let n = f * 1000 + i
        if n % 10 == 0 {
            text += "[chain\(n)]\nssid-prefix=Chain\(n)-\ndisplay-name=Chain \(n)\nsign-in=click-through\n\n"
        } else {
            text += "[net\(n)]\nssid=Net-\(n)\ndisplay-name=Network \(n)\n\(n % 3 == 0 ? "password=passphrase-\(n)\n" : "")confidence=high\n\n"
        }
    }
    let path = dir.appendingPathComponent(String(format: "p%03d.conf", f)).path
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    chmod(path, 0o600)
}

let loadStart = ContinuousClock.now
let set = ProfileLoader.load(directory: dir.path, requireRootOwner: false)
let loadTime = ContinuousClock.now - loadStart
say("profiles: \(set.index.count) entries loaded from 100 files in \(String(format: "%.0f", milliseconds(loadTime))) ms (\(set.problems.count) problems)")

// 1,000 access points: a third exact matches, a tenth prefix matches, the rest unknown.
var random = SystemRandomNumberGenerator()
let aps: [Network] = (0..<1000).map { i in
    let ssid: String
    switch i % 10 {
    case 0, 1, 2: ssid = "Net-\(Int.random(in: 0..<entries, using: &random) | 1)"
    case 3: ssid = "Chain\(Int.random(in: 0..<(entries / 10), using: &random) * 10)-Floor\(i)"
    default: ssid = "Unknown-\(i)"
    }
    return Network(ssid: SSID(ssid), bssid: String(format: "0a:00:00:00:%02x:%02x", i / 256, i % 256), signalStrength: 0.5,
                   securityClass: i % 2 == 0 ? .personal : .open, isSecure: i % 2 == 0)
}
let helper = RegisteredHelper(identifier: "builtin.profiles", displayName: "Known Networks", commands: Set(CommandType.allCases), registrationOrder: 1)
var samples: [Duration] = []
var annotated = 0
for _ in 0..<200 {
    let t = ContinuousClock.now
    let claims = ProfileHelper.claims(for: aps, index: set.index)
    let list = ScanListAnnotator(claims: [(helper: helper, claims: claims)]).annotate(aps)
    samples.append(ContinuousClock.now - t)
    annotated = list.filter { $0.annotation != nil }.count
}
samples.sort()
let median = milliseconds(samples[samples.count / 2]), p95 = milliseconds(samples[samples.count * 95 / 100])
say(String(format: "annotation: 1,000 APs against %d profile entries: median %.3f ms, p95 %.3f ms (goal < 2 ms: %@), %d APs annotated",
           set.index.count, median, p95, median < 2 ? "met" : "NOT met", annotated))
var lookups: [Duration] = []
for _ in 0..<200 {
    let t = ContinuousClock.now
    var hits = 0
    for ap in aps where set.index.profile(for: ap.ssid) != nil { hits += 1 }
    lookups.append(ContinuousClock.now - t)
}
lookups.sort()
say(String(format: "  of which the profile lookups (dictionary + trie): median %.3f ms; claims and ScanListAnnotator the rest (ratio %.2f)",
           milliseconds(lookups[lookups.count / 2]), median / max(0.001, milliseconds(lookups[lookups.count / 2]))))

// The daemon's RSS with and without the profiles.
func rss(profilesDir: String) async throws -> (kb: Int, loaded: Bool) {
    let bus = try await PrivateBus()
    defer { bus.stop() }
    let d = try await DaemonProcess.start(on: bus, settings: ["profiles-dir": profilesDir],
                                          connectivity: ["probes": "http://127.0.0.1:9/generate_204 status=204", "bind-interface": "false"],
                                          logLevel: "info")
    defer { d.process.stop() }
    let loaded = await d.process.waitForOutput(containing: "profiles:", timeout: .seconds(60))
    try await Task.sleep(for: .milliseconds(300))
    let status = (try? String(contentsOfFile: "/proc/\(d.process.pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0, loaded)
}
let empty = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-empty-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: empty) }
let without = try await rss(profilesDir: empty.path)
let with = try await rss(profilesDir: dir.path)
say(String(format: "daemon RSS: %.1f MiB with %d profile entries loaded, %.1f MiB without (ratio %.2f, %.0f bytes per entry)",
           Double(with.kb) / 1024, entries, Double(without.kb) / 1024, Double(with.kb) / Double(max(1, without.kb)),
           Double((with.kb - without.kb) * 1024) / Double(entries)))
if tsvOutput {
    let lookup = milliseconds(lookups[lookups.count / 2])
    for f in [
        Figure("profiles: annotate 1,000 APs against 100,000 entries, median", median, "ms", baseline: lookup, baselineUnit: "ms profile lookups alone",
               goal: "< 2 ms"),
        Figure("profiles: annotate 1,000 APs, p95", p95, "ms", goal: "< 2 ms"),
        Figure("profiles: load 100,000 entries from 100 files", milliseconds(loadTime), "ms"),
        Figure("profiles: daemon RSS with 100,000 entries", Double(with.kb) / 1024, "MiB", baseline: Double(without.kb) / 1024, baselineUnit: "MiB without"),
    ] { print(f.tsv) }
}
