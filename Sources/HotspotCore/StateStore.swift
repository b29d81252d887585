// SPDX-License-Identifier: Apache-2.0
/// Where the daemon keeps the core's ``PersistentState``. The daemon implements it over a file in
/// its state directory, replacing the file atomically (write a temporary file, fsync, rename).
public protocol HotspotStateStore: Sendable {
    /// The stored bytes, or nil when nothing was ever stored.
    func load() throws -> [UInt8]?
    /// Replaces the stored bytes atomically.
    func save(_ bytes: [UInt8]) throws
}

extension HotspotStateStore {
    /// Loads and decodes the state; an empty store yields an empty state. Damaged entries are
    /// dropped and listed in the result, every valid entry is kept.
    public func loadState() throws -> StateStoreLoad {
        guard let bytes = try load() else { return StateStoreLoad(state: PersistentState(), damaged: []) }
        return try StateStoreCodec.decode(bytes)
    }

    /// Encodes and saves a state.
    public func saveState(_ state: PersistentState) throws {
        try save(StateStoreCodec.encode(state))
    }
}

/// The result of loading a store: the state made of every valid entry, and the damaged ones.
public struct StateStoreLoad: Hashable, Sendable {
    /// Every valid entry.
    public let state: PersistentState
    /// Every line that could not be read, for the daemon to report.
    public let damaged: [DamagedStoreEntry]
}

/// One line of the store that could not be read: where it is and what is wrong, never what it
/// says (a damaged line may hold anything, and reports end up in the journal).
public struct DamagedStoreEntry: Hashable, Sendable, CustomStringConvertible {
    /// The line number, from 1.
    public let line: Int
    /// What is wrong with it, in words that quote none of the line.
    public let problem: String

    public var description: String { "line \(line): \(problem)" }
}

/// Why a store could not be loaded at all.
public enum StateStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The store was written by a newer version of the format; it is left untouched.
    case unsupportedVersion(found: Int, supported: Int)

    public var description: String {
        switch self {
        case .unsupportedVersion(let found, let supported):
            "the state store has format version \(found), but this version reads only \(supported) and older; "
                + "upgrade hotspot-helperd or move the store aside"
        }
    }
}

/// The store's text format, version 1: one entry per line, fields separated by single spaces.
///
/// ```
/// hotspot-helper-state 1
/// network <ssid-hex> <security-class> helper <helper-identifier>
/// network <ssid-hex> <security-class> not-captive
/// autoconnect-off <connection-id> <ssid-hex> <security-class>
/// ```
///
/// SSIDs are lower-case hex (`-` for the empty SSID); identifiers are percent-encoded (every byte
/// outside `A–Z a–z 0–9 - . _ ~ : / @ +` becomes `%XX`; the empty identifier is `-`, the
/// identifier `-` itself `%2d`). Lines starting
/// with `#` and blank lines are ignored. Entries are written sorted, so equal states encode to equal
/// bytes.
public enum StateStoreCodec {
    /// The format version this code writes and the newest it reads.
    public static let formatVersion = 1

    private static let magic = "hotspot-helper-state"

    /// Encodes a state.
    public static func encode(_ state: PersistentState) -> [UInt8] {
        var lines: [String] = []
        for (key, verdict) in state.cache.entries {
            let prefix = "network \(hex(key.ssid)) \(key.securityClass.rawValue)"
            switch verdict {
            case .helper(let helper): lines.append("\(prefix) helper \(percentEncode(helper.rawValue))")
            case .notCaptive: lines.append("\(prefix) not-captive")
            }
        }
        for (connection, key) in state.autoconnectDisabled {
            lines.append("autoconnect-off \(percentEncode(connection.rawValue)) \(hex(key.ssid)) \(key.securityClass.rawValue)")
        }
        let text = (["\(magic) \(formatVersion)"] + lines.sorted()).joined(separator: "\n") + "\n"
        return Array(text.utf8)
    }

