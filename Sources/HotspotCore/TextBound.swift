// SPDX-License-Identifier: Apache-2.0
/// A length limit on text from outside, in Unicode scalars and UTF-8 bytes.
///
/// Never in `Character`s (`String.count`): one grapheme cluster holds any number of scalars, so
/// "64 characters" let a 6,001-byte display name through (a letter and 3,000 combining marks) and
/// "200 characters" a 1,000,200-byte purpose. Scalars bound what a person sees and what
/// `UntrustedText` keeps; bytes bound what is stored, sent to polkit and published.
public struct TextBound: Sendable, Equatable, CustomStringConvertible {
    /// Unicode scalars allowed.
    public let scalars: Int
    /// UTF-8 bytes allowed.
    public let bytes: Int

    /// A bound of `scalars` scalars and `bytes` bytes (by default four per scalar: any scalar fits).
    public init(scalars: Int, bytes: Int? = nil) {
        self.scalars = scalars
        self.bytes = bytes ?? 4 * scalars
    }

    /// Whether `text` is within the bound.
    public func admits(_ text: some StringProtocol) -> Bool {
        text.utf8.count <= bytes && text.unicodeScalars.count <= scalars
    }

    /// How long `text` is, in the bound's units: "70 Unicode scalars, 6001 bytes".
    public func measure(_ text: some StringProtocol) -> String {
        "\(text.unicodeScalars.count) Unicode scalars, \(text.utf8.count) bytes"
    }

    public var description: String { "at most \(scalars) Unicode scalars and \(bytes) bytes" }
}
