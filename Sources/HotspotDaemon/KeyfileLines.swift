// SPDX-License-Identifier: Apache-2.0
/// Where things are in a keyfile, so that a configuration error can name the line without
/// quoting it (issue 14 item 3: file content never reaches the journal).
struct KeyfileLines {
    private let lines: [Substring]

    init(_ bytes: [UInt8]) {
        lines = Substring(String(decoding: bytes, as: UTF8.self)).split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The line number (from 1) of `key` in `[group]`, 0 when it is not found.
    func line(of key: String, in group: String) -> Int {
        var current = ""
        for (i, raw) in lines.enumerated() {
            let line = trimmed(raw)
            if line.hasPrefix("[") && line.hasSuffix("]") { current = String(line.dropFirst().dropLast()); continue }
            guard current == group, let eq = line.firstIndex(of: "=") else { continue }
            if trimmed(line[..<eq]) == key { return i + 1 }
        }
        return 0
    }

    /// The first line GKeyFile cannot read, and why, in words that quote none of it.
    var firstProblem: String {
        var sawGroup = false
        for (i, raw) in lines.enumerated() {
            let line = trimmed(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.unicodeScalars.contains(where: { $0 == "\u{FFFD}" }) { return "line \(i + 1) is not valid UTF-8" }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { return "line \(i + 1) starts a group but is not '[name]'" }
                sawGroup = true
                continue
            }
            guard sawGroup else { return "line \(i + 1) comes before the first group (expected a line like '[daemon]')" }
            guard line.contains("=") else { return "line \(i + 1) is not a group, a key=value pair or a comment" }
        }
        return "the file is not a valid keyfile (expected groups like '[daemon]' and key=value lines)"
    }
}
