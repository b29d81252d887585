import Foundation
import HotspotClient

/// Printing: aligned tables for people, JSON for scripts, errors on stderr.
enum Output {
    /// Columns padded to the widest cell; the last column is not padded.
    static func table(_ headers: [String], _ rows: [[String]]) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var out = ""
            for (i, cell) in cells.enumerated() {
                if i == cells.count - 1 { out += cell } else { out += cell + String(repeating: " ", count: widths[i] - cell.count + 2) }
            }
            return out
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }

    static func json<T: Encodable>(_ value: T, pretty: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("hotspotctl: \(message)\n".utf8))
    }

    /// "--" for none, otherwise the local time and how far away it is.
    static func expiry(_ seconds: UInt64, now: Date = Date()) -> String {
        guard seconds > 0 else { return "--" }
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let delta = Int(date.timeIntervalSince(now))
        let relative = delta >= 0 ? "in \(duration(delta))" : "\(duration(-delta)) ago"
        return "\(f.string(from: date)) (\(relative))"
    }

    static func duration(_ s: Int) -> String {
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }

    static func dash(_ s: String) -> String { s.isEmpty ? "--" : s }
}
