// SPDX-License-Identifier: Apache-2.0
/// Validated D-Bus names. Each initialiser checks the rules of the D-Bus specification
/// ("Valid names", "Valid object paths") in Swift, so that libdbus, which aborts the process on an
/// invalid name, never sees one.

/// An object path such as `/org/freedesktop/NetworkManager`.
public struct ObjectPath: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// Validates `rawValue`; throws ``DBusError/invalidValue(_:)`` naming it when it is not a path.
    public init(_ rawValue: String) throws(DBusError) {
        guard ObjectPath.isValid(rawValue) else {
            throw .invalidValue("invalid object path \(quoted(rawValue)): a path starts with '/', has elements of [A-Za-z0-9_] separated by single '/', and no trailing '/'")
        }
        self.rawValue = rawValue
    }

    /// For literals in source code; a bad literal is a programming error and traps.
    public init(stringLiteral value: String) {
        precondition(ObjectPath.isValid(value), "invalid object path literal \(value)")
        self.rawValue = value
    }

    public static let root: ObjectPath = "/"

    public static func isValid(_ s: String) -> Bool {
        withUTF8Bytes(s) { u in
            guard let first = u.first, first == UInt8(ascii: "/") else { return false }
            if u.count == 1 { return true }
            if u.last == UInt8(ascii: "/") { return false }
            var previousSlash = true
            for c in u.dropFirst() {
                if c == UInt8(ascii: "/") {
                    if previousSlash { return false }
                    previousSlash = true
                } else {
                    guard isAlnumUnderscore(c) else { return false }
                    previousSlash = false
                }
            }
            return true
        }
    }

    /// A path libdbus has validated already (the header or body of a received message).
    init(validatedByLibdbus rawValue: String) { self.rawValue = rawValue }

    /// `self` followed by one more element.
    public func appending(_ element: String) throws(DBusError) -> ObjectPath {
        try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// True when `self` equals `other` or lies below it (the `path_namespace` rule).
    public func isInNamespace(_ other: ObjectPath) -> Bool {
        other.rawValue == "/" || rawValue == other.rawValue || rawValue.hasPrefix(other.rawValue + "/")
    }

    public var description: String { rawValue }
    public static func < (a: ObjectPath, b: ObjectPath) -> Bool { a.rawValue < b.rawValue }
}

/// A bus name: unique (`:1.42`) or well-known (`org.freedesktop.NetworkManager`).
public struct BusName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusError) {
        guard BusName.isValid(rawValue) else {
            throw .invalidValue("invalid bus name \(quoted(rawValue)): expected a unique name like ':1.42' or a reverse-DNS name like 'org.example.Service' (at most 255 characters)")
        }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        precondition(BusName.isValid(value), "invalid bus name literal \(value)")
        self.rawValue = value
    }

    public var isUnique: Bool { rawValue.hasPrefix(":") }

    public static func isValid(_ s: String) -> Bool {
        withUTF8Bytes(s) { u in
            guard !u.isEmpty, u.count <= 255 else { return false }
            let unique = u[0] == UInt8(ascii: ":")
            return isDotted(unique ? UnsafeBufferPointer(rebasing: u.dropFirst()) : u, hyphens: true, leadingDigits: unique)
        }
    }

    public var description: String { rawValue }
}

/// An interface name such as `org.freedesktop.DBus.Properties`.
public struct InterfaceName: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusError) {
        guard InterfaceName.isValid(rawValue) else {
            throw .invalidValue("invalid interface name \(quoted(rawValue)): expected at least two elements of [A-Za-z_][A-Za-z0-9_]* separated by '.', at most 255 characters")
        }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        precondition(InterfaceName.isValid(value), "invalid interface name literal \(value)")
        self.rawValue = value
    }

    public static func isValid(_ s: String) -> Bool { isDottedName(s) }
    public var description: String { rawValue }
    public static func < (a: InterfaceName, b: InterfaceName) -> Bool { a.rawValue < b.rawValue }
}

