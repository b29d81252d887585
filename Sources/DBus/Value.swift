// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// An owned file descriptor received over D-Bus (`h`). Closed when the last reference goes away.
public final class FileDescriptor: Sendable, Hashable {
    /// The descriptor number; valid while this object is alive.
    public let rawValue: Int32
    let owned: Bool

    /// Wraps `rawValue`. With `owned`, the descriptor is closed on deinit.
    public init(_ rawValue: Int32, owned: Bool) {
        self.rawValue = rawValue
        self.owned = owned
    }

    deinit {
        if owned { close(rawValue) }
    }

    public static func == (a: FileDescriptor, b: FileDescriptor) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }
}

/// One entry of a D-Bus dictionary (`{kv}`).
public struct DictEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue
    public init(_ key: DBusValue, _ value: DBusValue) { self.key = key; self.value = value }
}

/// Any D-Bus value. Containers carry their element types, so an empty array or dictionary still
/// knows its signature, and a value's signature is always computed from the value itself.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    case unixFD(FileDescriptor)
    /// An array of items of type `element`. An `ay` is ``byteArray(_:)`` instead: received
    /// byte arrays always decode to that, one buffer rather than one value per byte.
    case array(element: DBusType, [DBusValue])
    /// An `ay`, as bytes.
    case byteArray([UInt8])
    /// A dictionary `a{kv}`; entries keep their order.
    case dictionary(key: DBusType, value: DBusType, [DictEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's type, computed from the value.
    public var type: DBusType {
        switch self {
        case .byte: return .byte
        case .bool: return .bool
        case .int16: return .int16
        case .uint16: return .uint16
        case .int32: return .int32
        case .uint32: return .uint32
        case .int64: return .int64
        case .uint64: return .uint64
        case .double: return .double
        case .string: return .string
        case .objectPath: return .objectPath
        case .signature: return .signature
        case .unixFD: return .unixFD
        case .array(let e, _): return .array(e)
        case .byteArray: return .array(.byte)
        case .dictionary(let k, let v, _): return .dictionary(key: k, value: v)
        case .structure(let fields): return .structure(fields.map(\.type))
        case .variant: return .variant
        }
    }

    /// The signature text of this one value.
    public var signature: String { type.signature }

    /// Checks the value before it goes on the wire: strings without NUL, items of containers
    /// matching the declared element types, dictionary keys basic, structures non-empty, nesting
    /// and signature lengths within the specification's limits. Errors name the bad value.
    public func validate() throws(DBusError) {
        try validate(depth: 0)
        guard signatureLength <= 255 else {
            throw .invalidValue("value of signature \(quoted(String(signature.prefix(40)) + "…")) is nested too deeply: a D-Bus signature is at most 255 characters")
        }
    }

    private func validate(depth: Int) throws(DBusError) {
        guard depth <= 64 else { throw .invalidValue("value nests containers deeper than 64 levels, the D-Bus limit") }
        switch self {
        case .string(let s): try validateWireString(s)
        case .array(let e, let items):
            try e.checkNesting()
            for item in items {
                guard item.hasType(e) else {
                    throw .invalidValue("array of \(e.signature) holds an item of type \(item.signature)")
                }
                try item.validate(depth: depth + 1)
            }
        case .dictionary(let k, let v, let entries):
            guard k.isBasic else { throw .invalidValue("dictionary key type \(k.signature) is not a basic type") }
            try v.checkNesting()
            for entry in entries {
                guard entry.key.hasType(k), entry.value.hasType(v) else {
                    throw .invalidValue("dictionary a{\(k.signature)\(v.signature)} holds an entry of types \(entry.key.signature), \(entry.value.signature)")
                }
                try entry.key.validate(depth: depth + 1)
                try entry.value.validate(depth: depth + 1)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidValue("a structure must have at least one field") }
            for f in fields { try f.validate(depth: depth + 1) }
        case .variant(let inner): try inner.validate(depth: depth + 1)
        default: break
        }
    }

    /// Whether the value is of type `t` (what `type == t` says, without building the type).
    func hasType(_ t: DBusType) -> Bool {
        switch (self, t) {
        case (.byte, .byte), (.bool, .bool), (.int16, .int16), (.uint16, .uint16), (.int32, .int32), (.uint32, .uint32),
             (.int64, .int64), (.uint64, .uint64), (.double, .double), (.string, .string), (.objectPath, .objectPath),
             (.signature, .signature), (.unixFD, .unixFD), (.variant, .variant), (.byteArray, .array(.byte)):
            return true
        case (.array(let e, _), .array(let te)): return e == te
        case (.dictionary(let k, let v, _), .dictionary(let tk, let tv)): return k == tk && v == tv
        case (.structure(let fields), .structure(let types)):
            guard fields.count == types.count else { return false }
            for (f, ft) in zip(fields, types) where !f.hasType(ft) { return false }
            return true
        default: return false
        }
    }

    /// The length of ``signature``, counted without building it.
    var signatureLength: Int {
        switch self {
        case .array(let e, _): return 1 + e.signatureLength
        case .byteArray: return 2
        case .dictionary(let k, let v, _): return 3 + k.signatureLength + v.signatureLength
        case .structure(let fields): return fields.reduce(2) { $0 + $1.signatureLength }
        default: return 1
        }
    }

    /// Appends the value's signature to `out` (what ``signature`` spells, without building the type).
    func writeSignature(to out: inout SignatureBuffer) {
        switch self {
        case .array(let e, _): out.append(UInt8(ascii: "a")); e.writeSignature(to: &out)
        case .byteArray: out.append(UInt8(ascii: "a")); out.append(UInt8(ascii: "y"))
        case .dictionary(let k, let v, _):
            out.append(UInt8(ascii: "a")); out.append(UInt8(ascii: "{"))
            k.writeSignature(to: &out); v.writeSignature(to: &out)
            out.append(UInt8(ascii: "}"))
        case .structure(let fields):
            out.append(UInt8(ascii: "(")); for f in fields { f.writeSignature(to: &out) }; out.append(UInt8(ascii: ")"))
        case .variant: out.append(UInt8(ascii: "v"))
        default: out.append(type.basicCode)
        }
    }
}

extension DBusType {
    /// The one-byte type code of a basic type or variant; containers have none ("a", "(" open them).
    var basicCode: UInt8 {
        switch self {
        case .byte: return UInt8(ascii: "y")
        case .bool: return UInt8(ascii: "b")
        case .int16: return UInt8(ascii: "n")
        case .uint16: return UInt8(ascii: "q")
        case .int32: return UInt8(ascii: "i")
        case .uint32: return UInt8(ascii: "u")
        case .int64: return UInt8(ascii: "x")
        case .uint64: return UInt8(ascii: "t")
        case .double: return UInt8(ascii: "d")
        case .string: return UInt8(ascii: "s")
        case .objectPath: return UInt8(ascii: "o")
        case .signature: return UInt8(ascii: "g")
        case .unixFD: return UInt8(ascii: "h")
        case .variant: return UInt8(ascii: "v")
        case .array: return UInt8(ascii: "a")
        case .dictionary: return UInt8(ascii: "a")
        case .structure: return UInt8(ascii: "(")
        }
    }

    /// The length of ``signature``, counted without building it.
    var signatureLength: Int {
        switch self {
        case .array(let e): return 1 + e.signatureLength
        case .dictionary(let k, let v): return 3 + k.signatureLength + v.signatureLength
        case .structure(let fields): return fields.reduce(2) { $0 + $1.signatureLength }
        default: return 1
        }
    }

    /// Appends ``signature``'s bytes to `out`.
    func writeSignature(to out: inout SignatureBuffer) {
        switch self {
        case .array(let e): out.append(UInt8(ascii: "a")); e.writeSignature(to: &out)
        case .dictionary(let k, let v):
            out.append(UInt8(ascii: "a")); out.append(UInt8(ascii: "{"))
            k.writeSignature(to: &out); v.writeSignature(to: &out)
            out.append(UInt8(ascii: "}"))
        case .structure(let fields):
            out.append(UInt8(ascii: "(")); for f in fields { f.writeSignature(to: &out) }; out.append(UInt8(ascii: ")"))
        default: out.append(basicCode)
        }
    }

    /// Checks the type as a signature would be checked (``Signature/init(_:)``): at most 255
    /// characters, arrays and structures (dictionary entries count as both) nested at most 32
    /// deep each; without building or parsing the text.
    func checkNesting() throws(DBusError) {
        guard signatureLength <= 255 else {
            throw .invalidValue("invalid signature \(quoted(String(signature.prefix(40)))): is longer than 255 characters")
        }
        try checkNesting(arrays: 0, structures: 0)
    }

    private func checkNesting(arrays: Int, structures: Int) throws(DBusError) {
        switch self {
        case .array(let e):
            guard arrays < 32 else { throw .invalidValue("invalid signature \(quoted(String(signature.prefix(40)))): arrays nest deeper than 32") }
            try e.checkNesting(arrays: arrays + 1, structures: structures)
        case .dictionary(let k, let v):
            guard arrays < 32 else { throw .invalidValue("invalid signature \(quoted(String(signature.prefix(40)))): arrays nest deeper than 32") }
            guard k.isBasic else { throw .invalidValue("invalid signature \(quoted(String(signature.prefix(40)))): a dictionary key must be a basic type, not \(k.signature)") }
            try k.checkNesting(arrays: arrays + 1, structures: structures + 1)
            try v.checkNesting(arrays: arrays + 1, structures: structures + 1)
        case .structure(let fields):
            guard structures < 32 else { throw .invalidValue("invalid signature \(quoted(String(signature.prefix(40)))): structures nest deeper than 32") }
            guard !fields.isEmpty else { throw .invalidValue("invalid signature \(quoted(signature)): a structure must have at least one field") }
            for f in fields { try f.checkNesting(arrays: arrays, structures: structures + 1) }
        default:
            break
        }
    }
}

// MARK: - Construction helpers

extension DBusValue {
    /// `ay` from bytes.
    public static func bytes(_ bytes: [UInt8]) -> DBusValue { .byteArray(bytes) }

    /// `as` from strings.
    public static func strings(_ strings: [String]) -> DBusValue { .array(element: .string, strings.map { .string($0) }) }

    /// `ao` from paths.
    public static func objectPaths(_ paths: [ObjectPath]) -> DBusValue { .array(element: .objectPath, paths.map { .objectPath($0) }) }

    /// `a{sv}` from a dictionary (entries sorted by key so the wire form is deterministic).
    public static func varDict(_ dict: [String: DBusValue]) -> DBusValue {
        .dictionary(key: .string, value: .variant,
                    dict.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .variant($0.value)) })
    }

    /// `a{sv}` from entries already in key order (what ``varDict(_:)`` makes from a dictionary,
    /// without the dictionary and the sort: for messages built on every join). The order is
    /// checked in debug builds.
    public static func varDict(sorted entries: [(String, DBusValue)]) -> DBusValue {
        assert(zip(entries, entries.dropFirst()).allSatisfy { $0.0 < $1.0 }, "varDict(sorted:) entries out of key order")
        return .dictionary(key: .string, value: .variant, entries.map { DictEntry(.string($0.0), .variant($0.1)) })
    }

    /// `aa{sv}` from a list of dictionaries.
    public static func varDicts(_ dicts: [[String: DBusValue]]) -> DBusValue {
        .array(element: .dictionary(key: .string, value: .variant), dicts.map { .varDict($0) })
    }
}

