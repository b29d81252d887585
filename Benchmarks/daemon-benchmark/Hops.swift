// SPDX-License-Identifier: Apache-2.0
// daemon-benchmark --hops: where a join's time goes, message by message, from the wire traces
// (DBus's WireTrace) of the daemon and of this process (the helper and the observer).
import BenchKit
import Foundation

/// One line of a wire trace.
struct WireEvent {
    var nanoseconds: Int
    var pid: Int32
    var connection: String
    var isOut: Bool
    var type: Int  // 1 call, 2 return, 3 error, 4 signal
    var member: String
    var path: String

    init?(_ line: Substring) {
        let f = line.split(separator: " ")
        guard f.count == 7, let ns = Int(f[0]), let pid = Int32(f[1]), let type = Int(f[4]) else { return nil }
        (nanoseconds, self.pid, connection, isOut, self.type, member, path) = (ns, pid, String(f[2]), f[3] == "out", type, String(f[5]), String(f[6]))
    }
}

/// Who sent or read a message in a join.
struct HopRoles {
    var daemonPID: Int32
    var benchmark: String  // the observer's connection (it also asks the mock to join)
    var helper: String     // the helper's connection
    var interfacePath: String
}

/// The messages of each join, from the observer's ask to join to its reading `authenticated` (the
/// third PropertiesChanged of the interface it reads after ACTIVATED), labelled, with times in µs
/// since the observer read ACTIVATED.
func hopTable(files: [URL], roles: HopRoles) -> (rows: [(label: String, median: Double)], joins: [Double]) {
    var events: [WireEvent] = []
    for f in files {
        guard let text = try? String(contentsOf: f, encoding: .utf8) else { continue }
        events += text.split(separator: "\n").compactMap(WireEvent.init)
    }
    events.sort { $0.nanoseconds < $1.nanoseconds }
    func who(_ e: WireEvent) -> String? {
        if e.pid == roles.daemonPID { return "daemon" }
        if e.connection == roles.benchmark { return "observer" }
        if e.connection == roles.helper { return "helper" }
        return nil
    }
    var offsets: [String: [Double]] = [:]
    var order: [String] = []
    var joins: [Double] = []
    var i = 0
    while i < events.count {
        // The observer asks the mock to join.
        guard events[i].connection == roles.benchmark, events[i].isOut, events[i].member == "ActivateInOrder" else { i += 1; continue }
        let start = i
        guard let activated = events[start...].firstIndex(where: { $0.connection == roles.benchmark && !$0.isOut && $0.member == "StateChanged" })
        else { break }
        var seen = 0
        guard let end = events[activated...].firstIndex(where: {
            guard $0.connection == roles.benchmark, !$0.isOut, $0.member == "PropertiesChanged", $0.path == roles.interfacePath else { return false }
            seen += 1
            return seen == 3
        }) else { break }
        let t0 = events[activated].nanoseconds
        joins.append(Double(events[end].nanoseconds - t0) / 1000)
        var counts: [String: Int] = [:]
        for e in events[start...end] {
            guard let role = who(e) else { continue }
            let what = e.type == 2 ? "a reply" : e.type == 3 ? "an error" : "\(e.member) on \(shortPath(e.path))"
            let base = "\(role) \(e.isOut ? "sends" : "reads") \(what)"
            counts[base, default: 0] += 1
            let label = "\(base) #\(counts[base]!)"
            if offsets[label] == nil { order.append(label) }
            offsets[label, default: []].append(Double(e.nanoseconds - t0) / 1000)
        }
        i = end + 1
    }
    let rows = order.compactMap { label -> (label: String, median: Double)? in
        let values = offsets[label]!
        // Only what happens in most joins (a save, a log line's message, is noise here).
        guard values.count * 2 > joins.count else { return nil }
        return (label, percentile(values, 0.5))
    }.sorted { $0.median < $1.median }
    return (rows, joins)
}

/// A path without NetworkManager's prefix (its own objects and the daemon's share it).
func shortPath(_ path: String) -> String {
    let prefix = "/org/freedesktop/NetworkManager/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
}
