// SPDX-License-Identifier: Apache-2.0
// daemon-benchmark: hotspot-helperd on a private bus with python-dbusmock's NetworkManager.
//  (a) join → authenticated latency over many joins with a helper that answers at once, beside
//      the bare D-Bus round trip to the daemon measured in the same run;
//  (b) evaluate with 1, 16 and 64 helpers where one never answers and another answers high at
//      once: the decision must come with the high answer, not after the silent one's deadline;
//  (c) the daemon's resident memory idle and with 64 helpers registered.
// Prints figures and ratios; asserts nothing.
import BenchKit
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import ProgramSupport
import Synchronization

// The benchmark's tasks run on the programs' executor (GlobalExecutor), as the daemon's do, and
// the measuring runs off the main actor (below): the bare round trip and a join's stamps pay the
// same hop from the bus thread to a worker.
GlobalExecutor.install()

/// --tsv: figures on stdout, everything else on stderr.
let tsvOutput = CommandLine.arguments.contains("--tsv")
func say(_ text: String) { (tsvOutput ? FileHandle.standardError : FileHandle.standardOutput).write(Data((text + "\n").utf8)) }
func ms(_ d: Duration) -> Double { milliseconds(d) }
func rssKiB(_ pid: Int32) -> Int { ProcessSample(pid: pid).rssKiB }

var joins = 200
var hops = false
/// --commands-over-bus: the helpers take no command channel (HotspotHelperOptions.usesCommandChannel).
var commandChannel = true
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--joins": joins = Int(args.next() ?? "") ?? joins
    case "--tsv": break
    case "--hops": hops = true
    case "--commands-over-bus": commandChannel = false
    case "-h", "--help":
        say("usage: daemon-benchmark [--joins N] [--tsv] [--hops] [--commands-over-bus]\n\nRuns hotspot-helperd (built beside this program) against a simulated NetworkManager and prints\njoin latency, evaluate decision time with many helpers, and the daemon's memory. --tsv prints the\nfigures as tab-separated figure, value, unit, baseline, baseline unit, ratio, goal lines.\n--hops runs only the joins, with the daemon and this program tracing every message they send\nand read (HOTSPOT_WIRE_TRACE), and prints when each of a join's messages was sent and read:\nwhere its time goes. Tracing costs each message a few microseconds.\n--commands-over-bus: the helpers ask for no command channel (RegisterHelper's CommandChannel), so the daemon's\ncommands and their answers go through dbus-daemon, as for helpers not written with HotspotHelperKit.")
        exit(0)
    default: say("unknown option \(a); see --help"); exit(2)
    }
}

/// Keeps commands and helpers alive for the benchmark's duration.
final class Keep: Sendable {
    let items = Mutex<[any Sendable]>([])
    func add(_ x: any Sendable) { items.withLock { $0.append(x) } }
}
let keep = Keep()
/// The helpers' connections' unique names (for --hops).
let helperConnections = Mutex<[String]>([])

// --hops: this process's connections and the daemon's trace their messages (DBus's WireTrace,
// which reads the variable when the first message is sent or read).
let traceDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("daemon-benchmark-hops-\(getpid())")
let tracePrefix = traceDirectory.appendingPathComponent("wire").path
if hops {
    try FileManager.default.createDirectory(at: traceDirectory, withIntermediateDirectories: true)
    ExitCleanup.register(traceDirectory)
    setenv("HOTSPOT_WIRE_TRACE", tracePrefix, 1)
}

