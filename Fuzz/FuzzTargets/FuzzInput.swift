// SPDX-License-Identifier: Apache-2.0
import DBus

/// Reads structured values out of fuzz bytes (the idea of LLVM's FuzzedDataProvider): when the
/// bytes run out, every read returns zeros, so any input maps to some value.
public struct FuzzInput {
    let bytes: [UInt8]
    var index = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isExhausted: Bool { index >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        var v: UInt64 = 0
        for _ in 0..<4 { v = v << 8 | UInt64(byte()) }
        return range.lowerBound + Int(v % span)
    }

    public mutating func raw<T: FixedWidthInteger>(_: T.Type) -> T {
        var v: T = 0
        for _ in 0..<(T.bitWidth / 8) { v = v << 8 | T(truncatingIfNeeded: byte()) }
        return v
    }

    public mutating func bytes(max: Int) -> [UInt8] {
        let n = int(0...max)
        return (0..<n).map { _ in byte() }
    }

    /// A string: valid UTF-8 from the bytes (invalid sequences repaired), NUL removed.
    public mutating func string(max: Int) -> String {
        String(decoding: bytes(max: max).filter { $0 != 0 }, as: UTF8.self)
    }

    public mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...(choices.count - 1))] }

    /// The rest of the input.
    public mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return index < bytes.count ? Array(bytes[index...]) : []
    }
}

/// D-Bus values built from fuzz bytes: any type, biased towards the dictionaries the daemon
/// reads (a{sv} with the keys it looks for).
public struct FuzzValues {
    public var input: FuzzInput
    public var keys: [String]

    public init(_ input: FuzzInput, keys: [String]) {
        self.input = input
        self.keys = keys
    }

    mutating func basicType() -> DBusType {
        input.pick([.byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath, .signature])
    }

    public mutating func type(depth: Int = 0) -> DBusType {
        if depth > 4 { return basicType() }
        switch input.int(0...9) {
        case 0...4: return basicType()
        case 5: return .array(type(depth: depth + 1))
        case 6: return .dictionary(key: .string, value: .variant)
        case 7: return .dictionary(key: basicType(), value: type(depth: depth + 1))
        case 8: return .structure((0..<input.int(1...3)).map { _ in type(depth: depth + 1) })
        default: return .variant
        }
    }

    public mutating func value(of type: DBusType, depth: Int = 0) -> DBusValue {
        switch type {
        case .byte: return .byte(input.byte())
        case .bool: return .bool(input.bool())
        case .int16: return .int16(input.raw(Int16.self))
        case .uint16: return .uint16(input.raw(UInt16.self))
        case .int32: return .int32(input.raw(Int32.self))
        case .uint32: return .uint32(input.raw(UInt32.self))
        case .int64: return .int64(input.raw(Int64.self))
        case .uint64: return .uint64(input.raw(UInt64.self))
        case .double: return .double(Double(bitPattern: input.raw(UInt64.self)))
        case .string: return .string(input.bool() ? input.pick(keys) : input.string(max: 40))
        case .objectPath:
            let text = "/" + input.string(max: 20).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "/" || $0 == "_") }
            return .objectPath((try? ObjectPath(text)) ?? .root)
        case .signature: return .signature((try? Signature(self.type(depth: 3).signature)) ?? .empty)
        case .unixFD: return .int32(0)
        case .variant: return .variant(value(of: self.type(depth: depth + 1), depth: depth + 1))
        case .array(.byte):
            return .bytes((0..<input.int(0...(depth > 2 ? 2 : 6))).map { _ in input.byte() })
        case .array(let e):
            return .array(element: e, (0..<input.int(0...(depth > 2 ? 2 : 6))).map { _ in value(of: e, depth: depth + 1) })
        case .dictionary(let k, let v):
            var seen = Set<DBusValue>()
            var entries: [DictEntry] = []
            for _ in 0..<input.int(0...(depth > 2 ? 2 : 8)) {
                let key: DBusValue = k == .string ? .string(input.bool() ? input.pick(keys) : input.string(max: 12)) : value(of: k, depth: depth + 1)
                if seen.insert(key).inserted { entries.append(DictEntry(key, value(of: v, depth: depth + 1))) }
            }
            return .dictionary(key: k, value: v, entries)
        case .structure(let fields): return .structure(fields.map { value(of: $0, depth: depth + 1) })
        }
    }

    /// Usually an a{sv} with the known keys; sometimes anything.
    public mutating func dictionaryLike() -> DBusValue {
        input.int(0...5) == 0 ? value(of: type()) : value(of: .dictionary(key: .string, value: .variant))
    }
}
