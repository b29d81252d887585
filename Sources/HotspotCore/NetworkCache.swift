// SPDX-License-Identifier: Apache-2.0
/// What the cache remembers about a network.
public enum CacheVerdict: Hashable, Sendable {
    /// This helper handles the network; a re-join goes straight to maintaining with it.
    case helper(HelperID)
    /// No helper claimed the network. A re-join still evaluates (Apple's rule), so a newly
    /// installed helper gets its chance; the entry is there for people and tools.
    case notCaptive
}

/// Remembers, per network, which helper was chosen or that it is not captive.
public struct NetworkCache: Hashable, Sendable {
    /// Every entry.
    public private(set) var entries: [NetworkKey: CacheVerdict]

    /// Creates a cache with the given entries.
    public init(entries: [NetworkKey: CacheVerdict] = [:]) {
        self.entries = entries
    }

    /// The entry for a network.
    public subscript(key: NetworkKey) -> CacheVerdict? {
        entries[key]
    }

    /// Records a verdict; returns whether the cache changed.
    @discardableResult
    public mutating func record(_ verdict: CacheVerdict, for key: NetworkKey) -> Bool {
        guard entries[key] != verdict else { return false }
        entries[key] = verdict
        return true
    }

    /// Removes a network's entry; returns whether there was one.
    @discardableResult
    public mutating func remove(_ key: NetworkKey) -> Bool {
        entries.removeValue(forKey: key) != nil
    }

    /// Removes the entries for an SSID under every security class; returns whether any existed.
    @discardableResult
    public mutating func forget(_ ssid: SSID) -> Bool {
        var changed = false
        for securityClass in SecurityClass.allCases {
            changed = remove(NetworkKey(ssid: ssid, securityClass: securityClass)) || changed
        }
        return changed
    }
}

/// Everything the core persists: the network cache, and the connections whose autoconnect the core
/// switched off (with their network, so forgetting the network can switch it back on).
public struct PersistentState: Hashable, Sendable {
    /// The network cache.
    public var cache: NetworkCache
    /// Connections whose autoconnect the core switched off, and the network each belongs to.
    public var autoconnectDisabled: [ConnectionID: NetworkKey]

    /// Creates a state.
    public init(cache: NetworkCache = NetworkCache(), autoconnectDisabled: [ConnectionID: NetworkKey] = [:]) {
        self.cache = cache
        self.autoconnectDisabled = autoconnectDisabled
    }
}
