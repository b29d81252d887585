// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BenchKit
import Foundation

@main
struct HotspotStress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotspot-stress",
        abstract: "Load and soak hotspot-helperd on a private bus with a simulated NetworkManager.",
        discussion: """
        load runs the signal storm (thousands of access-point changes per second across several \
        devices, emitted by the mock NetworkManager itself) and the many-helpers run (100+ \
        helpers registered while joins happen), and prints the daemon's memory, descriptors, \
        threads and the worst signal lag. soak joins, signs in (click-through, hotspot-portal-sim \
        on loopback) and leaves over and over, checking for leaks and that the daemon's state \
        matches NetworkManager's after each cycle. hotspot-helperd and hotspot-portal-sim are \
        taken from beside this program. Exit status 1 when a check fails.
        """,
        subcommands: [Load.self, Soak.Command.self, FloodCommand.self, PagesCommand.self])
}

struct Output: ParsableArguments {
    @Flag(help: "Print figures as figure<TAB>value<TAB>unit<TAB>baseline<TAB>baseline-unit<TAB>ratio<TAB>goal lines (progress goes to stderr).")
    var tsv = false
}

func report(_ figures: [Figure], failures: [String], output: Output, extra: [String] = []) throws {
    if output.tsv {
        for f in figures { say(f.tsv) }
    } else {
        for line in extra { say(line) }
        say("")
        say("figure".padding(toLength: 52, withPad: " ", startingAt: 0) + "value".padding(toLength: 22, withPad: " ", startingAt: 0)
            + "baseline (same run)".padding(toLength: 30, withPad: " ", startingAt: 0) + "ratio    goal")
        for f in figures {
            let value = String(format: "%.2f %@", f.value, f.unit)
            let base = f.baseline.map { String(format: "%.2f %@", $0, f.baselineUnit) } ?? ""
            let ratio = f.ratio.map { String(format: "%.2f×", $0) } ?? ""
            say(f.name.padding(toLength: 52, withPad: " ", startingAt: 0) + value.padding(toLength: 22, withPad: " ", startingAt: 0)
                + base.padding(toLength: 30, withPad: " ", startingAt: 0) + ratio.padding(toLength: 9, withPad: " ", startingAt: 0) + f.goal)
        }
    }
    for f in failures { note("FAILED: \(f)") }
    if !failures.isEmpty { throw ExitCode(1) }
}

struct FloodCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood",
        abstract: "Hostile intake: RSS and Get latency during unsolicited huge signals and a crowd of waiting polkit checks (needs root and setpriv).")
    @Option(help: "Unsolicited byte-array signals sent to the daemon.") var signals = 20
    @Option(help: "Size of each, in MiB.") var signalMib = 30
    @Option(help: "Unprivileged connections calling at once.") var callers = 250
    @Option(help: "Calls waiting on polkit per connection.") var callsPerCaller = 4
    @OptionGroup var output: Output

    func run() async throws {
        let r = try await Flood(signals: signals, signalMiB: signalMib, callers: callers, callsPerCaller: callsPerCaller).run(verbose: !output.tsv)
        try report(r.figures, failures: r.failures, output: output)
    }
}

struct Load: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The signal storm and the many-helpers run.")
    @Option(help: "Wi-Fi devices in the storm.") var devices = 4
    @Option(help: "Access points per device.") var accessPoints = 50
    @Option(help: "Bursts of changes.") var bursts = 20
    @Option(help: "Changes per burst.") var burstSize = 5000
    @Option(help: "One AccessPointAdded/Removed in this many changes (0: none).") var churnEvery = 25
    @Option(help: "The daemon's filter-interval (seconds).") var filterInterval = 5
    @Option(help: "Helpers registered in the many-helpers run.") var helpers = 128
    @Option(help: "Joins measured with 1 and with all helpers.") var joins = 20
    @Flag(help: "Only the storm.") var stormOnly = false
    @Flag(help: "Only the many-helpers run.") var helpersOnly = false
    @OptionGroup var output: Output

    func run() async throws {
        var figures: [Figure] = []
        var failures: [String] = []
        if !helpersOnly {
            let r = try await Storm(devices: devices, accessPoints: accessPoints, bursts: bursts, burstSize: burstSize, churnEvery: churnEvery,
                                    filterInterval: filterInterval).run(verbose: !output.tsv)
            figures += r.figures
            failures += r.failures
        }
        if !stormOnly {
            let r = try await ManyHelpers(helpers: helpers, joins: joins).run(verbose: !output.tsv)
            figures += r.figures
            failures += r.failures
        }
        try report(figures, failures: failures, output: output)
    }
}

extension Soak {
    struct Command: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "soak", abstract: "Joins, sign-ins and leaves, checking for leaks after each.")
        @Option(help: "Cycles of join, sign-in and leave.") var cycles = 1000
        @Option(help: "Cycles before the leak baseline is taken.") var warmup = 20
        @Option(help: "Descriptors the daemon may gain over the baseline.") var fdBound = 4
        @Option(help: "Threads the daemon may gain over the baseline.") var threadBound = 4
        @Option(help: "MiB the daemon's RSS may gain over the baseline.") var rssBound = 16.0
        @OptionGroup var output: Output

        func run() async throws {
            let r = try await Soak(cycles: cycles, warmup: min(warmup, max(1, cycles / 2)), fdBound: fdBound, threadBound: threadBound,
                                   rssBoundMiB: rssBound).run(verbose: !output.tsv)
            try report(r.figures, failures: r.failures, output: output, extra: r.text)
        }
    }
}
