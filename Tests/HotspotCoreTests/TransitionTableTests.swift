// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// One test per row of DESIGN.md §3's transition table.
@Suite struct TransitionTableTests {
    /// Two helpers registered, wlan0 associated with "Cafe" and evaluating.
    static func evaluating() -> Harness {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        return h
    }

    /// "alpha" chose the network and authenticate is pending.
    static func authenticating() -> Harness {
        var h = evaluating()
        h.answer("alpha", .evaluate, confidence: .high)
        return h
    }

    static func authenticated() -> Harness {
        var h = authenticating()
        h.answer("alpha", .authenticate)
        return h
    }

    static func presentingUI() -> Harness {
        var h = authenticating()
        h.answer("alpha", .authenticate, .uiRequired)
        return h
    }

    // inactive | gains IP connectivity, no cached helper → evaluating; evaluate → every helper.
    @Test func gainingConnectivityWithoutCachedHelperEvaluatesEveryRegisteredHelperInParallel() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.register("scanner-only", commands: [.filterScanList])
        h.join()
        #expect(h.state() == .evaluating)
        #expect(h.sentInLastStep.map(\.helper) == ["alpha", "beta"])
        #expect(h.sentInLastStep.allSatisfy { $0.command == .evaluate && $0.network?.ssid == SSID("Cafe") })
    }

    // inactive | gains IP connectivity, cache names a registered helper → maintaining.
    @Test func gainingConnectivityOnCachedNetworkMaintainsWithCachedHelperAsJustJoined() {
        var h = Harness(restoring: PersistentState(cache: NetworkCache(entries: [key("Cafe"): .helper("beta")])))
        h.register("alpha")
        h.register("beta")
        h.join()
        #expect(h.state() == .maintaining)
        #expect(h.chosen() == "beta")
        let maintain = h.sentInLastStep
        #expect(maintain.count == 1)
        #expect(maintain.first?.command == .maintain)
        #expect(maintain.first?.helper == "beta")
        #expect(maintain.first?.network?.didJustJoin == true)
        #expect(maintain.first?.isChosenHelper == true)
    }

    @Test func cachedHelperThatIsNotRegisteredLeadsToEvaluation() {
        var h = Harness(restoring: PersistentState(cache: NetworkCache(entries: [key("Cafe"): .helper("gone")])))
        h.register("alpha")
        h.join()
        #expect(h.state() == .evaluating)
    }

    // any | loses IP connectivity → inactive; clear chosen helper and exclusions; cancel commands.
    @Test func losingConnectivityFromAnyStateGoesInactiveAndCancelsEverything() {
        let setups: [(HotspotState, Harness)] = [
            (.evaluating, Self.evaluating()),
            (.authenticating, Self.authenticating()),
            (.presentingUI, Self.presentingUI()),
            (.authenticated, Self.authenticated()),
        ]
        for (expected, setup) in setups {
            var h = setup
            #expect(h.state() == expected)
            h.send(.connectivityLost("wlan0"))
            #expect(h.state() == .inactive)
            #expect(h.chosen() == nil)
            #expect(h.pendingCommands().isEmpty)
            #expect(!h.maintainTimerArmed())
            #expect(h.core.machine(for: "wlan0")?.outstandingCommands.isEmpty == true)
        }
    }

    @Test func losingConnectivityClearsTheExclusionList() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .unsupportedNetwork)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers == ["alpha"])
        h.send(.connectivityLost("wlan0"))
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers.isEmpty == true)
        h.join()
        #expect(h.sentInLastStep.map(\.helper) == ["alpha", "beta"])
    }

    // evaluating | all answered none (or timed out) → authenticated; cache "not captive".
    @Test func everyHelperAnsweringNoneAuthenticatesWithoutHelperAndCachesNotCaptive() {
        var h = Self.evaluating()
        h.answer("alpha", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .evaluating)
        h.answer("beta", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
        #expect(!h.maintainTimerArmed())
        #expect(h.core.persistentState.cache[key("Cafe")] == .notCaptive)
        // Only the cache changed: it may be saved after the other effects, off the join's path.
        #expect(h.last.contains(.persist(h.core.persistentState, beforeOtherEffects: false)))
    }

    @Test func helpersSilentUntilTheDeadlineCountAsNone() {
        var h = Self.evaluating()
        h.answer("alpha", .evaluate, confidence: Confidence.none)
        h.advance(by: .seconds(44))
        #expect(h.state() == .evaluating)
        h.advance(by: .seconds(1))
        #expect(h.state() == .authenticated)
        #expect(h.core.persistentState.cache[key("Cafe")] == .notCaptive)
    }

    // evaluating | ≥1 answered low/high → authenticating; cache the chosen helper.
    @Test func aClaimMovesToAuthenticatingSendsAuthenticateAndCachesTheHelper() {
        var h = Self.evaluating()
        h.answer("alpha", .evaluate, confidence: Confidence.none)
        h.answer("beta", .evaluate, confidence: .low)
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "beta")
        #expect(h.sentInLastStep.map(\.command) == [.authenticate])
        #expect(h.sentInLastStep.first?.helper == "beta")
        #expect(h.core.persistentState.cache[key("Cafe")] == .helper("beta"))
    }

    // authenticating | authenticate success → authenticated; arm maintain timer.
    @Test func authenticateSuccessAuthenticatesAndArmsTheMaintainTimer() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate)
        #expect(h.state() == .authenticated)
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(300)])
    }

    // authenticating | authenticate ui-required → presenting-ui; emit UIRequired.
    @Test func authenticateUIRequiredPresentsUIAndEmitsUIRequired() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .uiRequired)
        #expect(h.state() == .presentingUI)
        let requests = h.last.compactMap { if case .uiRequired(let r) = $0 { r } else { nil } }
        #expect(requests.map(\.helper) == ["alpha"])
        #expect(requests.first?.helperDisplayName == "alpha")
        #expect(h.pendingCommands().isEmpty)
    }

    // authenticating / presenting-ui | unsupported-network → evaluating; exclude that helper.
    @Test func authenticateUnsupportedNetworkExcludesTheHelperAndReevaluatesTheRest() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .unsupportedNetwork)
        #expect(h.state() == .evaluating)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers == ["alpha"])
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
        #expect(h.sentInLastStep.map(\.command) == [.evaluate])
        #expect(h.core.persistentState.cache[key("Cafe")] == nil)
    }

    @Test func presentUIUnsupportedNetworkExcludesTheHelperAndReevaluatesTheRest() {
        var h = Self.presentingUI()
        h.send(.presentUIRequested("wlan0"))
        h.answer("alpha", .presentUI, .unsupportedNetwork)
        #expect(h.state() == .evaluating)
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
    }

    // authenticating | authenticate temporary-failure → authenticate again after a backoff; past
    // the bound → failure → inactive; disconnect only.
    @Test func authenticateTemporaryFailurePastItsRetriesDisconnectsAndLeavesAutoconnectAlone() {
        var h = Harness(HotspotConfiguration(authenticateRetries: 0))
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, confidence: .high)
        h.answer("alpha", .authenticate, .temporaryFailure)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
        #expect(!h.last.contains { if case .disableAutoconnect = $0 { true } else { false } })
        let states = h.last.compactMap { if case .publishState(let s) = $0 { s.state } else { nil } }
        #expect(states == [.failure, .inactive])
    }

    @Test func presentUITemporaryFailureDisconnectsAndLeavesAutoconnectAlone() {
        var h = Self.presentingUI()
        h.send(.presentUIRequested("wlan0"))
        h.answer("alpha", .presentUI, .temporaryFailure)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
        #expect(h.core.persistentState.autoconnectDisabled.isEmpty)
    }

    // authenticating / presenting-ui | failure or any other result → disconnect; autoconnect off.
    @Test func authenticateFailureDisconnectsAndSwitchesAutoconnectOff() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .failure)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
        #expect(h.core.persistentState.autoconnectDisabled == ["conn-cafe": key("Cafe")])
        // The ledger changed: it must be on disk before NetworkManager hears disableAutoconnect.
        #expect(h.last.contains(.persist(h.core.persistentState, beforeOtherEffects: true)))
    }

    @Test func authenticateCommandNotRecognizedCountsAsFailure() {
        var h = Self.authenticating()
        h.answer("alpha", .authenticate, .commandNotRecognized)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
        #expect(h.protocolErrors.isEmpty)
    }

    @Test func presentUIFailureDisconnectsAndSwitchesAutoconnectOff() {
        var h = Self.presentingUI()
        h.send(.presentUIRequested("wlan0"))
        h.answer("alpha", .presentUI, .failure)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
    }

    // presenting-ui | present-ui (sent when the user acts; no deadline) success → authenticated.
    @Test func presentUIGoesOutOnlyWhenTheUserActsAndHasNoDeadline() {
        var h = Self.presentingUI()
        #expect(h.pendingCommands().isEmpty)
        h.send(.presentUIRequested("wlan0"))
        let sent = h.sentInLastStep
        #expect(sent.map(\.command) == [.presentUI])
        #expect(sent.first?.deadline == nil)
        h.advance(by: .seconds(3600))
        #expect(h.state() == .presentingUI)
        #expect(h.request("alpha", .presentUI) != nil)
    }

    @Test func presentUISuccessAuthenticatesAndArmsTheMaintainTimer() {
        var h = Self.presentingUI()
        h.send(.presentUIRequested("wlan0"))
        h.answer("alpha", .presentUI)
        #expect(h.state() == .authenticated)
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(300)])
    }

    // authenticated | maintain timer fires → maintaining; maintain → chosen, did-just-join false.
    @Test func maintainTimerFiringSendsMaintainWithoutDidJustJoin() {
        var h = Self.authenticated()
        h.advance(by: .seconds(299))
        #expect(h.state() == .authenticated)
        h.advance(by: .seconds(1))
        #expect(h.state() == .maintaining)
        let maintain = h.request("alpha", .maintain)
        #expect(maintain?.network?.didJustJoin == false)
        #expect(maintain?.deadline == .seconds(45))
    }

    // maintaining | maintain success → authenticated; re-arm timer.
    @Test func maintainSuccessReturnsToAuthenticatedAndRearmsTheTimer() {
        var h = Self.authenticated()
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain)
        #expect(h.state() == .authenticated)
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(300)])
        h.advance(by: .seconds(300))
        #expect(h.state() == .maintaining)
    }

    // maintaining | maintain authentication-required → authenticating; authenticate → chosen.
    @Test func maintainAuthenticationRequiredAuthenticatesWithTheChosenHelper() {
        var h = Self.authenticated()
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain, .authenticationRequired)
        #expect(h.state() == .authenticating)
        #expect(h.sentInLastStep.map(\.command) == [.authenticate])
        #expect(h.sentInLastStep.first?.helper == "alpha")
    }

    // maintaining | maintain anything else → evaluating.
    @Test func maintainFailureReevaluatesEveryHelper() {
        var h = Self.authenticated()
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain, .failure)
        #expect(h.state() == .evaluating)
        #expect(h.chosen() == nil)
        #expect(h.sentInLastStep.map(\.helper) == ["alpha", "beta"])
        #expect(!h.last.contains(.disconnect("wlan0")))
    }

    // authenticated | Logoff (by the chosen helper, or a permitted user) → logging-off.
    @Test func logoffByTheChosenHelperSendsLogoffToIt() {
        var h = Self.authenticated()
        h.send(.logoffRequested("wlan0", by: .helper("alpha")))
        #expect(h.state() == .loggingOff)
        #expect(h.sentInLastStep.map(\.command) == [.logoff])
        #expect(!h.maintainTimerArmed())
    }

    @Test func logoffByAPermittedUserSendsLogoffToTheChosenHelper() {
        var h = Self.authenticated()
        h.send(.logoffRequested("wlan0", by: .user))
        #expect(h.state() == .loggingOff)
        #expect(h.sentInLastStep.first?.helper == "alpha")
    }

    @Test func logoffByAnotherHelperIsDeclined() {
        var h = Self.authenticated()
        h.send(.logoffRequested("wlan0", by: .helper("beta")))
        #expect(h.state() == .authenticated)
        #expect(h.last.contains { if case .requestDeclined(.logoff("wlan0", _)) = $0 { true } else { false } })
    }

    @Test func logoffOutsideAuthenticatedIsDeclined() {
        var h = Self.authenticating()
        h.send(.logoffRequested("wlan0", by: .user))
        #expect(h.state() == .authenticating)
        #expect(h.last.contains { if case .requestDeclined(.logoff) = $0 { true } else { false } })
    }

    // logging-off | any answer, or the deadline → inactive; disconnect.
    @Test func logoffAnswerDisconnectsAndGoesInactive() {
        var h = Self.authenticated()
        h.send(.logoffRequested("wlan0", by: .user))
        h.answer("alpha", .logoff, .failure)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
        #expect(h.core.persistentState.autoconnectDisabled.isEmpty)
    }

    @Test func logoffDeadlineDisconnectsAndGoesInactive() {
        var h = Self.authenticated()
        h.send(.logoffRequested("wlan0", by: .user))
        h.advance(by: .seconds(45))
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
    }

    // any | filter-scan-list (scan list changed) → unchanged; annotate display name and password.
    @Test func scanListChangeAnnotatesClaimedNetworksWithoutChangingState() {
        var h = Self.authenticating()
        h.send(.scanListChanged("wlan0", [network("Cafe", bssid: "01"), network("Home", security: .personal, bssid: "02")]))
        #expect(h.state() == .authenticating)
        h.answer("beta", .filterScanList, claims: [ScanClaim(ssid: SSID("Home"), confidence: .low, password: Password("hunter22"))])
        h.answer("alpha", .filterScanList, claims: [])
        #expect(h.state() == .authenticating)
        let list = h.core.machine(for: "wlan0")?.annotatedScanList ?? []
        #expect(list.map(\.displayName) == [nil, "beta"])
        #expect(list.map(\.hasPassword) == [false, true])
        #expect(h.core.password(for: SSID("Home"), on: "wlan0") == Password("hunter22"))
        #expect(h.log.contains { if case .publishScanList("wlan0", let list) = $0 { list.last?.displayName == "beta" } else { false } })
    }

    @Test func aPasswordClaimedForOneAccessPointIsFoundBySSID() {
        var h = Self.authenticating()
        h.send(.scanListChanged("wlan0", [network("Home", security: .personal, bssid: "02")]))
        h.answer("beta", .filterScanList, claims: [ScanClaim(ssid: SSID("Home"), bssid: "02", confidence: .high, password: Password("hunter22"))])
        h.answer("alpha", .filterScanList, claims: [])
        #expect(h.core.password(for: SSID("Home"), on: "wlan0") == Password("hunter22"))
        #expect(h.core.password(for: SSID("Elsewhere"), on: "wlan0") == nil)
    }
}
