// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: filter-scan-list rounds, coalescing and claims.
@Suite struct FilterScanListDecisionTests {
    // Filter-scan-list runs when the scan list changes, coalesced to at most once per 5 s per
    // interface; when several helpers claim one network, highest confidence wins, then the earlier
    // registration.
    @Test func scanListChangesAreCoalescedToOneRoundPerFilterInterval() {
        var h = Harness()
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("A")]))
        #expect(h.sentInLastStep.map(\.command) == [.filterScanList])
        h.answer("alpha", .filterScanList)
        h.advance(by: .seconds(1))
        h.send(.scanListChanged("wlan0", [network("A"), network("B")]))
        #expect(h.sentInLastStep.isEmpty)
        h.advance(by: .seconds(1))
        h.send(.scanListChanged("wlan0", [network("A"), network("B"), network("C")]))
        #expect(h.sentInLastStep.isEmpty)
        h.advance(by: .milliseconds(2999))
        #expect(h.request("alpha", .filterScanList) == nil)
        h.advance(by: .milliseconds(1))
        #expect(h.request("alpha", .filterScanList)?.networks.map(\.ssid) == [SSID("A"), SSID("B"), SSID("C")])
    }

    @Test func filterCoalescingIsPerInterface() {
        var h = Harness()
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("A")]))
        h.send(.scanListChanged("wlan1", [network("B")]))
        #expect(h.request("alpha", .filterScanList, on: "wlan0") != nil)
        #expect(h.request("alpha", .filterScanList, on: "wlan1") != nil)
    }

    @Test func helperStillFilteringIsNotSentASecondFilterScanList() {
        var h = Harness()
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("A")]))
        h.advance(by: .seconds(5))
        h.send(.scanListChanged("wlan0", [network("B")]))
        #expect(h.pendingCommands().filter { $0.command == .filterScanList }.count == 1)
    }

    @Test func filterScanListOnlyGoesToHelpersThatAskedForIt() {
        var h = Harness()
        h.register("alpha", commands: [.evaluate])
        h.register("beta", commands: [.filterScanList])
        h.send(.scanListChanged("wlan0", [network("A")]))
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
    }

    @Test func conflictingClaimsResolveByConfidenceThenRegistrationOrder() {
        var h = Harness()
        h.register("first", name: "First")
        h.register("second", name: "Second")
        h.send(.scanListChanged("wlan0", [network("Tie"), network("Stronger")]))
        h.answer("second", .filterScanList, claims: [
            ScanClaim(ssid: SSID("Tie"), confidence: .low), ScanClaim(ssid: SSID("Stronger"), confidence: .high),
        ])
        h.answer("first", .filterScanList, claims: [
            ScanClaim(ssid: SSID("Tie"), confidence: .low), ScanClaim(ssid: SSID("Stronger"), confidence: .low),
        ])
        let names = h.core.machine(for: "wlan0")?.annotatedScanList.map(\.displayName)
        #expect(names == ["First", "Second"])
    }

    @Test func helperMissingTheFilterDeadlineKeepsItsEarlierClaims() {
        var h = Harness()
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("A")]))
        h.answer("alpha", .filterScanList, claims: [ScanClaim(ssid: SSID("A"), confidence: .low)])
        h.advance(by: .seconds(5))
        h.send(.scanListChanged("wlan0", [network("A"), network("B")]))
        #expect(h.request("alpha", .filterScanList) != nil)
        h.advance(by: .seconds(10))
        #expect(h.request("alpha", .filterScanList) == nil)
        #expect(h.core.machine(for: "wlan0")?.annotatedScanList.map(\.displayName) == ["alpha", nil])
    }

    @Test func invalidResultToFilterScanListClearsTheHelpersClaimsAndIsReported() {
        var h = Harness()
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("A")]))
        h.answer("alpha", .filterScanList, claims: [ScanClaim(ssid: SSID("A"), confidence: .low)])
        h.advance(by: .seconds(5))
        h.send(.scanListChanged("wlan0", [network("A"), network("B")]))
        h.answer("alpha", .filterScanList, .uiRequired, claims: [ScanClaim(ssid: SSID("B"), confidence: .high)])
        #expect(h.core.machine(for: "wlan0")?.annotatedScanList.map(\.displayName) == [nil, nil])
        #expect(h.protocolErrors.map(\.command) == [.filterScanList])
    }

    @Test func departedHelpersClaimsAreWithdrawnFromTheScanList() {
        var h = Harness()
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("A")]))
        h.answer("alpha", .filterScanList, claims: [ScanClaim(ssid: SSID("A"), confidence: .low)])
        #expect(h.core.machine(for: "wlan0")?.annotatedScanList.first?.displayName == "alpha")
        h.send(.helperLeft("alpha"))
        #expect(h.core.machine(for: "wlan0")?.annotatedScanList.first?.displayName == nil)
    }
}
