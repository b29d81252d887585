// SPDX-License-Identifier: Apache-2.0
// codec-benchmark: what a join's messages cost to build and read through the DBus layer, beside
// libdbus's own share of the same work measured in the same run, and the hand-off between tasks
// (AsyncQueue) beside AsyncStream. Prints figures and ratios; asserts nothing.
import BenchKit
import CDBus
@_spi(Fuzzing) import DBus
import Foundation
import HotspotCore
import HotspotProtocol

let tsvOutput = CommandLine.arguments.contains("--tsv")
func say(_ s: String) { FileHandle.standardError.write((s + "\n").data(using: .utf8)!) }
if CommandLine.arguments.contains("-h") || CommandLine.arguments.contains("--help") {
    say("""
    usage: codec-benchmark [--tsv]

    Times, per message and best of seven rounds, the building and reading of the messages of a
    join (a command to a helper, its answer, a PropertiesChanged) through the DBus layer, beside
    libdbus alone doing its part of the same work (parsing and validating the bytes, walking the
    values), and one element handed between tasks through AsyncQueue beside AsyncStream. --tsv
    prints the figures as tab-separated figure, value, unit, baseline, baseline unit, ratio, goal
    lines and the rest on stderr.
    """)
    exit(0)
}

/// Microseconds per call of `body`, best of seven rounds (the machine's other work only slows a round).
func perCall(_ n: Int = 4000, _ body: () -> Void) -> Double {
    for _ in 0..<500 { body() }
    var best = Double.infinity
    for _ in 0..<7 {
        let t0 = ContinuousClock.now
        for _ in 0..<n { body() }
        let d = ContinuousClock.now - t0
        best = min(best, (Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12) / Double(n))
    }
    return best
}

func perCallAsync(_ n: Int, _ body: @Sendable (Int) async -> Void) async -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
        let t0 = ContinuousClock.now
        await body(n)
        let d = ContinuousClock.now - t0
        best = min(best, (Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12) / Double(n))
    }
    return best
}

func parse(_ bytes: [UInt8]) -> OpaquePointer {
    bytes.withUnsafeBufferPointer { buf in
        buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { dbus_message_demarshal($0, Int32(buf.count), nil)! }
    }
}

/// Walks every value of a parsed message with libdbus's iterator: the least any reader does.
func walk(_ it: inout DBusMessageIter) -> Int {
    var n = 0
    repeat {
        let t = dbus_message_iter_get_arg_type(&it)
        if t == 0 { break }
        n += 1
        if [UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "e"), UInt8(ascii: "r")].contains(UInt8(truncatingIfNeeded: t)) {
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&it, &sub)
            n += walk(&sub)
        }
    } while dbus_message_iter_next(&it) != 0
    return n
}

let network = Network(ssid: SSID(bytes: Array("BenchNet".utf8)), bssid: "0A:00:00:00:00:01", signalStrength: 0.7, securityClass: .open,
                      isSecure: false, didAutoJoin: true, didJustJoin: true)
let command = WireCommand(type: .evaluate, interface: "wlan0", network: network, isChosenHelper: false, networks: [], deadline: .seconds(5))
let answer = WireResponse(result: .success, confidence: .high)
let changed: [DBusValue] = [.string("org.freedesktop.NetworkManager.HotspotHelper.Interface"),
                            .varDict(["State": .string("evaluating"), "Network": WireNetwork.encode(network)]), .strings([])]
var sink = 0
var figures: [Figure] = []

// Reading: a message's bytes parsed and its values decoded, against libdbus parsing (it validates
// the whole message) and walking the same values.
for (name, body) in [("command to a helper", [command.encode()]), ("helper's answer", [answer.encode()]), ("PropertiesChanged", changed)] {
    let bytes = DBusFuzzEntry.encodeMessage(body)!
    let layer = perCall { sink &+= DBusFuzzEntry.decodeMessage(bytes)!.body.count }
    let libdbus = perCall {
        let m = parse(bytes)
        var it = DBusMessageIter()
        dbus_message_iter_init(m, &it)
        sink &+= walk(&it)
        dbus_message_unref(m)
    }
    say(String(format: "read %-22@ %7.2f µs   libdbus parse and walk %7.2f µs   %5.2f×", name as NSString, layer, libdbus, layer / libdbus))
    figures.append(Figure("codec: read \(name)", layer, "µs", baseline: libdbus, baselineUnit: "µs libdbus parse and walk"))
    let build = perCall { sink &+= DBusFuzzEntry.encodeMessage(body)!.count }
    say(String(format: "build %-21@ %7.2f µs   (checked, marshalled into bytes)", name as NSString, build))
    figures.append(Figure("codec: build \(name)", build, "µs"))
}
let wireValue = command.encode()
let decodeCommand = perCall { sink &+= (try! WireCommand.decode(wireValue)).interface.count }
let encodeCommand = perCall { sink &+= wireValue == command.encode() ? 1 : 0 }
say(String(format: "WireCommand encode %7.2f µs   decode %7.2f µs", encodeCommand, decodeCommand))
figures.append(Figure("codec: WireCommand decode", decodeCommand, "µs"))

// Hand-off between tasks: one element yielded and taken.
struct Item: Sendable { var n: Int; var text: String }
let n = 100_000
let queue = await perCallAsync(n) { n in
    let q = AsyncQueue<Item>()
    for i in 0..<n { q.yield(Item(n: i, text: "x")); _ = await q.next() }
}
let stream = await perCallAsync(n) { n in
    let (s, c) = AsyncStream.makeStream(of: Item.self)
    var it = s.makeAsyncIterator()
    for i in 0..<n { c.yield(Item(n: i, text: "x")); _ = await it.next() }
}
say(String(format: "hand-off AsyncQueue %7.3f µs   AsyncStream %7.3f µs   %5.2f×", queue, stream, queue / stream))
figures.append(Figure("codec: AsyncQueue yield and next", queue, "µs", baseline: stream, baselineUnit: "µs AsyncStream"))
if sink == 42 { say("") }
if tsvOutput { for f in figures { print(f.tsv) } }
