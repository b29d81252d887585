// SPDX-License-Identifier: Apache-2.0
// bench-report: runs every benchmark of the project (built beside this program) in its --tsv mode
// and prints one table: each figure, its baseline measured in the same run, the ratio and the
// goal. The benchmarks' progress goes to stderr as they run. Exit status 1 when one failed.
import BenchKit
import Foundation

struct Run {
    var name: String
    var arguments: [String]
}

var soakCycles = 100
var quick = false
var skip: Set<String> = []
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--soak-cycles": soakCycles = Int(args.next() ?? "") ?? soakCycles
    case "--quick": quick = true
    case "--skip": skip.insert(args.next() ?? "")
    case "-h", "--help":
        say("""
            usage: bench-report [--quick] [--soak-cycles N] [--skip NAME]...

            Runs dbus-benchmark, daemon-benchmark, profiles-benchmark, hotspot-portal-sim benchmark,
            hotspot-stress load, hotspot-stress flood (hostile intake: huge unsolicited signals and
            waiting polkit checks), footprint-benchmark (the .deb `make deb` built: sizes, the packaged
            daemon's memory, idle wake-ups and start time) and hotspot-stress soak (N cycles, default
            100; 0 skips it), each with --tsv, and prints their figures in one table: value, the
            baseline measured in the same run, the ratio and the goal. --quick runs smaller
            workloads. NAME is one of dbus, daemon, profiles, portal-sim, load, flood, footprint, soak.
            """)
        exit(0)
    default:
        say("unknown option \(a); see --help")
        exit(2)
    }
}

let directory = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    .deletingLastPathComponent()
var runs: [(String, Run)] = [
    ("dbus", Run(name: "dbus-benchmark", arguments: quick ? ["--calls", "5000"] : [])),
    ("daemon", Run(name: "daemon-benchmark", arguments: quick ? ["--joins", "50"] : [])),
    ("profiles", Run(name: "profiles-benchmark", arguments: [])),
    ("portal-sim", Run(name: "hotspot-portal-sim", arguments: ["benchmark"] + (quick ? ["--rounds", "3"] : []))),
    ("load", Run(name: "hotspot-stress", arguments: ["load"] + (quick ? ["--bursts", "5", "--helpers", "100", "--joins", "10"] : []))),
    ("flood", Run(name: "hotspot-stress", arguments: ["flood"] + (quick ? ["--signals", "5"] : []))),
    ("footprint", Run(name: "footprint-benchmark", arguments: quick ? ["--idle-seconds", "3"] : [])),
]
if soakCycles > 0 { runs.append(("soak", Run(name: "hotspot-stress", arguments: ["soak", "--cycles", "\(soakCycles)"]))) }
runs.removeAll { skip.contains($0.0) }

/// Runs one benchmark with --tsv; stderr passes through (its progress), stdout is collected.
func run(_ r: Run) -> (status: Int32, lines: [Figure], other: [String]) {
    let p = Process()
    p.executableURL = directory.appendingPathComponent(r.name)
    p.arguments = r.arguments + ["--tsv"]
    let out = Pipe()
    p.standardOutput = out
    do { try p.run() } catch {
        note("cannot run \(r.name): \(error)")
        return (127, [], [])
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    var figures: [Figure] = [], other: [String] = []
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        if let f = Figure(tsv: line) { figures.append(f) } else { other.append(String(line)) }
    }
    return (p.terminationStatus, figures, other)
}

var all: [Figure] = []
var failed: [String] = []
let started = Date()
for (_, r) in runs {
    let command = ([r.name] + r.arguments + ["--tsv"]).joined(separator: " ")
    note("── \(command)")
    let t0 = Date()
    let result = run(r)
    note(String(format: "── %@: exit %d, %d figures, %.0f s", r.name, result.status, result.lines.count, Date().timeIntervalSince(t0)))
    all += result.lines
    if result.status != 0 { failed.append("\(command) exited with status \(result.status)") }
}

func cell(_ x: Double) -> String {
    if x.isNaN { return "–" }
    if x == x.rounded() && abs(x) < 1e12 { return String(format: "%.0f", x) }
    if abs(x) >= 1000 { return String(format: "%.0f", x) }
    if abs(x) >= 100 { return String(format: "%.1f", x) }
    if abs(x) >= 1 { return String(format: "%.2f", x) }
    return String(format: "%.3f", x)
}
func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
let rows = all.map { f -> [String] in
    [f.name, cell(f.value) + " " + f.unit, f.baseline.map { cell($0) + " " + f.baselineUnit } ?? "", f.ratio.map { String(format: "%.2f×", $0) } ?? "", f.goal]
}
let header = ["figure", "value", "baseline (same run)", "ratio", "goal"]
let widths = (0..<5).map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
say("")
say(String(format: "Benchmark report — %@, %.0f s, release build in %@", ISO8601DateFormatter().string(from: started), Date().timeIntervalSince(started),
           directory.path))
say("")
say((0..<5).map { pad(header[$0], widths[$0]) }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
say((0..<5).map { String(repeating: "─", count: widths[$0]) }.joined(separator: "  "))
for row in rows { say((0..<5).map { pad(row[$0], widths[$0]) }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)) }
for f in failed { say("FAILED: \(f)") }
exit(failed.isEmpty ? 0 : 1)
