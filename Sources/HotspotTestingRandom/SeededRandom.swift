// SPDX-License-Identifier: Apache-2.0

/// SplitMix64: a tiny, fast, seeded generator, so a randomised test or a fuzz run can be replayed
/// from its seed. The one copy for tests, benchmarks and the fuzz driver.
///
/// It is a module of its own, apart from `HotspotTesting`, because that module links the daemon:
/// the core's tests link the pure core only, and the fuzz driver (built with sanitizers) need no
/// more than these lines.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
