// SPDX-License-Identifier: Apache-2.0
import BenchKit
import HotspotTesting
import Connectivity
import DBus
import Foundation
import HotspotProtocol

/// The soak: joins, sign-ins and leaves, over and over, against hotspot-portal-sim on loopback.
/// The daemon's built-in profiles helper signs in by click-through (as the demo's real sign-in
/// does: probes and DNS pointed at the simulator, bind-interface=false, a profile for the
/// network). After each cycle: the daemon's state against NetworkManager's, the sign-in the
/// simulator recorded, and the daemon's descriptors, threads and memory.
struct Soak {
    var cycles = 1000
    /// Cycles before the leak baseline is taken (caches and pools fill up first).
    var warmup = 20
    var fdBound = 4
    var threadBound = 4
    var rssBoundMiB = 16.0

    struct Outcome {
        var text: [String]
        var figures: [Figure]
        var failures: [String]
    }

    func run(verbose: Bool) async throws -> Outcome {
        let progress: @Sendable (String) -> Void = { verbose ? say($0) : note($0) }
        let sim = try await SimulatedPortal.start(mode: "click-through")
        defer { sim.stop() }

        let profiles = try ProfilesDirectory()
        defer { profiles.remove() }
        try profiles.write("cityfree.conf", "[CityFree]\nssid=CityFree\ndisplay-name=City Free Wi-Fi\nsign-in=click-through\n")

        return try await Rig.run(accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:11:22:33:44:01", strength: 82)],
                                 settings: ["profiles-dir": profiles.path, "command-timeout": "10"], connectivity: sim.connectivity()) { rig in
            try await soak(rig, sim: sim, progress: progress)
        }
    }