let bus = try await PrivateBus()
let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
let c = try bus.connect()
if !GlobalExecutor.isInstalled {
    say("note: the benchmark's tasks run on the platform's executor (built without the CustomGlobalExecutor trait, or \(GlobalExecutor.platformExecutorVariable) is set)")
}
let nmPath = "/org/freedesktop/NetworkManager"
let device = try await nm.mockCall(c, path: nmPath, "AddWiFiDevice", ["wlan0", "wlan0", .int32(30)]).first?.string ?? ""
_ = try await nm.mockCall(c, path: nmPath, "AddAccessPoint", [.string(device), "ap1", "BenchNet", "0A:00:00:00:00:01", .uint32(2), .uint32(2412), .uint32(54000), .byte(70), .uint32(0)])
try await nm.addDisconnect(c, device: device)
try await nm.addAgentManager(c)
let profile = try await nm.mockCall(c, path: nmPath, "AddWiFiConnection", [.string(device), "benchnet", "BenchNet", ""]).first?.string ?? ""
let daemon = try await DaemonProcess.start(on: bus, settings: ["command-timeout": "5", "filter-interval": "5"], logLevel: "warning",
                                           environment: hops ? ["HOTSPOT_WIRE_TRACE": tracePrefix] : [:])
let pid = daemon.process.pid
let iface = HotspotContract.interfacePath(1)
while (try? await c.call(destination: HotspotContract.busName, path: iface, interface: "org.freedesktop.DBus.Peer", member: "Ping")) == nil {
    try await Task.sleep(for: .milliseconds(10))
}
try await Task.sleep(for: .milliseconds(300))
let rssIdle = rssKiB(pid)

// Observe: NetworkManager's ACTIVATED signal (what the daemon reacts to) and the daemon's State.
let stampBox = try await StateStamps.observe(c, device: try ObjectPath(device), interface: iface)
func waitFor(_ state: String) async -> ContinuousClock.Instant { await stampBox.wait(for: state) }

func registerHelpers(_ n: Int, highFirst: Bool) async throws -> [HotspotHelper] {
    var helpers: [HotspotHelper] = []
    for i in 0..<n {
        let conn = try bus.connect()
        helperConnections.withLock { $0.append(conn.uniqueName) }
        let h = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "H\(i)", identifier: "bench.\(n).\(i)",
                                                                                commands: [.evaluate, .authenticate, .maintain, .logoff, .presentUI],
                                                                                usesCommandChannel: commandChannel),
                                                 connection: conn, handlerPath: try ObjectPath("/h\(i)")) { command in
            if command.commandType == .evaluate {
                if i == 1 { keep.add(command); return } // the silent helper
                command.network?.setConfidence(i == 0 && highFirst ? .high : .none)
                let r = command.createResponse(.success)
                if let n = command.network { r.setNetwork(n) }
                r.deliver()
            } else {
                command.createResponse(.success).deliver()
            }
        }
        helpers.append(h)
    }
    return helpers
}

/// A join announced as real NetworkManager announces it: the active connection exists before the
/// device reaches ACTIVATED (DBusMock.activate).
func join(_ name: String) async throws {
    try await nm.activate(c, device: device, profile: profile, accessPoint: "/org/freedesktop/NetworkManager/AccessPoint/ap1", name: name)
}
func leave() async throws {
    try await nm.deactivate(c, device: device)
    _ = await waitFor("inactive")
}
func forget() async throws {
    _ = try await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                         member: "ForgetNetwork", body: [.bytes(Array("BenchNet".utf8))])
}

/// One bare round trip to the daemon, in milliseconds.
func pingOnce() async throws -> Double {
    let t0 = ContinuousClock.now
    _ = try await c.call(destination: HotspotContract.busName, path: iface, interface: "org.freedesktop.DBus.Peer", member: "Ping")
    return ms(.now - t0)
}

/// The bare round trips and (a), off the main actor (see the stamping task above): the loop's
/// own steps must not wake the main queue's thread in the middle of a join.
func measureJoins(_ count: Int) async throws -> (ping: [Double], latencies: [Double], between: [Double]) {
    // Bare round trip to the daemon, in this run.
    var ping: [Double] = []
    for _ in 0..<500 { ping.append(try await pingOnce()) }
    // (a) join → authenticated with one instant helper (evaluate + authenticate each time: the
    // cache is forgotten between joins).
    say("(a) \(count) joins → authenticated, one helper answering at once…")
    var latencies: [Double] = []
    /// The round trip again, three calls after each join: the same machine, the same minutes as
    /// the joins (the run-up's figure moves with the machine's state). A first call is made and
    /// not counted: it may wait behind the daemon's last work for the leave (the manager's Status
    /// announcement), which would make the round trip look slower than it is.
    var between: [Double] = []
    for i in 0..<count {
        try await forget()
        try await join("a\(i)")
        let t0 = await waitFor("activated")
        let t1 = await waitFor("authenticated")
        latencies.append(ms(t1 - t0))
        try await leave()
        _ = try await pingOnce()
        for _ in 0..<3 { between.append(try await pingOnce()) }
    }
    return (ping, latencies, between)
}
var instant = try await registerHelpers(1, highFirst: true)
let joinCount = joins
let (ping, latencies, pingBetween) = try await Task.detached { try await measureJoins(joinCount) }.value
let pingP50 = percentile(ping, 0.5)
let pingBetweenP50 = percentile(pingBetween, 0.5)
for h in instant { try await h.unregister() }
instant = []