// MARK: - Reading helpers (tolerant: nil when the value has another type)

extension DBusValue {
    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var bool: Bool? { if case .bool(let v) = unwrapped { return v }; return nil }
    public var string: String? { if case .string(let v) = unwrapped { return v }; return nil }
    public var objectPath: ObjectPath? { if case .objectPath(let v) = unwrapped { return v }; return nil }
    public var double: Double? { if case .double(let v) = unwrapped { return v }; return nil }

    /// Any integer type, widened (nil when it does not fit in Int64).
    public var integer: Int64? {
        switch unwrapped {
        case .byte(let v): return Int64(v)
        case .int16(let v): return Int64(v)
        case .uint16(let v): return Int64(v)
        case .int32(let v): return Int64(v)
        case .uint32(let v): return Int64(v)
        case .int64(let v): return v
        case .uint64(let v): return v <= UInt64(Int64.max) ? Int64(v) : nil
        default: return nil
        }
    }

    public var uint32: UInt32? { if case .uint32(let v) = unwrapped { return v }; return nil }

    /// The bytes of an `ay`.
    public var byteArray: [UInt8]? {
        if case .byteArray(let bytes) = unwrapped { return bytes }
        guard case .array(.byte, let items) = unwrapped else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(items.count)
        for case .byte(let b) in items { out.append(b) }
        return out
    }

