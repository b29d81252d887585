// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import HotspotClient
import HotspotCore
import ProgramSupport

/// Printing: aligned tables for people, JSON for scripts, errors on stderr.
enum Output {
    /// Columns padded to the widest cell by display width (an SSID in CJK or with emoji takes two
    /// columns per such character, so the next column still lines up); the last column is not
    /// padded.
    /// Every cell goes through ``safe(_:)``: a table is what people read, and what a helper or a
    /// network sent reaches it whatever the daemon checked.
    static func table(_ headers: [String], _ rows: [[String]]) -> String {
        let rows = rows.map { $0.map(safe) }
        var widths = headers.map(DisplayWidth.of)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], DisplayWidth.of(cell)) }
        }
        func line(_ cells: [String]) -> String {
            var out = ""
            for (i, cell) in cells.enumerated() {
                if i == cells.count - 1 { out += cell } else { out += cell + String(repeating: " ", count: widths[i] - DisplayWidth.of(cell) + 2) }
            }
            return out
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }

    /// Text from the daemon that came from a network or a helper (an access point's address, a
    /// portal's URL, a helper's name), as the daemon escapes it for its log: a terminal shows what
    /// was sent, in the order it was sent, on one line. SSIDs are escaped the same way by
    /// `SSIDText.display`; `Reason` comes escaped by the daemon.
    static func shown(_ text: String) -> String { UntrustedText.forLog(text, limit: shownLimit) }
    static let shownLimit = 400

    /// `text` as it is when it is already safe to print (``UntrustedText/isPlain(_:)``: no
    /// control or format character, no long combining run; and no longer than ``shown(_:)`` keeps),
    /// else ``shown(_:)``. For every line and cell hotspotctl prints: text escaped already (an
    /// SSID's display form, `Reason`) is plain and passes unchanged, not escaped twice; anything
    /// the daemon let through that is not — a helper's name or purpose, a URL — is escaped here.
    static func safe(_ text: String) -> String {
        UntrustedText.isPlain(text) && text.unicodeScalars.count <= shownLimit ? text : shown(text)
    }

    /// A line of text output, made ``safe(_:)`` (one line: a newline in it is escaped).
    static func line(_ text: String) -> String { safe(text) }

    static func json<T: Encodable>(_ value: T, pretty: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    static func error(_ message: String) {
        StandardError.writeLine("hotspotctl: \(message)")
    }

    /// "--" for none, otherwise the local time and how far away it is.
    static func expiry(_ seconds: UInt64, now: Int = time(nil)) -> String {
        guard seconds > 0 else { return "--" }
        let delta = Int(clamping: seconds) - now
        let relative = delta >= 0 ? "in \(duration(delta))" : "\(duration(-delta)) ago"
        return "\(localTime(seconds)) (\(relative))"
    }

    /// `yyyy-MM-dd HH:mm:ss` in the local time zone (TZ, /etc/localtime), as `date` prints it.
    static func localTime(_ seconds: UInt64) -> String {
        var t = time_t(clamping: seconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return "\(seconds)" }
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func duration(_ s: Int) -> String {
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }

    static func dash(_ s: String) -> String { s.isEmpty ? "--" : s }

    /// `x` with two decimals ("0.25"), for durations in seconds.
    static func twoDecimals(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let hundredths = Int((abs(x) * 100).rounded())
        let fraction = hundredths % 100
        return "\(x < 0 && hundredths > 0 ? "-" : "")\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