if hops {
    // The daemon writes its trace as it exits; this process's, now.
    _ = await daemon.stop()
    WireTrace.flush()
    let files = try FileManager.default.contentsOfDirectory(at: traceDirectory, includingPropertiesForKeys: nil)
    let roles = HopRoles(daemonPID: pid, benchmark: c.uniqueName, helper: helperConnections.withLock { $0.first ?? "" },
                         interfacePath: iface.rawValue)
    let (rows, traced) = hopTable(files: files, roles: roles)
    say("")
    say(String(format: "(a) %d joins with every message traced: join → authenticated p50 %.2f ms (%.2f ms in the traces); bare round trip p50 %.3f ms, between joins %.3f ms",
               latencies.count, percentile(latencies, 0.5), percentile(traced, 0.5) / 1000, pingP50, pingBetweenP50))
    say("A join's messages, in µs since the observer read ACTIVATED (medians over the joins; the step is from the row above):")
    say("      µs    step   ")
    var previous: Double?
    for row in rows {
        let step = previous.map { String(format: "%+7.0f", row.median - $0) } ?? "       "
        say(String(format: "%8.0f %@   %@", row.median, step, row.label))
        previous = row.median
    }
    func at(_ label: String) -> Double? { rows.first { $0.label == label }?.median }
    let (command, announce, activated) = ("HandleCommand on /h0", "PropertiesChanged on \(shortPath(iface.rawValue))", "StateChanged on \(shortPath(device))")
    let sections: [(title: String, spans: [(String, String, String)])] = [
        (String(format: "Between processes (sent → read; half a bare round trip through the bus is %.0f µs):", pingP50 * 500), [
            ("daemon → helper, evaluate", "daemon sends \(command) #1", "helper reads \(command) #1"),
            ("helper → daemon, its answer", "helper sends a reply #1", "daemon reads a reply #1"),
            ("daemon → helper, authenticate", "daemon sends \(command) #2", "helper reads \(command) #2"),
            ("helper → daemon, its answer", "helper sends a reply #2", "daemon reads a reply #2"),
            ("daemon → observer, State (bus)", "daemon sends \(announce) #3", "observer reads \(announce) #3"),
        ].map { span in (span.0 + (span.0.contains("helper") ? (commandChannel ? " (channel)" : " (bus)") : ""), span.1, span.2) }),
        ("In a process (read → sent):", [
            ("daemon: ACTIVATED → evaluate", "daemon reads \(activated) #1", "daemon sends \(command) #1"),
            ("helper: evaluate → answer", "helper reads \(command) #1", "helper sends a reply #1"),
            ("daemon: answer → authenticate", "daemon reads a reply #1", "daemon sends \(command) #2"),
            ("helper: authenticate → answer", "helper reads \(command) #2", "helper sends a reply #2"),
            ("daemon: answer → State", "daemon reads a reply #2", "daemon sends \(announce) #3"),
        ]),
    ]
    for section in sections {
        say("")
        say(section.title)
        for (name, from, to) in section.spans {
            guard let a = at(from), let b = at(to) else { say("  \(name): not in most joins' traces"); continue }
            say("  " + name.padding(toLength: 42, withPad: " ", startingAt: 0) + String(format: "%6.0f µs", b - a))
        }
    }
    nm.stop()
    bus.stop()
    exit(0)
}

