// SPDX-License-Identifier: Apache-2.0
/// The form in which two names a person reads are compared when one must not pass for the other
/// (a helper calling itself "Known Networks", "known  networks", "Known\u{200B}Networks" or
/// "Ｋｎｏｗｎ Networks" is the built-in helper's name to a person).
///
/// Close to Unicode's NFKC_Casefold, from the Swift standard library's own tables (the shipped
/// binary does not link ICU, which has the full mappings):
/// - default-ignorable and format characters (zero-width spaces and joiners, bidirectional
///   controls, variation selectors, Hangul fillers) and control characters are removed;
/// - white space of every kind is removed too ("Known\u{200B}Networks" shows as "KnownNetworks",
///   which a person reads as the built-in "Known Networks");
/// - compatibility letters and digits fold to ASCII: fullwidth forms, and the mathematical,
///   circled, parenthesised, squared and small-capital letters whose Unicode name ends in
///   "CAPITAL X" or "SMALL X" (X a letter) or "DIGIT N";
/// - case is folded (full lowercase mapping);
/// - canonically equivalent sequences are equal (Swift compares strings so).
/// What it does not fold: letters of other scripts that look alike (Cyrillic "К" and Latin "K").
public enum NameFolding {
    /// The folded form of `name`, to compare with `==`.
    public static func key(_ name: some StringProtocol) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint || UntrustedText.needsEscape(scalar) { continue }
            out += compatibilityFolded(scalar)
        }
        return out.lowercased()
    }

    /// Whether `name` folds to the same key as one of `reserved`; the reserved name it matches.
    public static func matching(_ name: some StringProtocol, in reserved: [String]) -> String? {
        let k = key(name)
        return reserved.first { key($0) == k }
    }

    static let digits = ["ZERO": "0", "ONE": "1", "TWO": "2", "THREE": "3", "FOUR": "4", "FIVE": "5", "SIX": "6", "SEVEN": "7",
                         "EIGHT": "8", "NINE": "9"]

    static func compatibilityFolded(_ scalar: Unicode.Scalar) -> String {
        let v = scalar.value
        if v < 0x80 { return String(scalar) }
        if (0xFF01...0xFF5E).contains(v), let ascii = Unicode.Scalar(v - 0xFEE0) { return String(ascii) }
        guard let name = scalar.properties.name else { return String(scalar) }
        let words = name.split(separator: " ")
        guard words.count >= 2, let last = words.last else { return String(scalar) }
        let before = words[words.count - 2]
        if last.count == 1, let letter = last.first, letter.isASCII, letter.isLetter,
           before == "CAPITAL" || before == "SMALL" || before == "LETTER" {
            // Only letters without a mark of their own ("LATIN SMALL LETTER A WITH ACUTE" ends in "ACUTE").
            return String(letter)
        }
        if before == "DIGIT", let digit = digits[String(last)] { return digit }
        return String(scalar)
    }
}