    /// The items of any array.
    public var arrayItems: [DBusValue]? {
        switch unwrapped {
        case .array(_, let items): return items
        case .byteArray(let bytes): return bytes.map { .byte($0) }
        default: return nil
        }
    }

    /// The paths of an `ao`.
    public var objectPaths: [ObjectPath]? { arrayItems?.compactMap(\.objectPath) }

    /// The strings of an `as`.
    public var strings: [String]? { arrayItems?.compactMap(\.string) }

    /// An `a{sv}` (or any string-keyed dictionary) as a Swift dictionary; variants are unwrapped.
    public var varDict: [String: DBusValue]? {
        guard case .dictionary(.string, _, let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for e in entries { if case .string(let k) = e.key { out[k] = e.value.unwrapped } }
        return out
    }

    /// The entries of any dictionary.
    public var dictEntries: [DictEntry]? { if case .dictionary(_, _, let e) = unwrapped { return e }; return nil }

    /// The fields of a structure.
    public var structFields: [DBusValue]? { if case .structure(let f) = unwrapped { return f }; return nil }
}

extension DBusValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension DBusValue: CustomStringConvertible {
    /// A GVariant-like text form, for logs and test failures.
    public var description: String {
        switch self {
        case .byte(let v): return "byte \(v)"
        case .bool(let v): return v ? "true" : "false"
        case .int16(let v): return "int16 \(v)"
        case .uint16(let v): return "uint16 \(v)"
        case .int32(let v): return "\(v)"
        case .uint32(let v): return "uint32 \(v)"
        case .int64(let v): return "int64 \(v)"
        case .uint64(let v): return "uint64 \(v)"
        case .double(let v): return "\(v)"
        case .string(let v): return quoted(v)
        case .objectPath(let v): return "objectpath '\(v)'"
        case .signature(let v): return "signature '\(v)'"
        case .unixFD(let v): return "handle \(v.rawValue)"
        case .array(let e, let items):
            if items.isEmpty { return "@a\(e.signature) []" }
            return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .byteArray(let bytes):
            if bytes.isEmpty { return "@ay []" }
            return "[" + bytes.map { "byte \($0)" }.joined(separator: ", ") + "]"
        case .dictionary(let k, let v, let entries):
            if entries.isEmpty { return "@a{\(k.signature)\(v.signature)} {}" }
            return "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let f): return "(" + f.map(\.description).joined(separator: ", ") + (f.count == 1 ? ",)" : ")")
        case .variant(let v): return "<\(v)>"
        }
    }
}

/// Signature bytes written in place, into storage the caller provides (on the stack: see
/// `Marshal.container`). Writes past the capacity are dropped; a validated body's signatures
/// never need more than 255 bytes.
struct SignatureBuffer {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0

    init(_ storage: UnsafeMutableBufferPointer<UInt8>) {
        base = storage.baseAddress!
        capacity = storage.count
    }

    mutating func append(_ byte: UInt8) {
        guard count < capacity else { return }
        base[count] = byte
        count += 1
    }
}
