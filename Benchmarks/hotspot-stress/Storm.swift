// SPDX-License-Identifier: Apache-2.0
import BenchKit
import HotspotTesting
import DBus
import Foundation

/// The signal storm: several Wi-Fi devices with many access points in the mock NetworkManager,
/// and bursts of thousands of access-point changes emitted by the mock itself (Strength changes
/// and AccessPointAdded/Removed churn), from NetworkManager's own connection so they pass the
/// daemon's sender filter. After each burst a sentinel Strength on one access point, timed until
/// the daemon's GetScanList shows it.
struct Storm {
    var devices = 4
    var accessPoints = 50
    var bursts = 20
    var burstSize = 5000
    /// One AccessPointAdded or AccessPointRemoved in this many changes.
    var churnEvery = 25
    var filterInterval = 5

    /// Python run inside the mock (AddMethod on the NetworkManager object). The signals are built
    /// and sent straight on the mock's connection, in chunks from GLib idle callbacks so the mock
    /// still answers the daemon's GetAll for re-added access points during a burst.
    static let interface = "net.hotspothelper.Stress"
    static let setupCode = """
        AP = 'org.freedesktop.NetworkManager.AccessPoint'
        devs = sorted(p for p in objects if p.startswith('/org/freedesktop/NetworkManager/Devices/'))
        self.stress_aps = [a for d in devs for a in objects[d].access_points if '/churn' not in a]
        self.stress_churn = [[d, a, True] for d in devs for a in objects[d].access_points if '/churn' in a]
        ret = len(self.stress_aps)
        """
    static let startCode = """
        import time
        import dbus, dbus.lowlevel
        from gi.repository import GLib
        st = {'i': 0, 'n': int(args[0]), 'seed': int(args[1]), 'churn': int(args[2]), 'start': time.monotonic(), 'end': 0.0, 'done': False}
        self.stress_state = st
        def chunk(st=st, conn=self.connection, aps=self.stress_aps, churn=self.stress_churn, objects=objects, dbus=dbus, time=time):
            AP = 'org.freedesktop.NetworkManager.AccessPoint'
            WL = 'org.freedesktop.NetworkManager.Device.Wireless'
            i, n, seed, every = st['i'], st['n'], st['seed'], st['churn']
            end = min(n, i + 400)
            while i < end:
                if every and churn and i % every == every - 1:
                    c = churn[(i // every + seed) % len(churn)]
                    lst = objects[c[0]].props[WL]['AccessPoints']
                    if c[2]:
                        lst.remove(c[1])
                        member = 'AccessPointRemoved'
                    else:
                        lst.append(dbus.ObjectPath(c[1]))
                        member = 'AccessPointAdded'
                    c[2] = not c[2]
                    m = dbus.lowlevel.SignalMessage(c[0], WL, member)
                    m.append(dbus.ObjectPath(c[1]), signature='o')
                else:
                    ap = aps[(i * 7 + seed) % len(aps)]
                    s = 20 + (i * 13 + seed) % 80
                    objects[ap].props[AP]['Strength'] = dbus.Byte(s)
                    m = dbus.lowlevel.SignalMessage(ap, 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
                    m.append(AP, {'Strength': dbus.Byte(s, variant_level=1)}, dbus.Array([], signature='s'), signature='sa{sv}as')
                conn.send_message(m)
                i += 1
            st['i'] = i
            if i >= n:
                conn.flush()
                st['end'] = time.monotonic()
                st['done'] = True
                return False
            return True
        GLib.idle_add(chunk)
        """
    static let statusCode = """
        st = self.stress_state
        ret = (st['done'], st['i'], (st['end'] if st['done'] else __import__('time').monotonic()) - st['start'])
        """
    static let sentinelCode = """
        import dbus, dbus.lowlevel
        AP = 'org.freedesktop.NetworkManager.AccessPoint'
        objects[args[0]].props[AP]['Strength'] = dbus.Byte(args[1])
        m = dbus.lowlevel.SignalMessage(args[0], 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
        m.append(AP, {'Strength': dbus.Byte(args[1], variant_level=1)}, dbus.Array([], signature='s'), signature='sa{sv}as')
        self.connection.send_message(m)
        self.connection.flush()
        """

    struct Result {
        var figures: [Figure]
        var failures: [String]
    }

