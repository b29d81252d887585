// SPDX-License-Identifier: Apache-2.0
import BenchKit
@_spi(Fuzzing) import DBus
import Foundation
import HotspotProtocol
import HotspotTesting
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Hostile command channels: the daemon's memory while every channel it allows holds a 4 MiB
/// message minus its last byte, and how fast it answers `Get` while channels send refused calls
/// without pause. Goals: RSS growth ≤ 16 MiB, the unfinished channels closed at their deadline,
/// `Get` p99 ≤ 10 ms.
struct ChannelAttack {
    var channels = 64
    var flooders = 8
    var callsPerFlooder = 100_000

    /// Registers `count` helpers (root, on connections of this process), each with the command
    /// channel handed out with its registration; the connections and the channels' ends.
    func openChannels(_ bus: PrivateBus, count: Int, prefix: String) async throws -> [(Connection, FileDescriptor)] {
        var out: [(Connection, FileDescriptor)] = []
        for i in 0..<count {
            let c = try bus.connect()
            let reply = try await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                         member: "RegisterHelper", body: [.objectPath("/h"), .varDict(["DisplayName": .string("\(prefix) \(i)"),
                                                                                                       "Identifier": .string("stress.\(prefix).\(i)"),
                                                                                                       "CommandChannel": .bool(true)])])
            guard case .unixFD(let fd)? = reply.first?.varDict?["command-channel"] else { throw StressError("RegisterHelper gave no channel: \(reply)") }
            out.append((c, fd))
        }
        return out
    }

    /// Writes `bytes` to `fd` on a thread of its own (the daemon may stop reading, or close it).
    /// Writers that have finished.
    final class Finished: Sendable {
        let count = Atomic<Int>(0)
    }

    static func send(_ bytes: [UInt8], to fd: FileDescriptor, repeat times: Int = 1, done: Finished? = nil) -> Thread {
        let raw = fd.rawValue
        let t = Thread {
            defer { done?.count.add(1, ordering: .relaxed) }
            bytes.withUnsafeBytes { b in
                for _ in 0..<times {
                    var off = 0
                    while off < b.count {
                        let n = Glibc.send(raw, b.baseAddress! + off, b.count - off, Int32(MSG_NOSIGNAL))
                        if n <= 0 { return }
                        off += n
                    }
                }
            }
        }
        t.start()
        return t
    }

    /// Reads and drops what arrives on `fd` until it closes (the daemon's refusals).
    static func drain(_ fd: FileDescriptor) {
        let raw = fd.rawValue
        Thread {
            var buf = [UInt8](repeating: 0, count: 65_536)
            while Glibc.read(raw, &buf, buf.count) > 0 {}
        }.start()
    }

    static let authenticate = Array("\0AUTH EXTERNAL 30\r\nBEGIN\r\n".utf8)

    /// The first bytes of a message the daemon takes for 4 MiB long (its limit on a channel),
    /// without its last byte: a header whose body length says so, then filler.
    static func almostWholeMessage() -> [UInt8] {
        let needed = 4 << 20
        func le(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        let header: [UInt8] = [UInt8(ascii: "l"), 1, 0, 1] + le(UInt32(needed - 16)) + le(1) + le(0)
        return header + [UInt8](repeating: 0, count: needed - 16 - 1)
    }

    func run(verbose: Bool) async throws -> (figures: [Figure], failures: [String]) {
        let progress: @Sendable (String) -> Void = { verbose ? say($0) : note($0) }
        let flood = Flood()
        let bus = try await PrivateBus(configuration: TestKitPaths.busConfigWithShippedPolicy)
        defer { bus.stop() }
        let c = try bus.connect()
        let daemon = try await DaemonProcess.start(on: bus, logLevel: "warning")
        let pid = daemon.process.pid
        let quiet = try await flood.getLatencies(c, count: 50)

        // 1. Every channel holds a 4 MiB message minus its last byte.
        let held = try await openChannels(bus, count: channels, prefix: "held")
        let baseline = ProcessSample(pid: pid)
        progress("channels: \(channels) channels open; daemon \(baseline), Get p99 \(flood.format(percentile(quiet, 0.99))) ms at rest")
        let peak = PeakRSS(pid: pid)
        let sampling = Task { await peak.follow() }
        let partial = Self.authenticate + Self.almostWholeMessage()
        let started = ContinuousClock.now
        let writers = held.map { Self.send(partial, to: $0.1) }
        // Past the partial-frame deadline (10 s), with room for a loaded machine.
        var closed = 0
        while ContinuousClock.now - started < .seconds(20) {
            try await Task.sleep(for: .milliseconds(500))
            let via = try await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                                       member: "Get", body: [.string(HotspotContract.managerInterface.rawValue), "Helpers"]).first?.unwrapped
            let open = via?.arrayItems?.compactMap { $0.varDict?["commands-via"]?.string }.filter { $0 == "channel" }.count ?? 0
            closed = channels - open
            if closed == channels { break }
        }
        sampling.cancel()
        let growth = Double(max(0, await peak.maximum - baseline.rssKiB)) / 1024
        progress("channels: partial messages: peak RSS growth \(flood.format(growth)) MiB; \(closed) of \(channels) channels closed after \(ContinuousClock.now - started)")
        withExtendedLifetime((held, writers)) {}

        // 2. `flooders` channels each send `callsPerFlooder` calls, which the daemon refuses.
        let floodChannels = try await openChannels(bus, count: flooders, prefix: "flood")
        guard let call = DBusFuzzEntry.encodeMessage([.string("x")]) else { throw StressError("cannot marshal a call") }
        let batch = Array([[UInt8]](repeating: call, count: 1000).joined())
        for (_, fd) in floodChannels {
            Self.drain(fd)
            _ = Self.send(Self.authenticate, to: fd)
        }
        let finished = Finished()
        let floodWriters = floodChannels.map { Self.send(batch, to: $0.1, repeat: callsPerFlooder / 1000, done: finished) }
        var during: [Double] = []
        var refused = 0
        let floodStart = ContinuousClock.now
        while finished.count.load(ordering: .relaxed) < floodWriters.count && ContinuousClock.now - floodStart < .seconds(120) {
            during += try await flood.getLatencies(c, count: 10, refused: &refused)
        }
        let floodTime = ContinuousClock.now - floodStart
        progress("channels: \(flooders) × \(callsPerFlooder) refused calls: Get p99 \(flood.format(percentile(during, 0.99))) ms, worst \(flood.format(during.max() ?? .nan)) ms over \(during.count) Gets in \(floodTime)")
        withExtendedLifetime((floodChannels, daemon)) {}

        let figures = [
            Figure("channels: RSS growth, \(channels) partial 4 MiB messages", growth, "MiB", goal: "≤ 16 MiB"),
            Figure("channels: unfinished channels closed by the deadline", Double(closed), "of \(channels)", goal: "all"),
            Figure("channels: Get p99, \(flooders) channels of refused calls", percentile(during, 0.99), "ms",
                   baseline: percentile(quiet, 0.99), baselineUnit: "ms at rest", goal: "≤ 10 ms"),
        ]
        var failures: [String] = []
        if growth > 16 { failures.append("RSS grew \(flood.format(growth)) MiB while channels held partial messages (goal ≤ 16)") }
        if closed < channels { failures.append("\(channels - closed) channels holding a partial message were still open after 20 s") }
        if percentile(during, 0.99) > 10 { failures.append("Get p99 \(flood.format(percentile(during, 0.99))) ms during the channel flood (goal ≤ 10)") }
        return (figures, failures)
    }
}

