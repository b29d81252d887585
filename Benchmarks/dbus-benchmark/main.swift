// SPDX-License-Identifier: Apache-2.0
// dbus-benchmark: round-trip latency and throughput of method calls through the DBus layer,
// beside the same calls made with plain blocking libdbus (dbus_connection_send_with_reply_and_block)
// in the same run, on a private dbus-daemon. Prints figures and ratios; asserts nothing.
import BenchKit
import HotspotTesting
import CDBus
import DBus
import Foundation
import ProgramSupport

// The layer's calls are made from an actor that shares the connection's executor (`OnBusThread`),
// so a reply resumes its caller on the thread that read it, as blocking libdbus (the baseline)
// does; from the executor's workers each reply would wake another thread first, which measures
// the thread hop rather than the layer.
GlobalExecutor.install()

/// --tsv: figures on stdout, everything else on stderr (read before the options, which may print).
let tsvOutput = CommandLine.arguments.contains("--tsv")

struct Options {
    var calls = 20_000
    var warmup = 1_000
    var serve = false
    var address: String?
    var tsv = false

    init(_ args: [String]) throws {
        var it = args.dropFirst().makeIterator()
        while let a = it.next() {
            switch a {
            case "--calls": calls = Int(it.next() ?? "") ?? calls
            case "--warmup": warmup = Int(it.next() ?? "") ?? warmup
            case "--serve": serve = true
            case "--tsv": tsv = true
            case "--address": address = it.next()
            case "-h", "--help":
                say("""
                usage: dbus-benchmark [--calls N] [--warmup N] [--tsv]

                Starts a private dbus-daemon and an echo peer (this program with --serve), then
                measures method-call round trips to the peer and to the bus itself, through the
                DBus layer and through plain blocking libdbus, and prints p50/p99 latency, calls
                per second and the layer/libdbus ratio (goal: at most 1.5). --tsv prints the figures
                as figure, value, unit, baseline, baseline unit, ratio, goal lines (tab-separated)
                and the rest on stderr.
                """)
                exit(0)
            default: throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "unknown option \(a); see --help"])
            }
        }
    }
}

let echoInterface: InterfaceName = "org.example.Bench"
let echoPath: ObjectPath = "/org/example/Bench"
let echoName: BusName = "org.example.BenchPeer"

func serve(_ address: String) async throws {
    let c = try Connection(address: address)
    try await c.export([DBusInterface(echoInterface, methods: [
        DBusMethod("Echo", inputs: [DBusArgument("value", "s")], outputs: [DBusArgument("value", "s")]) { $0.body },
    ])], at: echoPath)
    try await c.requestName(echoName)
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = await c.disconnection()
}

struct Figures {
    var samples: [Double] // seconds per call
    var total: Double
    func percentile(_ p: Double) -> Double {
        let s = samples.sorted()
        return s[min(s.count - 1, Int(Double(s.count) * p))]
    }
    var p50: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }
    var callsPerSecond: Double { Double(samples.count) / total }
}

/// Plain libdbus: build, send_with_reply_and_block, unref.
func measurePlain(address: String, destination: String, path: String, interface: String, member: String, arg: String?, calls: Int, warmup: Int) -> Figures {
    let err = UnsafeMutablePointer<CDBus.DBusError>.allocate(capacity: 1)
    dbus_error_init(err)
    let conn = dbus_connection_open_private(address, err)!
    dbus_connection_set_exit_on_disconnect(conn, 0)
    _ = dbus_bus_register(conn, err)
    var samples: [Double] = []
    samples.reserveCapacity(calls)
    let clock = ContinuousClock()
    let begin = clock.now
    for i in 0..<(warmup + calls) {
        let t0 = clock.now
        let msg = dbus_message_new_method_call(destination, path, interface, member)!
        if let arg {
            var iter = DBusMessageIter()
            dbus_message_iter_init_append(msg, &iter)
            arg.withCString { cs in
                var p: UnsafePointer<CChar>? = cs
                _ = dbus_message_iter_append_basic(&iter, Int32(UInt8(ascii: "s")), &p)
            }
        }
        let reply = dbus_connection_send_with_reply_and_block(conn, msg, 25_000, err)
        dbus_message_unref(msg)
        if let reply {
            // Read the answer as the layer does, so both sides decode it.
            var iter = DBusMessageIter()
            if dbus_message_iter_init(reply, &iter) != 0, dbus_message_iter_get_arg_type(&iter) == Int32(UInt8(ascii: "s")) {
                var p: UnsafePointer<CChar>? = nil
                dbus_message_iter_get_basic(&iter, &p)
                _ = p.map { String(cString: $0) }
            }
            dbus_message_unref(reply)
        } else {
            dbus_error_free(err)
        }
        if i >= warmup { samples.append(Double((clock.now - t0) / .nanoseconds(1)) / 1e9) }
    }
    let total = Double((clock.now - begin) / .nanoseconds(1)) / 1e9 * Double(calls) / Double(calls + warmup)
    dbus_connection_close(conn)
    dbus_connection_unref(conn)
    err.deallocate()
    return Figures(samples: samples, total: total)
}

/// Runs on the connection's own thread (its serial executor), where replies are read.
actor OnBusThread {
    let c: Connection
    init(_ c: Connection) { self.c = c }
    nonisolated var unownedExecutor: UnownedSerialExecutor { c.unownedExecutor }

    func measure(destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName, arg: String?, calls: Int, warmup: Int) async throws -> Figures {
        try await measureLayer(c, destination: destination, path: path, interface: interface, member: member, arg: arg, calls: calls, warmup: warmup)
    }
}

