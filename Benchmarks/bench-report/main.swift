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
/// Runs of each benchmark whose figures are ratios to a baseline of the same run (dbus, daemon): one
/// run decides nothing (the join's ratio read 3.6× on a quiet machine and 7.2× on a loaded one).
var repeats = 3
var skip: Set<String> = []
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--soak-cycles": soakCycles = Int(args.next() ?? "") ?? soakCycles
    case "--quick": quick = true
    case "--repeat": repeats = max(1, Int(args.next() ?? "") ?? repeats)
    case "--skip": skip.insert(args.next() ?? "")
    case "-h", "--help":
        say("""
            usage: bench-report [--quick] [--repeat N] [--soak-cycles N] [--skip NAME]...

            Runs dbus-benchmark, daemon-benchmark, profiles-benchmark, hotspot-portal-sim benchmark,
            hotspot-stress load, hotspot-stress flood (hostile intake: huge unsolicited signals and
            waiting polkit checks), hotspot-stress pages (Get while hostile portal pages are read), footprint-benchmark (the .deb `make deb` built: sizes, the packaged
            daemon's memory, idle wake-ups and start time) and hotspot-stress soak (N cycles, default
            100; 0 skips it), each with --tsv, and prints their figures in one table: value, the
            baseline measured in the same run, the ratio and the goal. --quick runs smaller
            workloads. dbus-benchmark and daemon-benchmark, whose figures are ratios to a baseline
            of the same run, run N times (default 3): their rows show the median with the minimum
            and maximum, so a figure's noise is visible. NAME is one of dbus, daemon, profiles,
            portal-sim, load, flood, pages, footprint, soak.
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
    ("pages", Run(name: "hotspot-stress", arguments: ["pages"] + (quick ? ["--seconds", "5"] : []))),
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

/// One figure over several runs: the median run's value, with the spread of value and ratio.
struct Row {
    var figure: Figure
    var values: [Double]
    var ratios: [Double]
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? .nan : (s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
}

var all: [Row] = []
var failed: [String] = []
let started = Date()
for (key, r) in runs {
    let command = ([r.name] + r.arguments + ["--tsv"]).joined(separator: " ")
    let times = ["dbus", "daemon"].contains(key) ? repeats : 1
    var rows: [Row] = []
    for n in 1...times {
        note("── \(command)\(times > 1 ? " (run \(n) of \(times))" : "")")
        let t0 = Date()
        let result = run(r)
        note(String(format: "── %@: exit %d, %d figures, %.0f s", r.name, result.status, result.lines.count, Date().timeIntervalSince(t0)))
        for f in result.lines {
            if let i = rows.firstIndex(where: { $0.figure.name == f.name }) {
                rows[i].values.append(f.value)
                if let ratio = f.ratio { rows[i].ratios.append(ratio) }
            } else {
                rows.append(Row(figure: f, values: [f.value], ratios: f.ratio.map { [$0] } ?? []))
            }
        }
        if result.status != 0 { failed.append("\(command) exited with status \(result.status)") }
    }
    all += rows
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
func spread(_ xs: [Double], _ show: (Double) -> String) -> String {
    guard xs.count > 1 else { return xs.first.map(show) ?? "" }
    return "\(show(median(xs))) (\(show(xs.min()!))–\(show(xs.max()!)))"
}
let rows = all.map { r -> [String] in
    let f = r.figure
    return [f.name + (r.values.count > 1 ? " [median (min–max) of \(r.values.count)]" : ""), spread(r.values, cell) + " " + f.unit,
            f.baseline.map { cell($0) + " " + f.baselineUnit } ?? "", spread(r.ratios) { String(format: "%.2f×", $0) }, f.goal]
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
