// SPDX-License-Identifier: Apache-2.0
/// A name made free of markup before it leaves for a program that may render markup:
/// NetworkManager's `connection.id`, which every NetworkManager client shows (GNOME Shell's
/// sign-in notification uses it as its body; a client or notification server with Pango markup
/// on renders `<span foreground="red">` or `<a href=…>`).
///
/// Markup needs `<` to open a tag and `&` to start an entity; a name without either renders as
/// itself whether markup is on or off. So every tag (`<` up to the next `>`) is removed, a `<` or
/// `>` left over is removed, and an `&` is written as the full-width ampersand U+FF06, which reads
/// the same and starts no entity. White space runs left by removed tags become one space.
public enum MarkupFreeName {
    /// `name` without markup (see the type's documentation); `name` itself when it has none.
    public static func of(_ name: String) -> String {
        guard name.contains(where: { $0 == "<" || $0 == ">" || $0 == "&" }) else { return name }
        var out = ""
        var inTag = false
        for scalar in name.unicodeScalars {
            switch scalar {
            case "<": inTag = true
            case ">": inTag = false
            case "&": if !inTag { out += "\u{FF06}" }
            default: if !inTag { out.unicodeScalars.append(scalar) }
            }
        }
        return out.split(whereSeparator: { $0 == " " }).joined(separator: " ")
    }

    /// Whether `name` would render differently with markup on.
    public static func hasMarkup(_ name: String) -> Bool { of(name) != name }
}
