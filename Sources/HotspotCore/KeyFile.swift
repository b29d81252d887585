// SPDX-License-Identifier: Apache-2.0
/// A key file (the configuration and the profiles): `[group]` headers, `key=value` lines and `#`
/// comments, read as GLib's GKeyFile reads them (`g_key_file_load_from_data` with
/// `G_KEY_FILE_KEEP_TRANSLATIONS`, then `g_key_file_get_groups`, `_get_keys`, `_get_string`).
///
/// The daemon used GKeyFile itself (without translations: see ``isTranslation(_:)``); this is
/// the same reading without GLib, whose mapping cost the
/// idle daemon 0.7 MiB of its resident set for these four calls (docs/PACKAGING.md).
/// `KeyFileAgreementTests` holds it to GLib's on written and generated files. Unlike GLib's
/// messages, a ``Problem`` names the line and never quotes it: a line may hold a password.
///
/// What GKeyFile does, and so this does:
/// - lines end at `\n` (a `\r` before it is dropped); leading blanks (space, tab, form feed,
///   carriage return) are ignored; a line that is
///   then empty or starts with `#` is a comment;
/// - `[name]` (blanks after `]` allowed) starts or continues a group; a name is non-empty and
///   holds no `[`, `]` or control character;
/// - `key=value`: the key is what precedes the first `=` without trailing blanks, non-empty, with
///   no `[`, `]` or `=` but a locale suffix (`name[de_DE.UTF-8@euro]`, kept as part of the key);
///   the value is what follows it without leading blanks (trailing ones are kept); a key before
///   any group is an error; the last of a key's values counts, and ``keys(in:)`` lists every
///   line's key in order, repeats included; `Encoding=` in the first group must say UTF-8;
/// - names are compared as bytes;
/// - one difference: a line with a NUL byte is refused (GLib reads up to it).
/// - a value's escapes are `\s \n \t \r \\`; another escape is kept as written and a `\` at the
///   end is dropped (GLib 2.74 returns the value and an error, which the daemon never read); a
///   value whose bytes are not UTF-8 reads as absent (``string(_:in:)`` is nil).
public struct KeyFile: Sendable {
    /// Why a file cannot be read, and where; `reason` quotes nothing of the file.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line) \(reason)" }
    }

    private struct Entry: Sendable {
        var key: String
        var value: [UInt8]
        var line: Int
    }

    private struct Group: Sendable {
        var name: String
        var line: Int
        var entries: [Entry] = []
        /// Key (its bytes) → index in `entries` of its last occurrence.
        var last: [[UInt8]: Int] = [:]
    }

    /// Names are told apart by their bytes, as GLib's `strcmp` does: Swift's `String` equality
    /// would make one group of `[Café]` written precomposed and decomposed.
    private var groupList: [Group] = []
    private var groupIndex: [[UInt8]: Int] = [:]

    /// Reads `bytes`; throws the first line that is not a comment, a group header or a key=value
    /// pair GKeyFile would take.
    public init(parsing bytes: [UInt8]) throws(Problem) {
        var problems: [Problem]?
        try self.init(bytes, collecting: &problems)
    }

    /// Reads `bytes` as far as it can, for diagnostics: every line GKeyFile would refuse is
    /// listed (in line order) and left out, instead of ending the reading at the first. Whoever
    /// reads a file with problems should refuse it, as GKeyFile does: this only lets them say
    /// everything that is wrong at once.
    public static func diagnosing(_ bytes: [UInt8]) -> (file: KeyFile, problems: [Problem]) {
        var problems: [Problem]? = []
        // Cannot throw while collecting.
        let file = (try? KeyFile(bytes, collecting: &problems)) ?? KeyFile()
        return (file, problems ?? [])
    }

    private init() {}

    /// `problems` nil: throw the first; otherwise collect every one and go on.
    private init(_ bytes: [UInt8], collecting problems: inout [Problem]?) throws(Problem) {
        var current: Int?
        var skipping = false
        var number = 0
        var start = 0
        while start <= bytes.count {
            number += 1
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var lineEnd = end
            if end < bytes.count && lineEnd > start && bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if start == bytes.count && end == bytes.count { break }  // nothing after the last newline
            let line = bytes[start..<lineEnd]
            let header = line.first { !Self.isSpace($0) } == UInt8(ascii: "[")
            // Diagnosing: the lines after a group header that was refused belong to no group read
            // here, so they are not reported as keys of the group before it.
            if skipping && !header {
                start = end + 1
                continue
            }
            do {
                try parseLine(line, number: number, current: &current)
                if header { skipping = false }
            } catch {
                guard problems != nil else { throw error }
                problems?.append(error)
                if header { skipping = true }
            }
            start = end + 1
        }
    }

    private mutating func parseLine(_ raw: ArraySlice<UInt8>, number: Int, current: inout Int?) throws(Problem) {
        func fail(_ reason: String) -> Problem { Problem(line: number, reason: reason) }
        // GLib reads a line up to a NUL byte (it ends C strings); a NUL in a configuration is
        // corruption, and it is refused instead (the one difference, docs/ARCHITECTURE.md).
        if raw.contains(0) { throw fail("contains a NUL byte") }
        var line = raw
        while let first = line.first, Self.isSpace(first) { line = line.dropFirst() }
        guard let first = line.first, first != UInt8(ascii: "#") else { return }

        // After `]`, GLib steps to the next character (over UTF-8 continuation bytes), then allows
        // blanks only.
        if first == UInt8(ascii: "["), let close = line.firstIndex(of: UInt8(ascii: "]")),
           line[(close + 1)...].drop(while: { (0x80...0xBF).contains($0) })
               .allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
            let name = line[(line.startIndex + 1)..<close]
            guard !name.isEmpty, !name.contains(where: { $0 == UInt8(ascii: "[") || $0 < 0x20 || $0 == 0x7F }) else {
                throw fail("starts a group but its name is not valid (expected '[name]', without brackets or control characters in the name)")
            }
            if let existing = groupIndex[Array(name)] {
                current = existing
            } else {
                groupIndex[Array(name)] = groupList.count
                current = groupList.count
                groupList.append(Group(name: String(decoding: name, as: UTF8.self), line: number))
            }
            return
        }

        guard let equals = line.firstIndex(of: UInt8(ascii: "=")), equals != line.startIndex else {
            throw fail("is neither a [group] header, a comment nor key=value")
        }
        var keyBytes = line[..<equals]
        while let last = keyBytes.last, Self.isSpace(last) { keyBytes = keyBytes.dropLast() }
        guard Self.isKeyName(keyBytes) else {
            throw fail("has a key that is not valid (expected a name without '[', ']' or '=', then an optional [locale])")
        }
        guard let group = current else {
            throw fail("comes before the first group (expected a [group] line first)")
        }
        var value = line[(equals + 1)...]
        while let first = value.first, Self.isSpace(first) { value = value.dropFirst() }
        let key = String(decoding: keyBytes, as: UTF8.self)
        // GLib looks at Encoding= in the first group only.
        if group == 0, key == "Encoding", String(decoding: value, as: UTF8.self).lowercased() != "utf-8" {
            throw fail("names an encoding other than UTF-8, the only one read")
        }
        groupList[group].last[Array(keyBytes)] = groupList[group].entries.count
        groupList[group].entries.append(Entry(key: key, value: Array(value), line: number))
    }

    /// g_ascii_isspace: space, tab, newline, form feed, carriage return (not vertical tab).
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    /// g_key_file_is_key_name: a non-empty name without `=`, `[` or `]`, then at most one
    /// `[locale]` of letters, digits and `-_.@`, and nothing after it.
    private static func isKeyName(_ key: ArraySlice<UInt8>) -> Bool {
        var i = key.startIndex
        while i < key.endIndex, key[i] != UInt8(ascii: "="), key[i] != UInt8(ascii: "["), key[i] != UInt8(ascii: "]") { i += 1 }
        guard i > key.startIndex, key[key.startIndex] != UInt8(ascii: " "), key[i - 1] != UInt8(ascii: " ") else { return false }
        guard i < key.endIndex else { return true }
        guard key[i] == UInt8(ascii: "[") else { return false }
        let locale = key[(i + 1)...]
        guard let close = locale.firstIndex(where: { !isLocaleByte($0) }), key[close] == UInt8(ascii: "]") else { return false }
        // GLib accepts any alphanumeric character there (g_unichar_isalnum: letters and numbers).
        guard String(validating: locale[..<close], as: UTF8.self).map({ text in
            text.unicodeScalars.allSatisfy { scalar in
                switch scalar.properties.generalCategory {
                case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                     .decimalNumber, .letterNumber, .otherNumber: true
                default: scalar.isASCII
                }
            }
        }) ?? false else { return false }
        return close + 1 == key.endIndex
    }

    private static func isLocaleByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"): true
        default: byte >= 0x80
        }
    }

    /// The groups, in the order they first appear.
    public var groups: [String] { groupList.map(\.name) }

    /// The keys of `group` in file order, a key given twice listed twice; empty for no such group.
    public func keys(in group: String) -> [String] {
        groupIndex[Array(group.utf8)].map { groupList[$0].entries.map(\.key) } ?? []
    }

    /// Whether `key` is a translation (`name[locale]`). GLib keeps these only for the process's
    /// locale unless asked to keep them all; the daemon reads none, whatever its locale.
    public static func isTranslation(_ key: String) -> Bool { key.last == "]" }

    /// The value of `key` in `group` (its last line), unescaped; nil when there is none or when
    /// it is not UTF-8 (as GKeyFile has it).
    public func string(_ key: String, in group: String) -> String? {
        guard let g = groupIndex[Array(group.utf8)], let e = groupList[g].last[Array(key.utf8)] else { return nil }
        let raw = groupList[g].entries[e].value
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            i += 1
            guard byte == UInt8(ascii: "\\") else { out.append(byte); continue }
            guard i < raw.count else { break }  // a `\` at the end is dropped
            switch raw[i] {
            case UInt8(ascii: "s"): out.append(UInt8(ascii: " "))
            case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            default: out += [UInt8(ascii: "\\"), raw[i]]  // kept as written
            }
            i += 1
        }
        // GLib checks the stored value, escapes and all: the same bytes, as no escape makes or
        // mends a multi-byte sequence.
        return String(validating: out, as: UTF8.self)
    }

    /// A `key=value` line as written: the value's bytes before unescaping.
    public struct Assignment: Sendable, Equatable {
        public let group: String
        public let key: String
        public let rawValue: [UInt8]
        /// From 1.
        public let line: Int
    }

    /// Every `key=value` line, repeats included, in file order.
    public var assignments: [Assignment] {
        groupList.flatMap { g in g.entries.map { Assignment(group: g.name, key: $0.key, rawValue: $0.value, line: $0.line) } }
            .sorted { $0.line < $1.line }
    }

    /// The line (from 1) where `group` first appears.
    public func line(ofGroup group: String) -> Int? {
        groupIndex[Array(group.utf8)].map { groupList[$0].line }
    }

    /// The line (from 1) of the value of `key` in `group` that counts (its last).
    public func line(ofKey key: String, in group: String) -> Int? {
        guard let g = groupIndex[Array(group.utf8)], let e = groupList[g].last[Array(key.utf8)] else { return nil }
        return groupList[g].entries[e].line
    }
}

/// "Did you mean …?" for a misspelt name: the known name closest to it, when it is close.
public enum Suggestion {
    /// ` (did you mean X?)` with X formatted by `format`, or "" when no known name is within a
    /// third of the name's length in edits (at least 1, at most 3).
    public static func didYouMean(_ name: String, among known: [String], format: (String) -> String) -> String {
        // A name longer than any known one by far is no misspelling (and the table below grows
        // with its length): none is suggested.
        guard name.count <= 64 else { return "" }
        let limit = max(1, min(3, name.count / 3))
        let best = known.map { ($0, distance(name.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= limit else { return "" }
        return " (did you mean \(format(best.0))?)"
    }

    /// Edit distance (insertions, deletions, substitutions and swaps of neighbours).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