    func run(verbose: Bool) async throws -> Result {
        let progress: @Sendable (String) -> Void = { verbose ? say($0) : note($0) }
        progress("storm: \(devices) devices × \(accessPoints) access points (+1 churning each), \(bursts) bursts of \(burstSize) changes, one in \(churnEvery) an AP added/removed")
        func accessPointsOf(_ d: Int) -> [MockAccessPoint] {
            (0..<accessPoints).map { a in
                MockAccessPoint(name: "s\(d)_\(a)", ssid: "Storm-\(d)-\(a)", bssid: String(format: "0A:00:00:00:%02X:%02X", d, a), strength: 50,
                                secure: a % 2 == 1)
            } + [MockAccessPoint(name: "churn\(d)", ssid: "Churn-\(d)", bssid: String(format: "0C:00:00:00:00:%02X", d), strength: 40)]
        }
        // wlan0 is the scenario's; the other devices and the storm's methods are there before the daemon starts.
        return try await Rig.run(accessPoints: accessPointsOf(0), settings: ["command-timeout": "5", "filter-interval": "\(filterInterval)"],
                                 beforeDaemon: { nm, c in
            for d in stride(from: 1, to: devices, by: 1) { _ = try await nm.addWiFiDevice(c, interface: "wlan\(d)", accessPoints: accessPointsOf(d)) }
            for (name, inSig, outSig, code) in [("StormSetup", "", "u", Self.setupCode), ("StormStart", "uuu", "", Self.startCode),
                                                ("StormStatus", "", "(bud)", Self.statusCode), ("StormSentinel", "sy", "", Self.sentinelCode)] {
                try await nm.addMethod(c, path: Rig.nmPath, interface: Self.interface, name: name, inSignature: inSig, outSignature: outSig, code: code)
            }
        }) { rig in
            try await storm(rig, progress: progress)
        }
    }

