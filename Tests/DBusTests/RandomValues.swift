// SPDX-License-Identifier: Apache-2.0
@testable import DBus
import HotspotTestingRandom

/// Random D-Bus types and values of every kind, nested, within the specification's limits.
struct ValueGenerator {
    var rng: SeededRandom
    /// Leave out `h` (file descriptors) where a peer cannot echo them.
    var includeFDs = false

    init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    mutating func basicType() -> DBusType {
        let all: [DBusType] = [.byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath, .signature]
        return all.randomElement(using: &rng)!
    }

    mutating func type(depth: Int) -> DBusType {
        if depth >= 4 || Int.random(in: 0..<10, using: &rng) < 4 { return basicType() }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .array(type(depth: depth + 1))
        case 1: return .dictionary(key: basicType(), value: type(depth: depth + 1))
        case 2: return .structure((0..<Int.random(in: 1...3, using: &rng)).map { _ in type(depth: depth + 1) })
        default: return .variant
        }
    }

    mutating func string() -> String {
        let alphabet = Array("abcXYZ019 _-/.'\"<>&é日本🙂\t\n")
        return String((0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    mutating func value(of type: DBusType, depth: Int = 0) -> DBusValue {
        switch type {
        case .byte: return .byte(.random(in: .min ... .max, using: &rng))
        case .bool: return .bool(.random(using: &rng))
        case .int16: return .int16(.random(in: .min ... .max, using: &rng))
        case .uint16: return .uint16(.random(in: .min ... .max, using: &rng))
        case .int32: return .int32(.random(in: .min ... .max, using: &rng))
        case .uint32: return .uint32(.random(in: .min ... .max, using: &rng))
        case .int64: return .int64(.random(in: .min ... .max, using: &rng))
        case .uint64: return .uint64(.random(in: .min ... .max, using: &rng))
        case .double: return .double(Double.random(in: -1e9...1e9, using: &rng).rounded() / 8)
        case .string: return .string(string())
        case .objectPath:
            let n = Int.random(in: 0...3, using: &rng)
            return .objectPath(try! ObjectPath(n == 0 ? "/" : (0..<n).map { "/e\($0)_\(Int.random(in: 0..<99, using: &rng))" }.joined()))
        case .signature:
            return .signature(try! Signature(self.type(depth: 2).signature))
        case .unixFD: return .unixFD(FileDescriptor(0, owned: false))
        case .variant:
            let inner = self.type(depth: depth + 1)
            return .variant(value(of: inner, depth: depth + 1))
        case .array(.byte):
            return .bytes((0..<Int.random(in: 0...3, using: &rng)).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
        case .array(let e):
            return .array(element: e, (0..<Int.random(in: 0...3, using: &rng)).map { _ in value(of: e, depth: depth + 1) })
        case .dictionary(let k, let v):
            var seen = Set<DBusValue>()
            var entries: [DictEntry] = []
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let key = value(of: k, depth: depth + 1)
                if seen.insert(key).inserted { entries.append(DictEntry(key, value(of: v, depth: depth + 1))) }
            }
            return .dictionary(key: k, value: v, entries)
        case .structure(let fields):
            return .structure(fields.map { value(of: $0, depth: depth + 1) })
        }
    }

    mutating func value() -> DBusValue { value(of: type(depth: 0)) }
}