// (b) evaluate decision time with N helpers, one silent, one high at once.
var decision: [(Int, Double, Double)] = []
for n in [1, 16, 64] {
    say("(b) evaluate with \(n) helper(s)…")
    let helpers = try await registerHelpers(n, highFirst: true)
    var times: [Double] = []
    for i in 0..<10 {
        try await forget()
        try await join("b\(n)_\(i)")
        let t0 = await waitFor("activated")
        let t1 = await waitFor("authenticating")
        times.append(ms(t1 - t0))
        _ = await waitFor("authenticated")
        try await leave()
    }
    decision.append((n, percentile(times, 0.5), percentile(times, 0.99)))
    if n == 64 { keep.add(helpers) } else { for h in helpers { try await h.unregister() } }
}
try await Task.sleep(for: .milliseconds(300))
let rss64 = rssKiB(pid)

say("")
say("figure                                              value        baseline (same run)        ratio   goal")
say(String(format: "(a) join → authenticated p50                   %9.2f ms   D-Bus round trip %7.3f ms   %6.1f×   ≤ 6× (regression bound)", percentile(latencies, 0.5), pingP50, percentile(latencies, 0.5) / pingP50))
say(String(format: "(a) join → authenticated p99                   %9.2f ms   D-Bus round trip %7.3f ms   %6.1f×", percentile(latencies, 0.99), percentile(ping, 0.99), percentile(latencies, 0.99) / percentile(ping, 0.99)))
say(String(format: "(a) join → authenticated p50                   %9.2f ms   round trip between joins %7.3f ms   %6.1f×", percentile(latencies, 0.5), pingBetweenP50, percentile(latencies, 0.5) / pingBetweenP50))
for (n, p50, p99) in decision {
    let who = n == 1 ? "1 helper (high)        " : String(format: "%2d helpers, 1 silent   ", n)
    say(String(format: "(b) evaluate decision, %@ p50 %8.2f ms   silent deadline %8.0f ms   %6.3f×   ≪ 1 (the high answer decides)", who, p50, 5000.0, p50 / 5000))
    say(String(format: "(b) evaluate decision, %@ p99 %8.2f ms", who, p99))
}
say(String(format: "(c) daemon RSS idle                            %9.1f MiB", Double(rssIdle) / 1024))
say(String(format: "(c) daemon RSS with 64 helpers                 %9.1f MiB   idle %15.1f MiB   %6.2f×", Double(rss64) / 1024, Double(rssIdle) / 1024, Double(rss64) / Double(max(rssIdle, 1))))
if tsvOutput {
    var figures = [
        Figure("daemon: join → authenticated p50", percentile(latencies, 0.5), "ms", baseline: pingP50, baselineUnit: "ms D-Bus round trip",
               goal: "≤ 6× (regression bound)"),
        Figure("daemon: join → authenticated p99", percentile(latencies, 0.99), "ms", baseline: percentile(ping, 0.99), baselineUnit: "ms D-Bus round trip"),
        Figure("daemon: join → authenticated p50, round trip between joins", percentile(latencies, 0.5), "ms", baseline: pingBetweenP50,
               baselineUnit: "ms D-Bus round trip between joins"),
    ]
    for (n, p50, p99) in decision {
        figures.append(Figure("daemon: evaluate decision, \(n) helper(s)\(n == 1 ? "" : ", 1 silent") p50", p50, "ms", baseline: 5000,
                              baselineUnit: "ms silent deadline", goal: "≪ 1 (the high answer decides)"))
        figures.append(Figure("daemon: evaluate decision, \(n) helper(s)\(n == 1 ? "" : ", 1 silent") p99", p99, "ms", baseline: 5000,
                              baselineUnit: "ms silent deadline", goal: "≪ 1"))
    }
    figures.append(Figure("daemon: RSS with 64 helpers", Double(rss64) / 1024, "MiB", baseline: Double(rssIdle) / 1024, baselineUnit: "MiB idle"))
    for f in figures { print(f.tsv) }
}
daemon.process.stop()
nm.stop()
bus.stop()
exit(0)
