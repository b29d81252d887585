// SPDX-License-Identifier: Apache-2.0
/// Text the daemon did not write — from a network (SSIDs, portal pages, WISPr replies), a helper
/// (results, display names, purposes) or a file (profiles, configuration) — made safe to put into
/// one log line, a D-Bus property or an error message.
///
/// The one function every module uses for this — the daemon's logs and published text, SSIDs'
/// display form, and `hotspotctl`'s output — so that nobody can forge a log line with an embedded
/// newline, flood the journal with a megabyte of portal HTML, or make a terminal show text other
/// than what was sent:
/// - control characters (C0, DEL, C1), line and paragraph separators, and every format character
///   (Unicode general category Cf: the bidirectional controls U+061C, U+200E/F, U+202A–U+202E and
///   U+2066–U+2069, the zero-width U+200B–U+200D, U+2060 and U+FEFF, the soft hyphen, tags …)
///   are written as escapes (`\n`, `\r`, `\t`, `\u{202E}`, …), and a backslash as `\\`, so the
///   result is one line, reads in the order it was written, hides nothing, and an escape in it is
///   never ambiguous;
/// - a run of combining marks keeps its first `maximumCombiningRun` marks; the rest are written as
///   escapes, so a stack of hundreds of marks cannot paint over the lines around it;
/// - the result keeps at most `limit` Unicode scalars of the original (an escape counts as one),
///   then says how many were left out: `…(+123 more)`.
///
/// Pure and Foundation-free (the general category comes from the Swift standard library's own
/// tables, not ICU), so `HotspotCore`, the adapters, the daemon and the command line can all call it.
public enum UntrustedText {
    /// The default number of characters kept: enough for a display name, a result, a URL.
    public static let defaultLimit = 200
    /// Combining marks kept in a row on one base character; enough for any script's stacking.
    public static let maximumCombiningRun = 4

    /// `text` escaped and capped for a log line (see the type's documentation).
    public static func forLog(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var out = ""
        var kept = 0
        var total = 0
        var marksInARow = 0
        for scalar in text.unicodeScalars {
            total += 1
            guard kept < limit else { continue }
            kept += 1
            marksInARow = isCombiningMark(scalar) ? marksInARow + 1 : 0
            if marksInARow > maximumCombiningRun {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                appendEscaped(scalar, to: &out)
            }
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
        case 0x00...0x1F, 0x7F...0x9F: return true   // C0, DEL, C1 controls
        case 0x2028, 0x2029: return true             // line and paragraph separators
        case 0x20...0x7E: return false               // printable ASCII, most of what is read
        default:
            // Format characters: bidirectional controls (U+061C, U+200E/F, U+202A–E, U+2066–9),
            // zero-width characters (U+200B–D, U+2060, U+FEFF), the soft hyphen, tags.
            return scalar.properties.generalCategory == .format
        }
    }

    /// Whether `scalar` combines with the character before it (Unicode's Mn, Mc and Me).
    public static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x300 else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// The longest run of combining marks in `text`.
    public static func longestCombiningRun(_ text: some StringProtocol) -> Int {
        var longest = 0, run = 0
        for scalar in text.unicodeScalars {
            run = isCombiningMark(scalar) ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    /// Whether `text` can be shown as it is: nothing `forLog` would escape (no control or format
    /// character, no combining run past `maximumCombiningRun`). Names a person reads (a helper's
    /// display name, its purpose) must be so; they are refused otherwise, not rewritten.
    public static func isPlain(_ text: some StringProtocol) -> Bool {
        !text.unicodeScalars.contains(where: needsEscape) && longestCombiningRun(text) <= maximumCombiningRun
    }

    /// Already escaped text (``forLog(_:limit:)``'s output) cut to at most `limit` Unicode scalars
    /// in all, its "…" mark included, and never inside an escape: `forLog`'s limit counts the
    /// original's scalars, and each one escaped takes up to ten (`\u{10FFFF}`), so 300 scalars of
    /// U+202E published 2,400 characters.
    public static func capped(escaped text: String, limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        var kept = Array(text.unicodeScalars.prefix(max(0, limit - 1)))
        // Drop a trailing escape cut short: `\u{…` without its `}`, or a lone `\`.
        if let slash = kept.lastIndex(of: "\\") {
            var run = 0
            var i = slash
            while i >= 0 && kept[i] == "\\" { run += 1; i -= 1 }
            let tail = kept[(slash + 1)...]
            let openEscape = tail.first == "u" && !tail.contains("}")
            if run % 2 == 1 && (tail.isEmpty || openEscape) { kept.removeSubrange(slash...) }
        }
        var out = ""
        out.unicodeScalars.append(contentsOf: kept)
        return out + "…"
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
