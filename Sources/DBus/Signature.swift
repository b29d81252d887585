// SPDX-License-Identifier: Apache-2.0
/// The type of one complete D-Bus value.
public indirect enum DBusType: Sendable, Hashable, CustomStringConvertible {
    case byte, bool, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case variant
    case array(DBusType)
    /// `a{kv}`: a dictionary is an array of dict entries; `key` must be a basic type.
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])

    /// Basic types may be dictionary keys.
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: return false
        default: return true
        }
    }

    /// The type's signature text, e.g. `a{sv}`.
    public var signature: String {
        var s = ""
        write(to: &s)
        return s
    }

    func write(to s: inout String) {
        switch self {
        case .array(let e): s += "a"; e.write(to: &s)
        case .dictionary(let k, let v): s += "a{"; k.write(to: &s); v.write(to: &s); s += "}"
        case .structure(let fields): s += "("; for f in fields { f.write(to: &s) }; s += ")"
        default: s.unicodeScalars.append(Unicode.Scalar(basicCode))  // one table of codes: basicCode
        }
    }

    public var description: String { signature }

    /// The type of a single complete signature such as `a{sv}`.
    public init(_ signature: String) throws(DBusError) {
        let sig = try Signature(signature)
        guard sig.types.count == 1 else {
            throw .invalidValue("signature \(quoted(signature)) is not one single complete type")
        }
        self = sig.types[0]
    }
}

/// A D-Bus signature: a sequence of complete types, at most 255 characters, with arrays and
/// structures nested at most 32 deep each (the specification's limits).
public struct Signature: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let types: [DBusType]
    public let rawValue: String

    public static let empty = Signature(validated: [])

    /// Parses and validates a signature; errors name the signature and the problem.
    public init(_ rawValue: String) throws(DBusError) {
        var parser = SignatureParser(Array(rawValue.utf8), text: rawValue)
        self.types = try parser.parseAll()
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("invalid signature literal \(value): \(error)") }
    }

    /// Builds the signature of a sequence of types (validating the total length).
    public init(_ types: [DBusType]) throws(DBusError) {
        let text = types.map(\.signature).joined()
        try self.init(text)
    }

    init(validated types: [DBusType]) {
        self.types = types
        self.rawValue = types.map(\.signature).joined()
    }

    public var description: String { rawValue }

    public static func isValid(_ s: String) -> Bool { (try? Signature(s)) != nil }
}

struct SignatureParser {
    let bytes: [UInt8]
    let text: String
    var index = 0

    init(_ bytes: [UInt8], text: String) { self.bytes = bytes; self.text = text }

    mutating func parseAll() throws(DBusError) -> [DBusType] {
        guard bytes.count <= 255 else { throw fail("is longer than 255 characters") }
        var types: [DBusType] = []
        while index < bytes.count {
            types.append(try parseOne(arrayDepth: 0, structDepth: 0))
        }
        return types
    }

    func fail(_ why: String) -> DBusError {
        .invalidValue("invalid signature \(quoted(text)): \(why)")
    }

    mutating func parseOne(arrayDepth: Int, structDepth: Int) throws(DBusError) -> DBusType {
        guard index < bytes.count else { throw fail("ends in the middle of a type") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .bool
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrayDepth < 32 else { throw fail("arrays nest deeper than 32") }
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try parseOne(arrayDepth: arrayDepth + 1, structDepth: structDepth + 1)
                guard key.isBasic else { throw fail("a dictionary key must be a basic type, not \(key.signature)") }
                guard index < bytes.count, bytes[index] != UInt8(ascii: "}") else { throw fail("a dictionary entry needs a key and a value") }
                let value = try parseOne(arrayDepth: arrayDepth + 1, structDepth: structDepth + 1)
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else { throw fail("a dictionary entry holds exactly one key and one value") }
                index += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try parseOne(arrayDepth: arrayDepth + 1, structDepth: structDepth))
        case UInt8(ascii: "("):
            guard structDepth < 32 else { throw fail("structures nest deeper than 32") }
            var fields: [DBusType] = []
            while true {
                guard index < bytes.count else { throw fail("a structure is not closed") }
                if bytes[index] == UInt8(ascii: ")") { index += 1; break }
                fields.append(try parseOne(arrayDepth: arrayDepth, structDepth: structDepth + 1))
            }
            guard !fields.isEmpty else { throw fail("a structure must have at least one field") }
            return .structure(fields)
        case UInt8(ascii: "{"): throw fail("a dictionary entry may appear only inside an array")
        default:
            throw fail("unknown type code \(quoted(String(decoding: [c], as: UTF8.self)))")
        }
    }
}
