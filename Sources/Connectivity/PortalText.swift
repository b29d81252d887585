/// Text that came from a network (portal pages, WISPr `ReplyMessage`, form field names, URLs a
/// portal named) made safe for a log line or a D-Bus property: cut at a length and every control
/// character escaped, so no portal can forge a log line or hide text with terminal escapes. Pure.
public enum PortalText {
    /// The default length kept, in characters.
    public static let defaultLimit = 200

    /// `text` with control characters (C0, DEL, C1, and the Unicode line and paragraph separators)
    /// written as `\n`, `\t`, `\r` or `\u{…}`, cut after `limit` characters with `…` appended.
    public static func loggable(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                out += "…"
                break
            }
            count += 1
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
