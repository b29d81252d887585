// SPDX-License-Identifier: Apache-2.0

/// Whitespace trimming without Foundation: the shipped binary links FoundationEssentials only, and
/// `trimmingCharacters(in:)` lives in full Foundation (with ICU's 30 MB of data behind it).
extension StringProtocol {
    /// The text without leading and trailing whitespace, newlines included (Unicode's
    /// `White_Space`, what `trimmingCharacters(in: .whitespacesAndNewlines)` removes).
    public var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }

    /// Whether the two texts are equal ignoring ASCII case (HTTP header names, XML tag names).
    public func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { Self.asciiLower($0) == Self.asciiLower($1) }
    }

    /// The range of the first occurrence of `needle`, ignoring ASCII case.
    public func rangeIgnoringASCIICase(of needle: some StringProtocol) -> Range<Index>? {
        let n = Array(needle.utf8).map(Self.asciiLower)
        guard !n.isEmpty else { return startIndex..<startIndex }
        var i = startIndex
        while i < endIndex {
            var a = self[i...].utf8.makeIterator(), matched = 0
            while matched < n.count, let b = a.next(), Self.asciiLower(b) == n[matched] { matched += 1 }
            if matched == n.count {
                let end = utf8.index(i, offsetBy: n.count)
                return i..<end
            }
            i = index(after: i)
        }
        return nil
    }

    private static func asciiLower(_ b: UInt8) -> UInt8 { (b >= 65 && b <= 90) ? b + 32 : b }
}