    /// Decodes a store, keeping every valid entry and listing the damaged ones. A missing or
    /// unreadable header is itself reported as damage and the entries are still read.
    public static func decode(_ bytes: [UInt8]) throws(StateStoreError) -> StateStoreLoad {
        let text = String(decoding: bytes, as: UTF8.self)
        var cache = NetworkCache()
        var autoconnect: [ConnectionID: NetworkKey] = [:]
        var damaged: [DamagedStoreEntry] = []
        var sawHeader = false

        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            func damage(_ problem: String) {
                damaged.append(DamagedStoreEntry(line: number, problem: problem))
            }
            if !sawHeader {
                sawHeader = true
                if fields.first == magic {
                    guard fields.count == 2, let version = Int(fields[1]), version >= 1 else {
                        damage("unreadable header (expected '\(magic) \(formatVersion)')")
                        continue
                    }
                    guard version <= formatVersion else {
                        throw .unsupportedVersion(found: version, supported: formatVersion)
                    }
                    continue
                }
                damaged.append(DamagedStoreEntry(line: number, problem: "missing header '\(magic) \(formatVersion)'"))
            }
            switch fields.first {
            case "network":
                guard fields.count >= 4, let ssid = unhex(fields[1]) else {
                    damage("expected 'network <ssid-hex> <security-class> helper <id>|not-captive'")
                    continue
                }
                guard let securityClass = SecurityClass(rawValue: fields[2]) else {
                    damage("unknown security class in field 3 (expected: open, wep, personal, enterprise)")
                    continue
                }
                let verdict: CacheVerdict
                if fields.count == 4, fields[3] == "not-captive" {
                    verdict = .notCaptive
                } else if fields.count == 5, fields[3] == "helper", let id = percentDecode(fields[4]), !id.isEmpty {
                    verdict = .helper(HelperID(id))
                } else {
                    damage("expected 'helper <id>' or 'not-captive' after the security class")
                    continue
                }
                let key = NetworkKey(ssid: ssid, securityClass: securityClass)
                guard cache[key] == nil else {
                    damage("duplicate entry for a network listed earlier; the first one is kept")
                    continue
                }
                cache.record(verdict, for: key)
            case "autoconnect-off":
                guard fields.count == 4, let id = percentDecode(fields[1]), !id.isEmpty, let ssid = unhex(fields[2]) else {
                    damage("expected 'autoconnect-off <connection-id> <ssid-hex> <security-class>'")
                    continue
                }
                guard let securityClass = SecurityClass(rawValue: fields[3]) else {
                    damage("unknown security class in field 4 (expected: open, wep, personal, enterprise)")
                    continue
                }
                let connection = ConnectionID(id)
                guard autoconnect[connection] == nil else {
                    damage("duplicate entry for a connection listed earlier; the first one is kept")
                    continue
                }
                autoconnect[connection] = NetworkKey(ssid: ssid, securityClass: securityClass)
            default:
                damage("unknown entry (expected: network, autoconnect-off)")
            }
        }
        return StateStoreLoad(state: PersistentState(cache: cache, autoconnectDisabled: autoconnect), damaged: damaged)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(_ ssid: SSID) -> String {
        guard !ssid.bytes.isEmpty else { return "-" }
        var out: [UInt8] = []
        out.reserveCapacity(ssid.bytes.count * 2)
        for byte in ssid.bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func unhex(_ field: String) -> SSID? {
        if field == "-" { return SSID(bytes: []) }
        let digits = Array(field.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0, digits.count <= 64 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return SSID(bytes: bytes)
    }

    private static func isUnreserved(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("-._~:/@+".utf8).contains(c)
        }
    }

    private static func percentEncode(_ text: String) -> String {
        guard !text.isEmpty else { return "-" }
        guard text != "-" else { return "%2d" }
        var out: [UInt8] = []
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func percentDecode(_ field: String) -> String? {
        if field == "-" { return "" }
        let input = Array(field.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < input.count {
            let c = input[index]
            if c == UInt8(ascii: "%") {
                guard index + 2 < input.count, let high = nibble(input[index + 1]), let low = nibble(input[index + 2]) else {
                    return nil
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                guard isUnreserved(c) else { return nil }
                bytes.append(c)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
