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
        let sig = signature
        guard sig.utf8.count <= 255 else {
            throw .invalidValue("value of signature \(quoted(String(sig.prefix(40)) + "…")) is nested too deeply: a D-Bus signature is at most 255 characters")
        }
    }

    private func validate(depth: Int) throws(DBusError) {
        guard depth <= 64 else { throw .invalidValue("value nests containers deeper than 64 levels, the D-Bus limit") }
        switch self {
        case .string(let s): try validateWireString(s)
        case .array(let e, let items):
            try Self.validateTypeDepth(e)
            for item in items {
                guard item.type == e else {
                    throw .invalidValue("array of \(e.signature) holds an item of type \(item.signature)")
                }
                try item.validate(depth: depth + 1)
            }
        case .dictionary(let k, let v, let entries):
            guard k.isBasic else { throw .invalidValue("dictionary key type \(k.signature) is not a basic type") }
            try Self.validateTypeDepth(v)
            for entry in entries {
                guard entry.key.type == k, entry.value.type == v else {
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

    private static func validateTypeDepth(_ t: DBusType) throws(DBusError) {
        _ = try Signature(t.signature)
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
