// SPDX-License-Identifier: Apache-2.0
// footprint-benchmark: what the package costs a machine. The .deb and its installed
// size; the packaged daemon's resident memory idle and with 64 helpers registered; how often it
// wakes while idle (no network joined); and the time from exec to owning its bus name. The daemon
// measured is the stripped binary `make deb` staged (debian-build/root), on a private bus with
// python-dbusmock's NetworkManager (one Wi-Fi device, nothing joined).
import BenchKit
import HotspotTesting
import DBus
import Foundation
import HotspotHelperKit
import HotspotProtocol

var tsv = false
var helperCount = 64
var idleSeconds = 5.0
var debPath: String?
var daemonPath: String?
var inspect: String?
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--tsv": tsv = true
    case "--helpers": helperCount = Int(args.next() ?? "") ?? helperCount
    case "--idle-seconds": idleSeconds = Double(args.next() ?? "") ?? idleSeconds
    case "--deb": debPath = args.next()
    case "--daemon": daemonPath = args.next()
    case "--inspect": inspect = args.next()
    case "-h", "--help":
        say("""
            usage: footprint-benchmark [--tsv] [--deb PATH] [--daemon PATH] [--helpers N] [--idle-seconds S] [--inspect COMMAND]

            Measures the .deb (default: the newest debian-build/hotspot-helper_*.deb; run `make deb`
            first), its installed size (the control file's Installed-Size), and the daemon it stages
            (default: debian-build/root/usr/libexec/hotspot-helperd): RSS idle and with N helpers
            (default 64), context switches per second over S idle seconds (default 5), and the time
            from exec to owning org.freedesktop.NetworkManager.HotspotHelper (best of 5 starts).
            --inspect runs COMMAND with /bin/sh as each RSS figure is taken, with DAEMON_PID and
            FOOTPRINT_PHASE (idle, helpers) in its environment: to look into the daemon's memory
            (tools/link-order/resident-pages reads which of its pages are resident).
            """)
        exit(0)
    default:
        say("unknown option \(a); see --help")
        exit(2)
    }
}

let root = TestKitPaths.repositoryRoot
let mebibyte = 1024.0 * 1024.0

/// The newest hotspot-helper_*.deb in debian-build/.
func newestDeb() -> String? {
    let dir = root.appendingPathComponent("debian-build")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    let debs = names.filter { $0.hasPrefix("hotspot-helper_") && $0.hasSuffix(".deb") }.map { dir.appendingPathComponent($0).path }
    func modified(_ p: String) -> Date { ((try? FileManager.default.attributesOfItem(atPath: p))?[.modificationDate] as? Date) ?? .distantPast }
    return debs.max { modified($0) < modified($1) }
}

