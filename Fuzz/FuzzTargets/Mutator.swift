// SPDX-License-Identifier: Apache-2.0
import HotspotTestingRandom

/// A small mutation engine for the built-in fuzz driver (used where libFuzzer is not in play):
/// bit flips, byte changes, inserts, deletes, duplications, interesting values and splices.
public struct Mutator {
    var random: SeededRandom

    public init(seed: UInt64) { random = SeededRandom(seed: seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed) }

    mutating func next() -> UInt64 { random.next() }

    /// A number in 0..<n.
    public mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    static let interesting: [[UInt8]] = [[0], [0xFF], [0x7F], [0x80], [0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0x41, 0x41, 0x41, 0x41],
                                         Array("&amp;".utf8), Array("-->".utf8), Array("<!--".utf8), Array("\"".utf8), Array("=".utf8),
                                         Array("[daemon]\n".utf8), Array("{".utf8), Array("}".utf8), [0xC3], [0xED, 0xA0, 0x80]]

    /// A mutated copy of `input`, sometimes spliced with `other`, at most `maxLength` bytes.
    public mutating func mutate(_ input: [UInt8], other: [UInt8], maxLength: Int = 4096) -> [UInt8] {
        var out = input
        for _ in 0...below(4) {
            switch below(8) {
            case 0 where !out.isEmpty:
                let i = below(out.count); out[i] ^= UInt8(1 << below(8))
            case 1 where !out.isEmpty:
                out[below(out.count)] = UInt8(truncatingIfNeeded: next())
            case 2:
                out.insert(UInt8(truncatingIfNeeded: next()), at: below(out.count + 1))
            case 3 where !out.isEmpty:
                let i = below(out.count); out.removeSubrange(i..<min(out.count, i + 1 + below(8)))
            case 4 where !out.isEmpty:
                let i = below(out.count), n = min(out.count - i, 1 + below(16))
                out.insert(contentsOf: out[i..<(i + n)], at: below(out.count + 1))
            case 5:
                out.insert(contentsOf: Self.interesting[below(Self.interesting.count)], at: below(out.count + 1))
            case 6 where !other.isEmpty:
                let cut = below(out.count + 1), from = below(other.count)
                out = Array(out[..<cut]) + other[from...]
            default:
                if !out.isEmpty { out.swapAt(below(out.count), below(out.count)) }
            }
        }
        return out.count > maxLength ? Array(out.prefix(maxLength)) : out
    }
}
