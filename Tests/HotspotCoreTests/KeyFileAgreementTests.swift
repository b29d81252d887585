// SPDX-License-Identifier: Apache-2.0
import CGLib
import HotspotCore
import Testing

/// `KeyFile` reads what GLib's GKeyFile reads (load with KEEP_TRANSLATIONS, groups, keys,
/// get_string; the daemon then ignores translations, which GLib kept or dropped by the process's
/// locale): on hand-written files that probe each rule and on thousands of files generated from
/// the pieces key files are made of.
struct KeyFileAgreementTests {
    /// What GLib makes of `bytes`: nil when it refuses the file, else each group with its keys in
    /// order and the value get_string gives each (nil where it gives none).
    static func glib(_ bytes: [UInt8]) -> [Group]? {
        let file = g_key_file_new()
        defer { g_key_file_free(file) }
        var error: UnsafeMutablePointer<GError>?
        let loaded = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) {
                g_key_file_load_from_data(file, $0.baseAddress, gsize(buf.count), G_KEY_FILE_KEEP_TRANSLATIONS, &error)
            }
        }
        if loaded == 0 { g_error_free(error); return nil }
        return strings(g_key_file_get_groups(file, nil)).map { group in
            let keys = strings(g_key_file_get_keys(file, group, nil, nil))
            return Group(name: group, keys: keys, values: keys.map { key in
                guard let raw = g_key_file_get_string(file, group, key, nil) else { return nil }
                defer { g_free(raw) }
                return String(cString: raw)
            })
        }
    }

    static func ours(_ bytes: [UInt8]) -> [Group]? {
        guard let file = try? KeyFile(parsing: bytes) else { return nil }
        return file.groups.map { group in
            let keys = file.keys(in: group)
            return Group(name: group, keys: keys, values: keys.map { file.string($0, in: group) })
        }
    }

    struct Group: Equatable, CustomStringConvertible {
        var name: String
        var keys: [String]
        var values: [String?]
        var description: String { "[\(name)] \(zip(keys, values).map { "\($0)=\($1.map { "\"\($0)\"" } ?? "nil")" })" }
    }

    static func strings(_ list: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let list else { return [] }
        defer { g_strfreev(list) }
        var out: [String] = []
        var i = 0
        while let s = list[i] { out.append(String(cString: s)); i += 1 }
        return out
    }

    static let written: [String] = [
        "", "\n", "# only a comment\n", "[a]\n", "[a]\nk=v\n", "[a]\nk=v", "  [a]  \n\tk  =  v  \n", "[a]\r\nk=v\r\n", "[a]\nk=v\r",
        "k=v\n", "# c\nk=v\n[a]\n", "[a]\n=v\n", "[a]\nk\n", "[a]\nk=\n", "[a]\nk= \n", "[a]\n k = a b \n",
        "[]\nk=v\n", "[a b]\nk=v\n", "[a[b]\nk=v\n", "[a]]\nk=v\n", "[a] x\nk=v\n", "[a]\t \nk=v\n", "[a\n", "[a\u{1}]\nk=v\n",
        "[a]\nk=1\nk=2\n", "[a]\nk=1\n[b]\nj=2\n[a]\nm=3\nk=4\n",
        "[a]\nk[de]=v\nk[de_DE.UTF-8@euro]=w\nk[]=x\n", "[a]\nk[de]x=v\n", "[a]\nk[d e]=v\n", "[a]\nk]=v\n", "[a]\nk[=v\n", "[a]\na b=v\n",
        "[a]\nk=\\s\\n\\t\\r\\\\\n", "[a]\nk=\\x\n", "[a]\nk=a\\\n", "[a]\nk=\\;\n", "[a]\nk=a;b\\;c\n", "[a]\nk=v # not a comment\n",
        "[a]\nEncoding=UTF-8\n", "[a]\nEncoding=utf-8\n", "[a]\nEncoding=latin1\n", "[a]\nk=caf\u{E9} \u{1F600}\n", "[caf\u{E9}]\nk\u{E9}=v\n",
        "[a]\nk[d\u{E9}]=v\n", "[a]\nk==v\n", "[a]\nk = = v\n", "\u{FEFF}[a]\nk=v\n", "[a]\n\u{B}k=v\n", "[a]\nk=v\n\n\n",
        "[a]\n\u{B}k=v\n", "[a]\n\u{C}k=v\n", "[a]\n\rk=v\n", "[a]\nk\u{B}=v\n", "[a]\nk=\u{B}v\n", "\u{B}[a]\n", "[a]\n\u{B}#c\n",
        "[a]\n\u{B}\n", "[a]\nk=a\\qb\\sc\n", "[a]\nk=a\\", "[a]\n\u{1}=v\n",
        "[a]\nk=v\n[b]\nEncoding=latin1\n", "[a]\nEncoding=latin1\n[b]\n", "[a]\nk[\u{24B6}]=v\n", "[a]\nk[a\u{93E}]=v\n",
        "[a]\nk[\u{345}]=v\n", "[a]\nk[\u{665}\u{2163}]=v\n",
    ]

    @Test func handWrittenFilesReadAsGLibReadsThem() {
        for text in Self.written {
            let bytes = Array(text.utf8)
            #expect(Self.ours(bytes) == Self.glib(bytes), "\(text.debugDescription)")
        }
    }

    @Test func bytesThatAreNotUTF8ReadAsGLibReadsThem() {
        let cases: [[UInt8]] = [
            Array("[a]\nk=".utf8) + [0xFF, 0xFE] + Array("\n".utf8),
            Array("[a]\nk=\\s".utf8) + [0xC3] + Array("\n".utf8),
            Array("[a]\nk[".utf8) + [0xFF] + Array("]=v\n".utf8),
        ]
        for bytes in cases {
            #expect(Self.ours(bytes) == Self.glib(bytes), "\(bytes)")
        }
        // After `]`, continuation bytes are stepped over.
        let trailing = Array("[a]".utf8) + [0x80] + Array("\nk=v\n".utf8)
        #expect(Self.ours(trailing) == Self.glib(trailing))
        // Names that are not UTF-8: both take the file (names cannot be compared through Swift
        // strings, which mend them; the profile loader mends the text first anyway).
        for bytes in [Array("[".utf8) + [0xFF] + Array("]\nk=v\n".utf8), Array("[a]\n".utf8) + [0xE9] + Array("=v\n".utf8)] {
            #expect(Self.ours(bytes) != nil && Self.glib(bytes) != nil, "\(bytes)")
        }
    }

    /// Files put together from the pieces that decide how a line is read, from a fixed seed.
    @Test func generatedFilesReadAsGLibReadsThem() {
        let pieces = ["[", "]", "=", "#", " ", "\t", "\r", "\n", "\n", "\n", "\\", "s", "n", "x", ";", "a", "b", "k", "de", "_", "@", ".",
                      "-", "Encoding", "UTF-8", "\u{E9}", "\u{1F600}", "[a]\n", "[b]\n", "k=v\n", "\u{7F}", "\u{1}"]
        var state: UInt64 = 0x5EED_4B45_5946_494C
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var disagreements: [String] = []
        var refused = 0
        for _ in 0..<20_000 {
            var text = next() % 3 == 0 ? "" : "[a]\n"
            for _ in 0..<(1 + Int(next() % 24)) { text += pieces[Int(next() % UInt64(pieces.count))] }
            let bytes = Array(text.utf8)
            let (mine, theirs) = (Self.ours(bytes), Self.glib(bytes))
            if theirs == nil { refused += 1 }
            if mine != theirs, disagreements.count < 5 {
                disagreements.append("\(text.debugDescription): KeyFile \(mine.map { "\($0)" } ?? "refused"), GLib \(theirs.map { "\($0)" } ?? "refused")")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        // Both kinds occur: files GLib reads and files it refuses.
        #expect(refused > 1000 && refused < 19_000, "GLib refused \(refused) of 20,000")
    }

    @Test func aProblemNamesTheLineAndQuotesNothing() {
        let secret = "hunter2-password"
        for (text, line) in [("[a]\nk=v\n\(secret)\n", 3), ("\(secret)=v\n", 1), ("[a]\n[\(secret)\u{1}]\n", 2), ("[a]\n\(secret)]=v\n", 2)] {
            #expect(throws: KeyFile.Problem.self) { try KeyFile(parsing: Array(text.utf8)) }
            do {
                _ = try KeyFile(parsing: Array(text.utf8))
            } catch {
                #expect(error.line == line, "\(text.debugDescription): \(error)")
                #expect(!error.description.contains(secret) && !error.description.contains("hunter"), "\(error)")
            }
        }
        let file = try? KeyFile(parsing: Array("[a]\nk=1\n\n[b]\nj=2\n[a]\nk=3\n".utf8))
        #expect(file?.line(ofGroup: "a") == 1 && file?.line(ofGroup: "b") == 4)
        #expect(file?.line(ofKey: "k", in: "a") == 7, "the line of the value that counts")
        #expect(file?.string("k", in: "a") == "3" && file?.keys(in: "a") == ["k", "k"])
        // Names are bytes: [Café] precomposed and decomposed are two groups, as in GLib.
        let twoCafes = try? KeyFile(parsing: Array("[Caf\u{E9}]\nk=1\n[Cafe\u{301}]\nk=2\n".utf8))
        #expect(twoCafes?.groups.count == 2)
        #expect(twoCafes?.string("k", in: "Caf\u{E9}") == "1" && twoCafes?.string("k", in: "Cafe\u{301}") == "2")
    }
}
