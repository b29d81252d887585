// SPDX-License-Identifier: Apache-2.0
/// How many terminal columns a string takes, for aligning tables: two for East Asian Wide and
/// Fullwidth characters and for emoji shown as emoji, none for combining marks and format
/// characters, one otherwise; counted per grapheme cluster (a flag, a family emoji, a letter
/// with accents is one cluster). A small `wcswidth` for Swift; the terminal has the last word,
/// but xterm, VTE and kitty agree on these.
enum DisplayWidth {
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    static func of(_ character: Character) -> Int {
        var width = 0
        for scalar in character.unicodeScalars {
            let v = scalar.value
            // Variation selector 16 asks for emoji presentation: wide.
            if v == 0xFE0F { return 2 }
            let p = scalar.properties
            if p.isEmojiPresentation || isWide(v) { return 2 }
            switch p.generalCategory {
            case .nonspacingMark, .enclosingMark, .format, .control: continue
            default: width = max(width, 1)
            }
        }
        return width
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks from Unicode's EastAsianWidth.txt, merged
    /// into ranges (the stdlib has no East Asian Width property).
    static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    static func isWide(_ v: UInt32) -> Bool {
        guard v >= 0x1100 else { return false }
        return wide.contains { $0.contains(v) }
    }
}
