// SPDX-License-Identifier: Apache-2.0
/// Text the daemon did not write — from a network (SSIDs, portal pages, WISPr replies), a helper
/// (results, display names, purposes) or a file (profiles, configuration) — made safe to put into
/// one log line, a D-Bus property or an error message.
///
/// The one function every module uses for this (issue 14 item 3), so that nobody can forge a log
/// line with an embedded newline or flood the journal with a megabyte of portal HTML:
/// - control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides
///   are written as escapes (`\n`, `\r`, `\t`, `\u{1B}`, …), and a backslash as `\\`, so the
///   result is one line and an escape in it is never ambiguous;
/// - the result keeps at most `limit` characters of the original (escapes count as one), then
///   says how many were left out: `…(+123 more)`.
///
/// Pure and Foundation-free, so `HotspotCore`, the adapters and the daemon can all call it.
public enum UntrustedText {
    /// The default number of characters kept: enough for a display name, a result, a URL.
    public static let defaultLimit = 200

    /// `text` escaped and capped for a log line (see the type's documentation).
    public static func forLog(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var out = ""
        var kept = 0
        var total = 0
        for scalar in text.unicodeScalars {
            total += 1
            guard kept < limit else { continue }
            kept += 1
            appendEscaped(scalar, to: &out)
        }
        if total > kept { out += "…(+\(total - kept) more)" }
        return out
    }

    /// Bytes of unknown encoding (an SSID, a file line that is not UTF-8): decoded as UTF-8 with
    /// invalid sequences replaced, then escaped and capped as `forLog(_:limit:)` does.
    public static func forLog(bytes: some Sequence<UInt8>, limit: Int = defaultLimit) -> String {
        forLog(String(decoding: Array(bytes), as: UTF8.self), limit: limit)
    }

    /// Whether `scalar` is written as an escape: it could break a line, hide or reorder text.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true          // C0, DEL, C1 controls
        case 0x2028, 0x2029: true                    // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional marks and overrides
        case 0xFEFF: true                            // zero-width no-break space (byte order mark)
        default: false
        }
    }

    private static func appendEscaped(_ scalar: Unicode.Scalar, to out: inout String) {
        switch scalar {
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if needsEscape(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
}