func measureLayer(_ c: Connection, destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName, arg: String?, calls: Int, warmup: Int,
                  isolation: isolated (any Actor)? = #isolation) async throws -> Figures {
    var samples: [Double] = []
    samples.reserveCapacity(calls)
    let clock = ContinuousClock()
    let body: [DBusValue] = arg.map { [.string($0)] } ?? []
    let begin = clock.now
    for i in 0..<(warmup + calls) {
        let t0 = clock.now
        _ = try await c.call(destination: destination, path: path, interface: interface, member: member, body: body)
        if i >= warmup { samples.append(Double((clock.now - t0) / .nanoseconds(1)) / 1e9) }
    }
    let total = Double((clock.now - begin) / .nanoseconds(1)) / 1e9 * Double(calls) / Double(calls + warmup)
    return Figures(samples: samples, total: total)
}

/// Prints unbuffered, so progress shows when the output is a pipe; on stderr with --tsv.
func say(_ text: String) { (tsvOutput ? FileHandle.standardError : FileHandle.standardOutput).write(Data((text + "\n").utf8)) }

func us(_ s: Double) -> String { String(format: "%8.1f µs", s * 1e6) }

let options = try Options(CommandLine.arguments)
if options.serve, let address = options.address {
    try await serve(address)
    exit(0)
}

say("Starting a private dbus-daemon and an echo peer…")
let bus = try await PrivateBus()
let peer = try ManagedProcess.launch(CommandLine.arguments[0], ["--serve", "--address", bus.address], name: "echo peer")
guard await peer.waitForOutput(containing: "ready", timeout: .seconds(10)) else {
    say("the echo peer did not start: \(peer.output)")
    exit(1)
}
let layer = try bus.connect()
let onBusThread = OnBusThread(layer)
let payload = String(repeating: "x", count: 64)
say("Measuring \(options.calls) sequential calls per row (after \(options.warmup) warm-up calls)…\n")

struct Row { var name: String; var plain: Figures; var layer: Figures }

/// Alternates plain and layer batches over several rounds, so that the machine's slow and fast
/// phases fall on both clients alike; the figures pool every round's samples.
func compare(_ name: String, rounds: Int, plain: (Int, Int) -> Figures, layer: @Sendable (Int, Int) async throws -> Figures) async throws -> Row {
    let perRound = max(1, options.calls / rounds)
    var p = Figures(samples: [], total: 0), l = Figures(samples: [], total: 0)
    for round in 0..<rounds {
        let warm = round == 0 ? options.warmup : 0
        let a = plain(perRound, warm)
        let b = try await layer(perRound, warm)
        p.samples += a.samples; p.total += a.total
        l.samples += b.samples; l.total += b.total
    }
    return Row(name: name, plain: p, layer: l)
}

var rows: [Row] = []
rows.append(try await compare("Echo(s) to a peer", rounds: 10, plain: { n, w in
    measurePlain(address: bus.address, destination: echoName.rawValue, path: echoPath.rawValue, interface: echoInterface.rawValue,
                 member: "Echo", arg: payload, calls: n, warmup: w)
}, layer: { n, w in
    try await onBusThread.measure(destination: echoName, path: echoPath, interface: echoInterface, member: "Echo", arg: payload, calls: n, warmup: w)
}))
rows.append(try await compare("Ping to the bus", rounds: 10, plain: { n, w in
    measurePlain(address: bus.address, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                 interface: "org.freedesktop.DBus.Peer", member: "Ping", arg: nil, calls: n, warmup: w)
}, layer: { n, w in
    try await onBusThread.measure(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                  interface: "org.freedesktop.DBus.Peer", member: "Ping", arg: nil, calls: n, warmup: w)
}))

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
say(pad("call", 20) + pad("client", 9) + pad("p50", 13) + pad("p99", 13) + "calls/s")
for r in rows {
    say(pad(r.name, 20) + pad("libdbus", 9) + us(r.plain.p50) + "  " + us(r.plain.p99) + String(format: "  %9.0f", r.plain.callsPerSecond))
    say(pad("", 20) + pad("layer", 9) + us(r.layer.p50) + "  " + us(r.layer.p99) + String(format: "  %9.0f", r.layer.callsPerSecond))
    say(pad("", 20) + pad("ratio", 9) + String(format: "%8.2f×     %8.2f×     %8.2f×   (layer ÷ libdbus time; goal ≤ 1.50×)",
        r.layer.p50 / r.plain.p50, r.layer.p99 / r.plain.p99, r.plain.callsPerSecond / r.layer.callsPerSecond))
}
if options.tsv {
    for r in rows {
        for f in [
            Figure("dbus: \(r.name) p50", r.layer.p50 * 1e6, "µs", baseline: r.plain.p50 * 1e6, baselineUnit: "µs libdbus", goal: "≤ 1.5×"),
            Figure("dbus: \(r.name) p99", r.layer.p99 * 1e6, "µs", baseline: r.plain.p99 * 1e6, baselineUnit: "µs libdbus", goal: "≤ 1.5×"),
            Figure("dbus: \(r.name) calls/s", r.layer.callsPerSecond, "calls/s", baseline: r.plain.callsPerSecond, baselineUnit: "calls/s libdbus",
                   ratio: r.plain.callsPerSecond / r.layer.callsPerSecond, goal: "≤ 1.5× (libdbus ÷ layer)"),
        ] { print(f.tsv) }
    }
}
peer.stop()
bus.stop()
