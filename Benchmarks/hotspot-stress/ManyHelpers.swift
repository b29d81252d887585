// SPDX-License-Identifier: Apache-2.0
import BenchKit
import HotspotTesting
import DBus
import Foundation
import HotspotHelperKit
import HotspotProtocol
import Synchronization

/// Many helpers: 100+ in-process HotspotHelperKit helpers, each on a connection of its own,
/// registered while joins happen; then joins where every helper is asked to evaluate and the
/// decision waits for all of them (one answers low, the rest none).
struct ManyHelpers {
    var helpers = 128
    var joins = 20

    /// Holds the helpers for the whole run (a helper stays registered while its value lives).
    final class Keep: Sendable {
        let items = Mutex<[any Sendable]>([])
        func add(_ x: any Sendable) { items.withLock { $0.append(x) } }
    }

    func run(verbose: Bool) async throws -> (figures: [Figure], failures: [String]) {
        let progress: @Sendable (String) -> Void = { verbose ? say($0) : note($0) }
        return try await Rig.run(accessPoints: [MockAccessPoint(name: "ap1", ssid: "HelperNet", bssid: "0A:00:00:00:01:01", strength: 70)],
                                 settings: ["command-timeout": "5", "filter-interval": "5"]) { rig in
            try await run(rig, progress: progress)
        }
    }

    private func run(_ rig: Rig, progress: @Sendable (String) -> Void) async throws -> (figures: [Figure], failures: [String]) {
        let device = rig.device, daemon = rig.daemon
        let profile = try await rig.addProfile("helpernet", ssid: "HelperNet")
        let pid = daemon.process.pid
        let iface = rig.interfacePath
        let stamps = try await StateStamps.observe(rig.c, device: try ObjectPath(device), interface: iface)
        defer { stamps.stop() }

        let keep = Keep()
        func register(_ i: Int) async throws -> HotspotHelper {
            let conn = try rig.bus.connect()
            return try await HotspotHelper.register(
                options: HotspotHelperOptions(displayName: "Load \(i)", identifier: "load.\(i)",
                                              commands: [.filterScanList, .evaluate, .authenticate, .maintain, .logoff, .presentUI]),
                connection: conn, handlerPath: try ObjectPath("/load/h\(i)")) { command in
                switch command.commandType {
                case .evaluate:
                    command.network?.setConfidence(i == 0 ? .low : .none)
                    let r = command.createResponse(.success)
                    if let n = command.network { r.setNetwork(n) }
                    r.deliver()
                default:
                    command.createResponse(.success).deliver()
                }
            }
        }
        /// One join: activated → authenticating (the decision) → authenticated, then leave.
        var cycle = 0
        func join() async throws -> Double {
            cycle += 1
            _ = try await rig.c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                 member: "ForgetNetwork", body: [.bytes(Array("HelperNet".utf8))])
            try await rig.mock("AddActiveConnection", [.strings([device]), .string(profile), "/org/freedesktop/NetworkManager/AccessPoint/ap1",
                                                          .string("join\(cycle)"), .uint32(2)])
            let t0 = await stamps.wait(for: "activated")
            let t1 = await stamps.wait(for: "authenticating")
            _ = await stamps.wait(for: "authenticated")
            try await rig.nm.deactivate(rig.c, device: device)
            _ = await stamps.wait(for: "inactive")
            return milliseconds(t1 - t0)
        }

        let first = try await register(0)
        keep.add(first)
        var baseline: [Double] = []
        for _ in 0..<joins { baseline.append(try await join()) }
        try await Task.sleep(for: .milliseconds(300))
        let before = ProcessSample(pid: pid)
        progress("helpers: 1 helper, \(joins) joins: decision p50 \(String(format: "%.2f", percentile(baseline, 0.5))) ms; daemon \(before)")

        // Register the rest while joins go on.
        progress("helpers: registering \(helpers - 1) more helpers, each on its own connection, while joining…")
        let registering = ContinuousClock.now
        let registration = Task { () throws -> [HotspotHelper] in
            var list: [HotspotHelper] = []
            for i in 1..<helpers { list.append(try await register(i)) }
            return list
        }
        var during: [Double] = []
        while during.count < 200 {
            during.append(try await join())
            let count = try await rig.daemonHelperCount()
            if during.count >= 3 && count >= helpers { break }
        }
        let all = try await registration.value
        let registrationTime = milliseconds(.now - registering)
        keep.add(all)
        try await Task.sleep(for: .milliseconds(300))
        let registered = ProcessSample(pid: pid)
        var many: [Double] = []
        for _ in 0..<joins { many.append(try await join()) }
        try await Task.sleep(for: .milliseconds(300))
        let afterJoins = ProcessSample(pid: pid)
        progress("helpers: \(helpers) helpers, \(joins) joins: decision p50 \(String(format: "%.2f", percentile(many, 0.5))) ms; daemon \(afterJoins)")
        for h in all { try await h.unregister() }
        try await Task.sleep(for: .seconds(1))
        let unregistered = ProcessSample(pid: pid)
        let count = try await rig.daemonHelperCount()
        var failures: [String] = []
        if count != 1 { failures.append("after unregistering, the daemon lists \(count) helpers (expected 1)") }
        if !daemon.process.isRunning { failures.append("the daemon exited: \(daemon.log.suffix(2000))") }
        if unregistered.fds > before.fds + 2 { failures.append("the daemon's descriptors grew from \(before.fds) to \(unregistered.fds)") }
        // Each helper's command channel holds one descriptor, and the daemon keeps at most 64.
        if registered.fds > before.fds + 64 + 2 {
            failures.append("with \(helpers) helpers the daemon held \(registered.fds) descriptors, more than one per command channel (at most 64) over \(before.fds)")
        }
        return ([
            Figure("helpers: evaluate decision with \(helpers) helpers, p50", percentile(many, 0.5), "ms", baseline: percentile(baseline, 0.5),
                   baselineUnit: "ms with 1 helper", goal: "all \(helpers) answers in one decision"),
            Figure("helpers: evaluate decision with \(helpers) helpers, p99", percentile(many, 0.99), "ms", baseline: percentile(baseline, 0.99),
                   baselineUnit: "ms with 1 helper"),
            Figure("helpers: decision while \(helpers - 1) register, worst", during.max() ?? .nan, "ms", baseline: baseline.max() ?? .nan,
                   baselineUnit: "ms with 1 helper"),
            Figure("helpers: registering \(helpers - 1) helpers", registrationTime, "ms"),
            Figure("helpers: daemon RSS with \(helpers) helpers", afterJoins.rssMiB, "MiB", baseline: before.rssMiB, baselineUnit: "MiB with 1", goal: "≤ 1.5×"),
            Figure("helpers: daemon RSS after they left", unregistered.rssMiB, "MiB", baseline: before.rssMiB, baselineUnit: "MiB with 1"),
            Figure("helpers: daemon fds with \(helpers) helpers", Double(registered.fds), "fds", baseline: Double(before.fds), baselineUnit: "fds with 1",
                   goal: "≤ +64 (a command channel each, 64 at most; the rest share the bus connection)"),
            Figure("helpers: daemon threads with \(helpers) helpers", Double(afterJoins.threads), "threads", baseline: Double(before.threads),
                   baselineUnit: "threads with 1", goal: "no growth"),
        ], failures)
    }
}

extension Rig {
    func daemonHelperCount() async throws -> Int {
        try await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                         member: "Get", body: [.string(HotspotContract.managerInterface.rawValue), "Helpers"]).first?.unwrapped.arrayItems?.count ?? 0
    }
}
