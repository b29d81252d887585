// SPDX-License-Identifier: Apache-2.0
import HotspotCore

/// Finds the profile for an SSID: exact SSIDs in a dictionary, prefixes in a byte trie, so a
/// lookup costs one hash and at most 32 trie steps whatever the number of profiles. An exact
/// profile beats a prefix; among prefixes the longest wins.
public struct ProfileIndex: Sendable {
    /// Every profile indexed, in load order.
    public let profiles: [Profile]
    private var exact: [SSID: Int32] = [:]
    private var trie = PrefixTrie()

    /// Indexes `profiles`; the first profile for an SSID or prefix wins and each later one is
    /// reported in `conflicts` with both locations.
    public init(_ profiles: [Profile]) {
        var kept: [Profile] = []
        var conflicts: [String] = []
        kept.reserveCapacity(profiles.count)
        exact.reserveCapacity(profiles.count)
        for p in profiles {
            let index = Int32(kept.count)
            switch p.match {
            case .exact(let ssid):
                if let other = exact[ssid] {
                    conflicts.append(Self.conflict(p, kept[Int(other)]))
                    continue
                }
                exact[ssid] = index
            case .prefix(let bytes):
                if let other = trie.insert(bytes, index) {
                    conflicts.append(Self.conflict(p, kept[Int(other)]))
                    continue
                }
            }
            kept.append(p)
        }
        self.profiles = kept
        self.conflicts = conflicts
    }

    /// Profiles ignored because an earlier one matches the same SSID or prefix.
    public let conflicts: [String]

    static func conflict(_ p: Profile, _ earlier: Profile) -> String {
        "profile \(p.location): [\(p.name)] is ignored: its \(p.match) is already used by [\(earlier.name)] (\(earlier.location)); rename or remove one of them"
    }

    /// The profile for `ssid`, if any.
    public func profile(for ssid: SSID) -> Profile? {
        if let i = exact[ssid] { return profiles[Int(i)] }
        guard let i = trie.longestPrefix(of: ssid.bytes) else { return nil }
        return profiles[Int(i)]
    }

    /// How many profiles are indexed.
    public var count: Int { profiles.count }
}

/// A byte trie whose nodes live in one array; children are short sorted-by-insertion lists,
/// scanned linearly (SSIDs share few bytes per level in practice).
struct PrefixTrie: Sendable {
    private struct Node: Sendable {
        var keys: [UInt8] = []
        var next: [Int32] = []
        var value: Int32 = -1
    }
    private var nodes = [Node()]

    /// Inserts a prefix; returns the existing value when the prefix is already present.
    mutating func insert(_ bytes: [UInt8], _ value: Int32) -> Int32? {
        var n = 0
        for b in bytes {
            if let i = nodes[n].keys.firstIndex(of: b) {
                n = Int(nodes[n].next[i])
            } else {
                nodes.append(Node())
                let child = Int32(nodes.count - 1)
                nodes[n].keys.append(b)
                nodes[n].next.append(child)
                n = Int(child)
            }
        }
        if nodes[n].value >= 0 { return nodes[n].value }
        nodes[n].value = value
        return nil
    }

    /// The value of the longest stored prefix of `bytes`.
    func longestPrefix(of bytes: [UInt8]) -> Int32? {
        guard nodes.count > 1 else { return nil }
        var n = 0
        var best: Int32 = nodes[0].value
        for b in bytes {
            guard let i = nodes[n].keys.firstIndex(of: b) else { break }
            n = Int(nodes[n].next[i])
            if nodes[n].value >= 0 { best = nodes[n].value }
        }
        return best >= 0 ? best : nil
    }
}