    private func storm(_ rig: Rig, progress: @Sendable (String) -> Void) async throws -> Result {
        let daemon = rig.daemon
        let pid = daemon.process.pid
        let loaded = try await rig.waitUntil(timeout: .seconds(60)) {
            let byName = try await rig.interfacesByName()
            guard byName.count == devices else { return false }
            for path in byName.values where try await rig.scanList(path).count != accessPoints + 1 { return false }
            return true
        }
        guard loaded else { throw StressError("the daemon did not list \(devices) interfaces with \(accessPoints + 1) networks each; its log:\n\(daemon.log)") }
        let byName = try await rig.interfacesByName()
        let stressAPs = try await call(rig, "StormSetup", []).first?.uint32 ?? 0
        guard stressAPs == devices * accessPoints else { throw StressError("the mock lists \(stressAPs) access points, expected \(devices * accessPoints)") }

        /// Sets a sentinel strength on device d's first AP; returns the time until GetScanList shows it.
        func sentinel(device d: Int, strength: UInt8) async throws -> Double? {
            guard let path = byName["wlan\(d)"] else { return nil }
            let bssid = String(format: "0A:00:00:00:%02X:%02X", d, 0)
            let t0 = ContinuousClock.now
            try await call(rig, "StormSentinel", [.string("/org/freedesktop/NetworkManager/AccessPoint/s\(d)_0"), .byte(strength)])
            let want = Double(strength) / 100
            let seen: Bool
            do {
                seen = try await rig.waitUntil(timeout: .seconds(30), every: .milliseconds(1)) {
                    try await rig.scanList(path).contains { $0["bssid"]?.string == bssid && $0["strength"]?.double == want }
                }
            } catch {
                throw StressError("reading wlan\(d)'s scan list failed: \(error)\n--- the daemon's log (warnings and errors) ---\n\(daemon.log.suffix(3000))")
            }
            return seen ? milliseconds(.now - t0) : nil
        }

        // Idle baseline: the same sentinel with no storm.
        var idle: [Double] = []
        for i in 0..<20 {
            if let lag = try await sentinel(device: i % devices, strength: UInt8(1 + i % 19)) { idle.append(lag) }
        }
        try await Task.sleep(for: .milliseconds(300))
        let before = ProcessSample(pid: pid)
        progress("daemon before: \(before); idle sentinel lag p50 \(String(format: "%.2f", percentile(idle, 0.5))) ms")

        var failures: [String] = []
        var lags: [Double] = []
        var rates: [Double] = []
        var drain: [Double] = []
        var emittedTotal = 0
        var peak = before
        let stormStart = ContinuousClock.now
        for b in 0..<bursts {
            let t0 = ContinuousClock.now
            try await call(rig, "StormStart", [.uint32(UInt32(burstSize)), .uint32(UInt32(b * 7919)), .uint32(UInt32(churnEvery))])
            var status: (done: Bool, emitted: Int, seconds: Double) = (false, 0, 0)
            while !status.done {
                try await Task.sleep(for: .milliseconds(5))
                let s = ProcessSample(pid: pid)
                if s.rssKiB > peak.rssKiB { peak.rssKiB = s.rssKiB }
                if s.fds > peak.fds { peak.fds = s.fds }
                if s.threads > peak.threads { peak.threads = s.threads }
                let f = try await call(rig, "StormStatus", []).first?.structFields ?? []
                status = (f.first?.bool ?? true, Int(f.dropFirst().first?.integer ?? 0), f.last?.double ?? 0)
            }
            emittedTotal += status.emitted
            rates.append(Double(status.emitted) / max(status.seconds, 1e-6))
            let strength = UInt8(1 + b % 19)
            if let lag = try await sentinel(device: b % devices, strength: strength) {
                lags.append(lag)
                drain.append(milliseconds(.now - t0))
                progress(String(format: "  burst %2d: %5d changes in %6.1f ms (%7.0f/s); sentinel seen after %7.2f ms; daemon %@",
                                b + 1, status.emitted, status.seconds * 1000, rates.last!, lag, ProcessSample(pid: pid).description))
            } else {
                failures.append("burst \(b + 1): the sentinel strength never showed in GetScanList within 30 s")
                progress("  burst \(b + 1): sentinel NOT seen within 30 s")
            }
        }
        let stormTime = milliseconds(.now - stormStart) / 1000
        let after = ProcessSample(pid: pid)
        try await Task.sleep(for: .seconds(3))
        let settled = ProcessSample(pid: pid)
        if !daemon.process.isRunning { failures.append("the daemon exited during the storm: \(daemon.log.suffix(2000))") }
        // Still consistent afterwards: every AP's final strength as the mock holds it.
        let final = try await rig.scanList(byName["wlan0"]!)
        if final.count < accessPoints { failures.append("after the storm wlan0 lists \(final.count) networks, expected at least \(accessPoints)") }

        let totalRate = Double(emittedTotal) / stormTime
        let cpuPerK = (after.cpuSeconds - before.cpuSeconds) * 1000 / Double(max(emittedTotal, 1)) * 1000
        let worst = lags.max() ?? .nan
        let figures: [Figure] = [
            Figure("storm: signals emitted per second (mock, in bursts)", percentile(rates, 0.5), "signals/s", goal: "≥ 1000 (thousands per second)"),
            Figure("storm: signals handled per second (burst + drain)", totalRate, "signals/s", goal: "≥ 1000"),
            Figure("storm: sentinel lag after a burst, p99", percentile(lags, 0.99), "ms", baseline: percentile(idle, 0.99), baselineUnit: "ms idle p99"),
            Figure("storm: sentinel lag after a burst, worst", worst, "ms", baseline: idle.max() ?? .nan, baselineUnit: "ms idle worst",
                   goal: "< 1000 ms (bounded)"),
            Figure("storm: daemon CPU per 1000 signals", cpuPerK, "ms"),
            Figure("storm: daemon RSS after the storm", after.rssMiB, "MiB", baseline: before.rssMiB, baselineUnit: "MiB before", goal: "≤ 1.5× (flat)"),
            Figure("storm: daemon RSS 3 s after", settled.rssMiB, "MiB", baseline: before.rssMiB, baselineUnit: "MiB before", goal: "≤ 1.5× (flat)"),
            Figure("storm: daemon RSS peak", peak.rssMiB, "MiB", baseline: before.rssMiB, baselineUnit: "MiB before"),
            Figure("storm: daemon fds after the storm", Double(settled.fds), "fds", baseline: Double(before.fds), baselineUnit: "fds before", goal: "= before"),
            Figure("storm: daemon threads after the storm", Double(settled.threads), "threads", baseline: Double(before.threads), baselineUnit: "threads before",
                   goal: "no growth"),
        ]
        if settled.fds > before.fds + 2 { failures.append("the daemon's descriptors grew from \(before.fds) to \(settled.fds)") }
        if settled.rssKiB > before.rssKiB * 3 / 2 + 8 * 1024 { failures.append("the daemon's RSS grew from \(before.description) to \(settled.description)") }
        if worst > 1000 { failures.append(String(format: "the worst sentinel lag was %.0f ms (bound: 1000 ms)", worst)) }
        return Result(figures: figures, failures: failures)
    }

    @discardableResult
    private func call(_ rig: Rig, _ member: String, _ body: [DBusValue]) async throws -> [DBusValue] {
        try await rig.c.call("org.freedesktop.NetworkManager", Rig.nmPath, Self.interface, member, body, timeout: .seconds(60))
    }
}