    private func soak(_ rig: Rig, sim: SimulatedPortal, progress: @Sendable (String) -> Void) async throws -> Outcome {
        let port = sim.port
        let device = rig.device, daemon = rig.daemon
        let profile = try await rig.addProfile("cityfree", ssid: "CityFree")
        let pid = daemon.process.pid
        let iface = rig.interfacePath
        progress("soak: \(cycles) cycles of join → click-through sign-in → leave against hotspot-portal-sim on 127.0.0.1:\(port)")

        func deviceState() async throws -> UInt32 {
            try await rig.c.call("org.freedesktop.NetworkManager", device, "org.freedesktop.DBus.Properties", "Get",
                                 ["org.freedesktop.NetworkManager.Device", "State"]).first?.unwrapped.uint32 ?? 0
        }
        func state() async throws -> String { try await rig.property(iface, "State")?.string ?? "" }
        func connectivity() async throws -> String { try await rig.property(iface, "Connectivity")?.string ?? "" }

        let start = ProcessSample(pid: pid)
        var base = start
        var maxSample = start
        var failures: [String] = []
        var joinTimes: [Double] = []
        var cycleTimes: [Double] = []
        var signIns = 0
        var completed = 0
        let began = ContinuousClock.now
        for cycle in 1...cycles {
            let t0 = ContinuousClock.now
            var problems: [String] = []
            // Join: NetworkManager activates; the daemon evaluates, the profile helper signs in.
            try await rig.mock("AddActiveConnection", [.strings([device]), .string(profile), "/org/freedesktop/NetworkManager/AccessPoint/ap1",
                                                        .string("soak\(cycle)"), .uint32(2)])
            let joined = try await rig.waitUntil(timeout: .seconds(30)) {
                let (s, c) = (try await state(), try await connectivity())
                return s == "authenticated" && c == "full"
            }
            joinTimes.append(milliseconds(.now - t0))
            let (joinedState, joinedConnectivity) = (try await state(), try await connectivity())
            if !joined { problems.append("join: State \(joinedState), Connectivity \(joinedConnectivity) after 30 s (want authenticated, full)") }
            let nmState = try await deviceState()
            if nmState != 100 { problems.append("join: NetworkManager's device State is \(nmState), the daemon's \(joinedState)") }
            if await sim.acceptedSignIn() {
                signIns += 1
            } else {
                problems.append("sign-in: the simulator recorded no accepted POST")
            }
            // Leave.
            try await rig.nm.deactivate(rig.c, device: device)
            let left = try await rig.waitUntil(timeout: .seconds(10)) {
                let (s, c) = (try await state(), try await connectivity())
                return s == "inactive" && c == "unknown"
            }
            if !left {
                let (s, c) = (try await state(), try await connectivity())
                problems.append("leave: State \(s), Connectivity \(c) (want inactive, unknown)")
            }
            let nmAfter = try await deviceState()
            if nmAfter != 30 { problems.append("leave: NetworkManager's device State is \(nmAfter)") }
            let names = try await rig.interfacesByName()
            if Array(names.keys) != ["wlan0"] || names["wlan0"] != iface {
                problems.append("Interfaces is \(names) but NetworkManager has one Wi-Fi device, wlan0")
            }
            _ = await sim.get("/__sim/reset")
            cycleTimes.append(milliseconds(.now - t0))
            completed = cycle

            // Leaks, against the sample after the warm-up.
            var sample = ProcessSample(pid: pid)
            if cycle == warmup { base = sample }
            if cycle > warmup, sample.fds > base.fds + fdBound || sample.threads > base.threads + threadBound {
                // Descriptors and threads of work just finished may still be closing: look again.
                try await Task.sleep(for: .milliseconds(500))
                sample = ProcessSample(pid: pid)
                if sample.fds > base.fds + fdBound { problems.append("leak: \(sample.fds) fds, \(base.fds) after the warm-up (bound +\(fdBound))") }
                if sample.threads > base.threads + threadBound {
                    problems.append("leak: \(sample.threads) threads, \(base.threads) after the warm-up (bound +\(threadBound))")
                }
            }
            if cycle > warmup, sample.rssMiB > base.rssMiB + rssBoundMiB {
                problems.append(String(format: "leak: RSS %.1f MiB, %.1f MiB after the warm-up (bound +%.0f MiB)", sample.rssMiB, base.rssMiB, rssBoundMiB))
            }
            maxSample.rssKiB = max(maxSample.rssKiB, sample.rssKiB)
            maxSample.fds = max(maxSample.fds, sample.fds)
            maxSample.threads = max(maxSample.threads, sample.threads)
            if !daemon.process.isRunning { problems.append("the daemon exited: \(daemon.log.suffix(2000))") }
            for p in problems { failures.append("cycle \(cycle): \(p)") }
            if cycle % 25 == 0 || cycle == cycles || !problems.isEmpty {
                progress(String(format: "  cycle %4d/%d  join+sign-in p50 %6.1f ms  %@  %d failed check(s)%@", cycle, cycles,
                                percentile(joinTimes, 0.5), sample.description, failures.count, problems.isEmpty ? "" : ": " + problems.joined(separator: "; ")))
            }
            if !daemon.process.isRunning || failures.count > 50 { break }
        }
        let elapsed = milliseconds(.now - began) / 1000
        try await Task.sleep(for: .milliseconds(500))
        let end = ProcessSample(pid: pid)

        func row(_ what: String, _ a: String, _ b: String, _ c: String, _ d: String) -> String {
            what.padding(toLength: 22, withPad: " ", startingAt: 0) + [a, b, c, d].map { $0.padding(toLength: 14, withPad: " ", startingAt: 0) }.joined()
        }
        var text = ["", row("daemon", "at start", "after warm-up", "at the end", "max")]
        text.append(row("RSS (MiB)", String(format: "%.1f", start.rssMiB), String(format: "%.1f", base.rssMiB), String(format: "%.1f", end.rssMiB),
                        String(format: "%.1f", maxSample.rssMiB)))
        text.append(row("file descriptors", "\(start.fds)", "\(base.fds)", "\(end.fds)", "\(maxSample.fds)"))
        text.append(row("threads", "\(start.threads)", "\(base.threads)", "\(end.threads)", "\(maxSample.threads)"))
        text.append("")
        text.append(String(format: "cycles %d of %d in %.0f s (%.0f ms each, p99 %.0f ms); sign-ins recorded by the simulator: %d; join → authenticated + full: p50 %.1f ms, p99 %.1f ms",
                           completed, cycles, elapsed, percentile(cycleTimes, 0.5), percentile(cycleTimes, 0.99), signIns,
                           percentile(joinTimes, 0.5), percentile(joinTimes, 0.99)))
        text.append(failures.isEmpty ? "checks: all passed (state matched NetworkManager after every join and leave; no growth beyond +\(fdBound) fds, +\(threadBound) threads, +\(Int(rssBoundMiB)) MiB)"
                                     : "checks: \(failures.count) FAILED")
        let figures = [
            Figure("soak: cycles (join, click-through sign-in, leave)", Double(completed), "cycles", goal: "\(cycles), every check passed"),
            Figure("soak: failed checks", Double(failures.count), "checks", goal: "0"),
            Figure("soak: join → signed in (authenticated, full) p50", percentile(joinTimes, 0.5), "ms"),
            Figure("soak: daemon RSS at the end", end.rssMiB, "MiB", baseline: base.rssMiB, baselineUnit: "MiB after warm-up", goal: "+\(Int(rssBoundMiB)) MiB at most"),
            Figure("soak: daemon RSS max", maxSample.rssMiB, "MiB", baseline: start.rssMiB, baselineUnit: "MiB at start"),
            Figure("soak: daemon fds at the end", Double(end.fds), "fds", baseline: Double(base.fds), baselineUnit: "fds after warm-up", goal: "+\(fdBound) at most"),
            Figure("soak: daemon threads at the end", Double(end.threads), "threads", baseline: Double(base.threads), baselineUnit: "threads after warm-up",
                   goal: "+\(threadBound) at most"),
        ]
        return Outcome(text: text, figures: figures, failures: failures)
    }
}
