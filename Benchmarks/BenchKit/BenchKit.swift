// SPDX-License-Identifier: Apache-2.0
// Shared by the benchmarks, the load and soak commands and the report: one figure per line in a
// machine-readable form, and what /proc says about a process (memory, descriptors, threads, CPU).
import Foundation

/// One measured figure: its value, the baseline measured in the same run, and the goal.
public struct Figure: Sendable {
    public var name: String
    public var value: Double
    public var unit: String
    public var baseline: Double?
    public var baselineUnit: String
    /// value ÷ baseline unless given (nil when there is no baseline).
    public var ratio: Double?
    public var goal: String

    public init(_ name: String, _ value: Double, _ unit: String, baseline: Double? = nil, baselineUnit: String = "",
                ratio: Double? = nil, goal: String = "") {
        self.name = name
        self.value = value
        self.unit = unit
        self.baseline = baseline
        self.baselineUnit = baselineUnit.isEmpty ? unit : baselineUnit
        self.ratio = ratio ?? baseline.flatMap { $0 == 0 ? nil : value / $0 }
        self.goal = goal
    }

    /// `figure<TAB>value<TAB>unit<TAB>baseline<TAB>baseline-unit<TAB>ratio<TAB>goal`; an empty
    /// field where there is no baseline, ratio or goal. Tabs and newlines in text become spaces.
    public var tsv: String {
        func clean(_ s: String) -> String { s.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }
        return [clean(name), Self.number(value), clean(unit), baseline.map(Self.number) ?? "", baseline == nil ? "" : clean(baselineUnit),
                ratio.map { String(format: "%.3f", $0) } ?? "", clean(goal)].joined(separator: "\t")
    }

    /// Parses a line written by ``tsv``; nil for anything else (progress text, headers).
    public init?(tsv line: Substring) {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard f.count == 7, let value = Double(f[1]) else { return nil }
        self.init(f[0], value, f[2], baseline: Double(f[3]), baselineUnit: f[4], ratio: Double(f[5]), goal: f[6])
    }

    static func number(_ x: Double) -> String {
        if x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
        return String(format: abs(x) >= 100 ? "%.1f" : abs(x) >= 1 ? "%.3f" : "%.4f", x)
    }
}

/// Writes a line to stdout at once (no buffering, so progress shows while a run goes on).
public func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

/// Writes to stderr: progress that must not mix with `--tsv` output.
public func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

public func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }

/// The `p`-quantile (0…1) by rank; NaN for no values. A percentage (99) is refused: it used to
/// read as the maximum (the flood's "p99" was its worst call until 2026-11-24).
public func percentile(_ values: [Double], _ p: Double) -> Double {
    precondition((0...1).contains(p), "percentile takes a fraction (0.99), not a percentage (\(p))")
    let s = values.sorted()
    return s.isEmpty ? .nan : s[min(s.count - 1, Int(Double(s.count) * p))]
}

/// What the kernel says about a running process.
public struct ProcessSample: Sendable, CustomStringConvertible {
    public var rssKiB: Int
    /// The anonymous part of RSS (heap, stacks, relocated data): what only this process holds
    /// and the kernel cannot drop without swap.
    public var anonymousKiB = 0
    /// The file-backed part (the binary's and libraries' pages): clean, shared with the page
    /// cache, dropped and read again under memory pressure.
    public var fileKiB = 0
    public var fds: Int
    public var threads: Int
    /// User plus system CPU time so far.
    public var cpuSeconds: Double

    public var rssMiB: Double { Double(rssKiB) / 1024 }

    /// Reads /proc/PID/status (VmRSS, Threads), /proc/PID/fd and /proc/PID/stat.
    public init(pid: Int32) {
        rssKiB = 0
        threads = 0
        if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if line.hasPrefix("VmRSS:"), parts.count > 1 { rssKiB = Int(parts[1]) ?? 0 }
                if line.hasPrefix("RssAnon:"), parts.count > 1 { anonymousKiB = Int(parts[1]) ?? 0 }
                if line.hasPrefix("RssFile:"), parts.count > 1 { fileKiB = Int(parts[1]) ?? 0 }
                if line.hasPrefix("Threads:"), parts.count > 1 { threads = Int(parts[1]) ?? 0 }
            }
        }
        fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        cpuSeconds = 0
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") {
            // Fields after the command: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) {
                cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
            }
        }
    }

    public var description: String { String(format: "RSS %.1f MiB, %d fds, %d threads", rssMiB, fds, threads) }
}
