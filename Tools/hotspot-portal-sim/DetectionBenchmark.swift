// SPDX-License-Identifier: Apache-2.0
import BenchKit
import Connectivity
import Foundation
import PortalSimulator

/// Portal (and online) detection time with four probes where one never answers, beside the
/// fastest quorum and beside waiting for every probe. Everything runs over loopback against an
/// in-process simulator; probe host names are pinned to 127.0.0.1. Prints figures; asserts nothing.
enum DetectionBenchmark {
    static func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.isEmpty ? 0 : s[s.count / 2]
    }

    /// With `tsv`, the figures are printed as tab-separated lines (figure, value, unit, baseline,
    /// baseline unit, ratio, goal) and the rest goes to stderr.
    static func run(rounds: Int, tsv: Bool = false) async throws {
        let print: (String) -> Void = { tsv ? note($0) : Swift.print($0) }
        var figures: [Figure] = []
        let deadTimeout = Duration.seconds(2)
        print("Detection benchmark: 4 probes, one never answers (per-probe timeout \(ms(deadTimeout)) ms), \(rounds) rounds per scenario")
        for mode in [PortalMode.clickThrough, .open] {
            let sim = PortalSimulator(configuration: PortalSimulatorConfiguration(mode: mode, blackholeHosts: ["dead.probe.test"]))
            let port = try await sim.start()
            let hosts = ["a.probe.test", "b.probe.test", "c.probe.test", "dead.probe.test"]
            let probes = hosts.map { ConnectivityProbe(url: "http://\($0):\(port)/generate_204", expectation: .status(204)) }
            var transfer = TransferOptions(timeout: deadTimeout, connectTimeout: .seconds(1))
            transfer.staticHosts = Dictionary(uniqueKeysWithValues: hosts.map { ($0, ["127.0.0.1"]) })
            let early = ConnectivityChecker(configuration: ConnectivityConfiguration(probes: probes, policy: VerdictPolicy(), transfer: transfer))
            let all = ConnectivityChecker(configuration: ConnectivityConfiguration(probes: probes, policy: VerdictPolicy(waitForAll: true), transfer: transfer))
            var earlyTimes: [Double] = [], quorumTimes: [Double] = [], allTimes: [Double] = []
            var states = Set<String>()
            let required = VerdictAggregator(probes: probes, policy: VerdictPolicy()).required
            for _ in 0..<rounds {
                let e = await early.check(interface: nil, dnsServers: [])
                earlyTimes.append(ms(e.elapsed))
                states.insert(e.state.rawValue)
                let a = await all.check(interface: nil, dnsServers: [])
                allTimes.append(ms(a.elapsed))
                // The fastest quorum in the same run: when the `required`-th probe with an answer
                // (the first portal answer for a portal) finished.
                let answered = e.results.filter { $0.reason != .timeout && $0.reason != .cancelled }.map { ms($0.elapsed) }.sorted()
                let needed = mode == .open ? required : 1
                if answered.count >= needed { quorumTimes.append(answered[needed - 1]) }
            }
            await sim.stop()
            let e = median(earlyTimes), q = median(quorumTimes), a = median(allTimes)
            let label = mode == .open ? "online (open network)" : "portal (click-through)"
            print("")
            print("scenario: \(label), verdicts: \(states.sorted().joined(separator: ","))")
            print(String(format: "  early decision (this library)     median %8.2f ms", e))
            print(String(format: "  fastest quorum (same run)         median %8.2f ms   (quorum: %@)", q, mode == .open ? "\(required) of 4 online" : "first portal answer"))
            print(String(format: "  waiting for every probe           median %8.2f ms", a))
            print(String(format: "  ratio early / fastest quorum      %8.2f x  (goal <= 1.2 x for portal detection)", q > 0 ? e / q : 0))
            print(String(format: "  ratio wait-for-all / early        %8.2f x", e > 0 ? a / e : 0))
            let short = mode == .open ? "online" : "portal"
            figures.append(Figure("portal-sim: \(short) detection, 1 of 4 probes dead, median", e, "ms", baseline: q, baselineUnit: "ms fastest quorum",
                                  goal: mode == .open ? "" : "≤ 1.2×"))
            figures.append(Figure("portal-sim: \(short) detection waiting for every probe, median", a, "ms", baseline: e, baselineUnit: "ms early decision"))
        }
        if tsv { for f in figures { Swift.print(f.tsv) } }
    }
}
