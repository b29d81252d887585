// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// A store in memory, as the daemon's file store would behave.
final class MemoryStore: HotspotStateStore {
    let bytes: [UInt8]?
    init(_ bytes: [UInt8]?) { self.bytes = bytes }
    func load() throws -> [UInt8]? { bytes }
    func save(_ bytes: [UInt8]) throws {}
}

@Suite struct StateStoreTests {
    static let sample = PersistentState(
        cache: NetworkCache(entries: [
            key("Cafe"): .helper("com.example.cafe helper"),
            key("Home", .personal): .notCaptive,
            NetworkKey(ssid: SSID(bytes: [0x00, 0xFF, 0x20]), securityClass: .enterprise): .helper("-"),
            NetworkKey(ssid: SSID(bytes: []), securityClass: .wep): .notCaptive,
        ]),
        autoconnectDisabled: ["5f0c-uuid": key("Cafe"), "conn %with spaces\n": key("Home", .personal)]
    )

    @Test func encodingThenDecodingGivesBackTheSameState() throws {
        let decoded = try StateStoreCodec.decode(StateStoreCodec.encode(Self.sample))
        #expect(decoded.state == Self.sample)
        #expect(decoded.damaged.isEmpty)
    }

    @Test func equalStatesEncodeToEqualBytes() {
        let reordered = PersistentState(cache: NetworkCache(entries: Self.sample.cache.entries), autoconnectDisabled: Self.sample.autoconnectDisabled)
        #expect(StateStoreCodec.encode(reordered) == StateStoreCodec.encode(Self.sample))
        #expect(String(decoding: StateStoreCodec.encode(Self.sample), as: UTF8.self).hasPrefix("hotspot-helper-state 1\n"))
    }

    @Test func damagedLinesAreReportedAndEveryValidEntryIsKept() throws {
        let text = """
            hotspot-helper-state 1
            network 43616665 open helper alpha
            network 4g open helper beta
            network 486f6d65 personal not-captive
            network 4c6962 wpa9 not-captive
            autoconnect-off conn-1 43616665 open
            autoconnect-off conn-2
            garbage that is not an entry
            network 43616665 open helper gamma
            \u{0}\u{1}binary
            # a comment
            network 4c6962 enterprise helper %zz
            """
        let loaded = try StateStoreCodec.decode(Array(text.utf8))
        #expect(loaded.state.cache.entries == [key("Cafe"): .helper("alpha"), key("Home", .personal): .notCaptive])
        #expect(loaded.state.autoconnectDisabled == ["conn-1": key("Cafe")])
        #expect(loaded.damaged.map(\.line) == [3, 5, 7, 8, 9, 10, 12])
        #expect(loaded.damaged[1].problem.contains("unknown security class in field 3"))
    }

    /// A forged or damaged line reaches the journal by number and problem only.
    @Test func damagedLineIsReportedWithoutItsContentSoItCannotForgeALogLine() throws {
        let text = """
            hotspot-helper-state 1
            network 4c6962 SECRET-wpa9 not-captive
            autoconnect-off conn-1 43616665 SECRET-class
            SECRET\rNov 22 hotspot-helperd: forged
            network 43616665 open helper alpha
            network 43616665 open helper SECRET-duplicate
            """
        let loaded = try StateStoreCodec.decode(Array(text.utf8))
        #expect(loaded.damaged.map(\.line) == [2, 3, 4, 6])
        for entry in loaded.damaged {
            #expect(!entry.description.contains("SECRET"), "\(entry)")
            #expect(!entry.description.contains("\r"))
        }
    }

    @Test func missingHeaderIsReportedAndTheEntriesAreStillRead() throws {
        let loaded = try StateStoreCodec.decode(Array("network 43616665 open not-captive\n".utf8))
        #expect(loaded.state.cache[key("Cafe")] == .notCaptive)
        #expect(loaded.damaged.map(\.line) == [1])
    }

    @Test func undecodableBytesDamageOnlyTheirLine() throws {
        var bytes = Array("hotspot-helper-state 1\nnetwork 43616665 open helper a\n".utf8)
        bytes += [0xC3, 0x28, 0x0A]
        bytes += Array("network 486f6d65 open not-captive".utf8)
        let loaded = try StateStoreCodec.decode(bytes)
        #expect(loaded.state.cache.entries.count == 2)
        #expect(loaded.damaged.map(\.line) == [3])
    }

    @Test func storeFromANewerFormatIsRefusedUntouched() {
        #expect(throws: StateStoreError.unsupportedVersion(found: 2, supported: 1)) {
            try StateStoreCodec.decode(Array("hotspot-helper-state 2\nnetwork 43616665 open not-captive\n".utf8))
        }
    }

    @Test func emptyStoreLoadsAnEmptyState() throws {
        let loaded = try MemoryStore(nil).loadState()
        #expect(loaded.state == PersistentState())
        #expect(loaded.damaged.isEmpty)
    }

    @Test func restoredCacheSendsARejoinStraightToMaintaining() throws {
        var first = TransitionTableTests.authenticated()
        let persisted = first.log.compactMap { if case .persist(let state, _) = $0 { state } else { nil } }.last!
        first.send(.connectivityLost("wlan0"))
        let restored = try MemoryStore(StateStoreCodec.encode(persisted)).loadState()
        var second = Harness(restoring: restored.state)
        second.register("alpha")
        second.join()
        #expect(second.state() == .maintaining)
        #expect(second.chosen() == "alpha")
    }
}
