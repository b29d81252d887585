// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: the network cache, exclusions, forgetting and persistence.
@Suite struct CacheDecisionTests {
    @Test func notCaptiveCacheEntryStillEvaluatesOnRejoin() {
        var h = Harness(restoring: PersistentState(cache: NetworkCache(entries: [key("Cafe"): .notCaptive])))
        h.register("alpha")
        h.join()
        #expect(h.state() == .evaluating)
    }

    @Test func exhaustingEveryHelperByExclusionAuthenticatesWithoutCachingNotCaptive() {
        var h = Harness()
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, confidence: .high)
        h.answer("alpha", .authenticate, .unsupportedNetwork)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
        #expect(h.core.persistentState.cache[key("Cafe")] == nil)
    }

    // Users can forget a network (clear cache, exclusions, and the autoconnect we switched off).
    @Test func forgettingANetworkClearsItsCacheExclusionsAndReenablesAutoconnect() {
        var h = TransitionTableTests.authenticating()
        h.answer("alpha", .authenticate, .failure)
        h.join()
        h.answer("alpha", .maintain, .authenticationRequired)
        h.answer("alpha", .authenticate, .unsupportedNetwork)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers == ["alpha"])
        h.send(.forgetNetwork(SSID("Cafe")))
        #expect(h.last.contains(.enableAutoconnect("conn-cafe")))
        #expect(h.core.persistentState.autoconnectDisabled.isEmpty)
        #expect(h.core.persistentState.cache.entries.isEmpty)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers.isEmpty == true)
        // Forgetting re-enables autoconnect: the emptied ledger is saved before NetworkManager hears it.
        #expect(h.last.contains(.persist(h.core.persistentState, beforeOtherEffects: true)))
    }

    @Test func persistIsEmittedOnlyWhenThePersistentStateChanges() {
        var h = TransitionTableTests.authenticated()
        let persists = { (h: Harness) in h.log.filter { if case .persist = $0 { true } else { false } }.count }
        #expect(persists(h) == 1)
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain)
        h.send(.connectivityLost("wlan0"))
        h.join()
        #expect(persists(h) == 1)
    }
}