/// Installed-Size (KiB) from the package's control file.
func installedKiB(_ deb: String) throws -> Double {
    let result = try ManagedProcessSync.run("/usr/bin/dpkg-deb", ["-f", deb, "Installed-Size"])
    guard let kib = Double(result.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw BenchFailure("dpkg-deb -f \(deb) Installed-Size printed '\(result)'")
    }
    return kib
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// dpkg-deb, synchronously (the figures are read before any bus exists).
enum ManagedProcessSync {
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchFailure("\(executable) \(arguments.joined(separator: " ")) exited with \(p.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Context switches (voluntary and not) of each thread of `pid`, by thread id: each one is a
/// wake-up.
func contextSwitches(_ pid: Int32) -> [String: Int] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var out: [String: Int] = [:]
    for t in tasks {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/status", encoding: .utf8) else { continue }
        for line in text.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
            out[t, default: 0] += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
    }
    return out
}

/// Switches between two readings: the growth of threads seen in both, all of those of threads
/// started in between (a thread that ended in between is not counted, so this is a floor).
func switches(from before: [String: Int], to after: [String: Int]) -> Int {
    after.reduce(0) { sum, entry in sum + entry.value - (before[entry.key] ?? 0) }
}

/// A configuration like the shipped one (built-in helpers and connectivity on), with the state and
/// profiles in a scratch directory.
func writeConfiguration(_ dir: URL) throws -> URL {
    let state = dir.appendingPathComponent("state"), profiles = dir.appendingPathComponent("profiles.d")
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
    let config = dir.appendingPathComponent("hotspot-helperd.conf")
    try "[daemon]\nstate-dir=\(state.path)\nprofiles-dir=\(profiles.path)\n".write(to: config, atomically: false, encoding: .utf8)
    return config
}

/// Starts the daemon and returns it with the time from exec to NameOwnerChanged for its name.
func start(_ daemon: String, config: URL, bus: PrivateBus, watcher: Connection) async throws -> (ManagedProcess, Double) {
    let owners = try await watcher.signals(matching: MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                               interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                                                               arguments: [0: HotspotContract.busName.rawValue]))
    let t0 = ContinuousClock.now
    let p = try ManagedProcess.launch(daemon, ["--config", config.path, "--log-level", "warning"], environment: bus.environment, name: "hotspot-helperd")
    let owned = Task { () -> ContinuousClock.Instant? in
        for await s in owners where s.body.count == 3 && s.body[2].string?.isEmpty == false { return .now }
        return nil
    }
    let timeout = Task {
        try? await Task.sleep(for: .seconds(20))
        owned.cancel()
    }
    defer { timeout.cancel() }
    guard let at = await owned.value else {
        p.stop()
        throw BenchFailure("\(daemon) did not take its bus name within 20 s; its log:\n\(p.output)")
    }
    return (p, milliseconds(at - t0))
}

/// Runs --inspect's command, if any, against the daemon as it is measured.
@MainActor
func runInspection(_ phase: String, pid: pid_t) async throws {
    guard let inspect else { return }
    let r = try await ManagedProcess.run("/bin/sh", ["-c", inspect], environment: ["DAEMON_PID": String(pid), "FOOTPRINT_PHASE": phase])
    FileHandle.standardError.write(Data((r.stdout + r.stderr).utf8))
    if r.status != 0 { note("footprint: --inspect exited with status \(r.status) (\(phase))") }
}

@MainActor
func measure() async throws -> [Figure] {
    var figures: [Figure] = []
    guard let deb = debPath ?? newestDeb() else {
        throw BenchFailure("no debian-build/hotspot-helper_*.deb: run `make deb` first (or pass --deb)")
    }
    let debBytes = Double(((try FileManager.default.attributesOfItem(atPath: deb))[.size] as? NSNumber)?.int64Value ?? 0)
    figures.append(Figure("footprint: .deb size", debBytes / mebibyte, "MiB", goal: "≤ 8 MiB"))
    figures.append(Figure("footprint: installed size", try installedKiB(deb) / 1024, "MiB", goal: "≤ 25 MiB"))
    note("footprint: \(deb): \(String(format: "%.2f", debBytes / mebibyte)) MiB")

    let daemon = daemonPath ?? root.appendingPathComponent("debian-build/root/usr/libexec/hotspot-helperd").path
    guard FileManager.default.isExecutableFile(atPath: daemon) else { throw BenchFailure("no daemon at \(daemon): run `make deb` first (or pass --daemon)") }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hotspot-footprint-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let config = try writeConfiguration(scratch)

    let bus = try await PrivateBus()
    defer { bus.stop() }
    let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
    defer { nm.stop() }
    let c = try bus.connect()
    _ = try await nm.setUpWiFi(c, accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")])

    // Exec → bus name: best of five starts (the first also warms the page cache).
    var starts: [Double] = []
    for _ in 0..<5 {
        let (p, ms) = try await start(daemon, config: config, bus: bus, watcher: c)
        starts.append(ms)
        p.send(SIGTERM)
        _ = await p.waitForExit(timeout: .seconds(10))
        p.stop()
        try await bus.waitForNameGone(HotspotContract.busName.rawValue)
    }
    figures.append(Figure("footprint: exec to bus name (best of 5)", starts.min() ?? .nan, "ms", goal: "≤ 100 ms"))
    note("footprint: exec → bus name \(starts.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms")

    let (p, _) = try await start(daemon, config: config, bus: bus, watcher: c)
    defer { p.stop() }
    // Settle: the daemon publishes wlan0 and reads the scan list; then nothing should happen.
    _ = try await pollUntil(timeout: .seconds(20), every: .milliseconds(50)) { try await c.daemonInterfaces().isEmpty == false }
    try await Task.sleep(for: .seconds(2))
    let switches0 = contextSwitches(p.pid)
    try await Task.sleep(for: .seconds(idleSeconds))
    let switches1 = contextSwitches(p.pid)
    let idle = ProcessSample(pid: p.pid)
    try await runInspection("idle", pid: p.pid)
    let busSample = ProcessSample(pid: bus.process.pid)
    figures.append(Figure("footprint: daemon RSS idle", idle.rssMiB, "MiB", baseline: busSample.rssMiB, baselineUnit: "MiB (dbus-daemon)", goal: "≤ 12 MiB"))
    // What the RSS is made of: the anonymous part is the daemon's own; the file-backed part is
    // clean pages of the binary and the libraries, shared with the page cache.
    figures.append(Figure("footprint: daemon RSS idle, anonymous", Double(idle.anonymousKiB) / 1024, "MiB",
                          baseline: Double(busSample.anonymousKiB) / 1024, baselineUnit: "MiB (dbus-daemon)"))
    figures.append(Figure("footprint: daemon RSS idle, file-backed", Double(idle.fileKiB) / 1024, "MiB",
                          baseline: Double(busSample.fileKiB) / 1024, baselineUnit: "MiB (dbus-daemon)"))
    let woke = switches(from: switches0, to: switches1)
    figures.append(Figure("footprint: daemon wake-ups while idle", Double(woke) / idleSeconds, "per s", goal: "≤ 0.1 per s"))
    note("footprint: idle daemon \(idle); \(woke) context switches in \(idleSeconds) s; threads \(switches0.keys.sorted()) → \(switches1.keys.sorted())")

    var helpers: [HotspotHelper] = []
    for i in 0..<helperCount {
        let conn = try bus.connect()
        helpers.append(try await HotspotHelper.register(
            options: HotspotHelperOptions(displayName: "Footprint \(i)", identifier: "footprint.\(i)"), connection: conn,
            handlerPath: try ObjectPath("/footprint/h\(i)")) { command in command.createResponse(.success).deliver() })
    }
    try await Task.sleep(for: .seconds(2))
    let loaded = ProcessSample(pid: p.pid)
    try await runInspection("helpers", pid: p.pid)
    figures.append(Figure("footprint: daemon RSS with \(helperCount) helpers", loaded.rssMiB, "MiB", goal: "≤ 16 MiB"))
    note("footprint: with \(helperCount) helpers \(loaded)")
    for h in helpers { try? await h.unregister() }
    return figures
}

do {
    let figures = try await measure()
    for f in figures { say(tsv ? f.tsv : "\(f.name): \(String(format: "%.2f", f.value)) \(f.unit)\(f.goal.isEmpty ? "" : " (goal \(f.goal))")") }
} catch {
    note("footprint-benchmark: \(error)")
    exit(1)
}