/// A method or signal name such as `GetDevices`.
public struct MemberName: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusError) {
        guard MemberName.isValid(rawValue) else {
            throw .invalidValue("invalid member name \(quoted(rawValue)): expected [A-Za-z_][A-Za-z0-9_]*, at most 255 characters")
        }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        precondition(MemberName.isValid(value), "invalid member name literal \(value)")
        self.rawValue = value
    }

    public static func isValid(_ s: String) -> Bool {
        withUTF8Bytes(s) { u in
            guard let f = u.first, u.count <= 255, !isDigit(f) else { return false }
            return u.allSatisfy(isAlnumUnderscore)
        }
    }

    public var description: String { rawValue }
    public static func < (a: MemberName, b: MemberName) -> Bool { a.rawValue < b.rawValue }
}

/// An error name such as `org.freedesktop.DBus.Error.InvalidArgs` (same rules as interface names).
public struct ErrorName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) throws(DBusError) {
        guard isDottedName(rawValue) else {
            throw .invalidValue("invalid error name \(quoted(rawValue)): expected at least two elements of [A-Za-z_][A-Za-z0-9_]* separated by '.'")
        }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        precondition(isDottedName(value), "invalid error name literal \(value)")
        self.rawValue = value
    }

    public var description: String { rawValue }
}

/// Checks a string for the D-Bus wire: valid UTF-8 (always true of a Swift `String`) and no NUL.
func validateWireString(_ s: String, what: String = "string") throws(DBusError) {
    if s.utf8.contains(0) {
        throw .invalidValue("invalid \(what) \(quoted(s)): it contains a NUL character, which D-Bus strings cannot carry")
    }
}

/// Decodes bytes as a D-Bus string: refuses invalid UTF-8 and NUL, naming the bytes.
public func dbusString(fromUTF8 bytes: [UInt8]) throws(DBusError) -> String {
    guard let s = String(validating: bytes, as: UTF8.self) else {
        throw .invalidValue("invalid UTF-8 in string bytes [\(hex(bytes))]: D-Bus strings must be valid UTF-8")
    }
    try validateWireString(s)
    return s
}

func isDottedName(_ s: String) -> Bool {
    withUTF8Bytes(s) { u in
        guard !u.isEmpty, u.count <= 255 else { return false }
        return isDotted(u, hyphens: false, leadingDigits: false)
    }
}

/// At least two non-empty elements separated by single dots, each of [A-Za-z0-9_] (and `-` with
/// `hyphens`), none starting with a digit unless `leadingDigits`. One pass, no allocation: names
/// are checked for every message sent and received.
func isDotted(_ u: UnsafeBufferPointer<UInt8>, hyphens: Bool, leadingDigits: Bool) -> Bool {
    var elements = 1
    var atStart = true
    for c in u {
        if c == UInt8(ascii: ".") {
            if atStart { return false }
            elements += 1
            atStart = true
            continue
        }
        if atStart && !leadingDigits && isDigit(c) { return false }
        guard isAlnumUnderscore(c) || (hyphens && c == UInt8(ascii: "-")) else { return false }
        atStart = false
    }
    return !atStart && elements >= 2
}

/// `s`'s UTF-8 bytes, without a copy for a native string.
@inline(__always) func withUTF8Bytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
    var copy = s
    return copy.withUTF8(body)
}

@inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
@inline(__always) func isAlnumUnderscore(_ c: UInt8) -> Bool {
    (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95
}

/// A value quoted for an error message, with control characters escaped so the message stays one line.
func quoted(_ s: String) -> String {
    var out = "'"
    for scalar in s.unicodeScalars.prefix(200) {
        switch scalar {
        case "\0": out += "\\0"
        case "\n": out += "\\n"
        case "'": out += "\\'"
        default:
            if scalar.value < 0x20 { out += "\\x" + String(scalar.value, radix: 16) } else { out.unicodeScalars.append(scalar) }
        }
    }
    if s.unicodeScalars.count > 200 { out += "…" }
    return out + "'"
}

func hex(_ bytes: [UInt8]) -> String {
    bytes.prefix(64).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined(separator: " ") + (bytes.count > 64 ? " …" : "")
}
