import Testing

@testable import HotspotCore

/// One test per decision listed under DESIGN.md §3's table.
@Suite struct DecisionTests {
    // Deadline 45 s for evaluate, authenticate, maintain and logoff; present-ui has none.
    @Test func evaluateAuthenticateMaintainAndLogoffHaveAFortyFiveSecondDeadline() {
        var h = TransitionTableTests.evaluating()
        #expect(h.sentInLastStep.map(\.deadline) == [.seconds(45), .seconds(45)])
        #expect(h.armedTimers(.commandDeadline(h.sentInLastStep[0].token)) == [h.now + .seconds(45)])
        h.answer("alpha", .evaluate, confidence: .high)
        #expect(h.request("alpha", .authenticate)?.deadline == .seconds(45))
        h.answer("alpha", .authenticate)
        h.advance(by: .seconds(300))
        #expect(h.request("alpha", .maintain)?.deadline == .seconds(45))
        h.answer("alpha", .maintain)
        h.send(.logoffRequested("wlan0", by: .user))
        #expect(h.request("alpha", .logoff)?.deadline == .seconds(45))
    }

    @Test func everyTimingIsConfigurable() {
        let configuration = HotspotConfiguration(
            maintainInterval: .seconds(60), commandDeadline: .seconds(10), filterScanListInterval: .seconds(1),
            filterScanListDeadline: .seconds(3), unresponsiveThreshold: 1, unresponsiveEvaluateDeadline: .milliseconds(500))
        var h = Harness(configuration)
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("Cafe")]))
        #expect(h.request("alpha", .filterScanList)?.deadline == .seconds(3))
        h.join()
        #expect(h.request("alpha", .evaluate)?.deadline == .seconds(10))
        h.advance(by: .seconds(10))
        #expect(h.core.isUnresponsive("alpha"))
        h.send(.connectivityLost("wlan0"))
        h.join()
        #expect(h.request("alpha", .evaluate)?.deadline == .milliseconds(500))
        h.answer("alpha", .evaluate, confidence: .high)
        h.answer("alpha", .authenticate)
        #expect(h.armedTimers(.maintain) == [h.now + .seconds(60)])
    }

    // A helper that does not answer evaluate counts as none; evaluation ends as soon as a high
    // arrives or every helper has answered.
    @Test func firstHighConfidenceAnswerEndsEvaluationAndCancelsTheOthers() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.register("gamma")
        h.join()
        h.answer("beta", .evaluate, confidence: .low)
        h.answer("gamma", .evaluate, confidence: .high)
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "gamma")
        #expect(h.request("alpha", .evaluate) == nil)
        #expect(h.last.contains { if case .cancelCommand = $0 { true } else { false } })
        #expect(h.pendingCommands().map(\.command) == [.authenticate])
    }

    @Test func highestConfidenceWinsOnceEveryHelperAnswered() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        h.answer("alpha", .evaluate, confidence: .low)
        #expect(h.state() == .evaluating)
        h.answer("beta", .evaluate, confidence: Confidence.none)
        #expect(h.chosen() == "alpha")
    }

    @Test func tiedConfidenceGoesToTheEarliestAnswer() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        h.answer("beta", .evaluate, confidence: .low)
        h.answer("alpha", .evaluate, confidence: .low)
        #expect(h.chosen() == "beta")
    }

    @Test func evaluationEndsAsSoonAsEveryHelperAnsweredWithoutWaitingForTheDeadline() {
        var h = Harness()
        h.register("alpha")
        h.register("beta")
        h.join()
        h.advance(by: .seconds(1))
        h.answer("alpha", .evaluate, confidence: .low)
        h.answer("beta", .evaluate, confidence: .low)
        #expect(h.state() == .authenticating)
        #expect(h.now == .epoch + .seconds(1))
    }

    @Test func lowClaimIsChosenWhenTheSilentHelperMissesItsDeadline() {
        var h = Harness()
        h.register("alpha")
        h.register("silent")
        h.join()
        h.answer("alpha", .evaluate, confidence: .low)
        h.advance(by: .seconds(45))
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "alpha")
    }

    @Test func joiningWithNoEvaluatingHelperAuthenticatesWithoutCaching() {
        var h = Harness()
        h.register("scanner", commands: [.filterScanList])
        h.join()
        #expect(h.state() == .authenticated)
        #expect(h.core.persistentState.cache.entries.isEmpty)
    }

    // A helper that misses deadlines repeatedly is marked unresponsive and is given a short
    // deadline until it answers again.
    @Test func helperMissingThreeDeadlinesInARowIsMarkedUnresponsiveAndGetsAShortEvaluateDeadline() {
        var h = Harness()
        h.register("alpha")
        h.register("sluggish")
        for round in 1...3 {
            h.join()
            h.answer("alpha", .evaluate, confidence: Confidence.none)
            #expect(!h.core.isUnresponsive("sluggish"), "marked too early, in round \(round)")
            h.advance(by: .seconds(45))
            h.send(.connectivityLost("wlan0"))
        }
        #expect(h.core.isUnresponsive("sluggish"))
        #expect(h.logContains(.helperResponsivenessChanged("sluggish", isResponsive: false)))
        h.join()
        #expect(h.request("sluggish", .evaluate)?.deadline == .seconds(2))
        #expect(h.request("alpha", .evaluate)?.deadline == .seconds(45))
        h.answer("alpha", .evaluate, confidence: .low)
        h.advance(by: .seconds(2))
        #expect(h.state() == .authenticating)
    }

    @Test func answeringInBetweenResetsTheCountOfMissedDeadlines() {
        var h = Harness()
        h.register("flaky")
        for _ in 1...2 {
            h.join()
            h.advance(by: .seconds(45))
            h.send(.connectivityLost("wlan0"))
        }
        h.join()
        h.answer("flaky", .evaluate, confidence: Confidence.none)
        h.send(.connectivityLost("wlan0"))
        h.join()
        h.advance(by: .seconds(45))
        #expect(!h.core.isUnresponsive("flaky"))
    }

    @Test func unresponsiveHelperRecoversAsSoonAsItAnswersEvenLate() {
        var h = Harness(HotspotConfiguration(unresponsiveThreshold: 1))
        h.register("slow")
        h.join()
        let token = h.request("slow", .evaluate)!.token
        h.advance(by: .seconds(45))
        #expect(h.core.isUnresponsive("slow"))
        h.send(.helperAnswered(HelperAnswer(token: token, helper: "slow", result: .success, confidence: Confidence.none)))
        #expect(!h.core.isUnresponsive("slow"))
        #expect(h.logContains(.helperResponsivenessChanged("slow", isResponsive: true)))
        h.send(.connectivityLost("wlan0"))
        h.join()
        #expect(h.request("slow", .evaluate)?.deadline == .seconds(45))
    }

    // No answer to authenticate, present-ui or maintain counts as temporary-failure.
    @Test func authenticateDeadlineCountsAsTemporaryFailureAndKeepsAutoconnect() {
        var h = TransitionTableTests.authenticating()
        h.advance(by: .seconds(45))
        #expect(h.state() == .inactive)
        #expect(h.logContains(.disconnect("wlan0")))
        #expect(h.core.persistentState.autoconnectDisabled.isEmpty)
        #expect(!h.log.contains { if case .disableAutoconnect = $0 { true } else { false } })
    }

    @Test func maintainDeadlineReevaluatesWithoutTouchingAutoconnect() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.advance(by: .seconds(45))
        #expect(h.state() == .evaluating)
        #expect(h.core.persistentState.autoconnectDisabled.isEmpty)
    }

    @Test func daemonCallTimingOutEndsTheCommandLikeItsDeadline() {
        var h = TransitionTableTests.authenticating()
        let token = h.request("alpha", .authenticate)!.token
        h.send(.helperTimedOut(token))
        #expect(h.state() == .inactive)
        #expect(h.timers.isEmpty)
        #expect(!h.log.contains { if case .disableAutoconnect = $0 { true } else { false } })
    }

    // A result not valid for the command counts as failure and is logged as a protocol error.
    @Test func uiRequiredToMaintainCountsAsFailureAndIsReportedAsProtocolError() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain, .uiRequired)
        #expect(h.state() == .evaluating)
        #expect(h.protocolErrors.map(\.helper) == ["alpha"])
        #expect(h.protocolErrors.first?.command == .maintain)
    }

    @Test func authenticationRequiredToAuthenticateCountsAsFailureAndSwitchesAutoconnectOff() {
        var h = TransitionTableTests.authenticating()
        h.answer("alpha", .authenticate, .authenticationRequired)
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
        #expect(h.protocolErrors.count == 1)
    }

    @Test func temporaryFailureToMaintainIsAProtocolErrorNotATemporaryFailure() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.answer("alpha", .maintain, .temporaryFailure)
        #expect(h.state() == .evaluating)
        #expect(h.protocolErrors.count == 1)
    }

    @Test func invalidResultToEvaluateCountsAsNone() {
        var h = Harness()
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, .uiRequired, confidence: .high)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
        #expect(h.protocolErrors.count == 1)
    }

    @Test func evaluateSuccessWithoutConfidenceCountsAsNoneAndIsReported() {
        var h = Harness()
        h.register("alpha")
        h.join()
        h.answer("alpha", .evaluate, .success, confidence: nil)
        #expect(h.state() == .authenticated)
        #expect(h.protocolErrors.map(\.problem) == ["evaluate answered success without a confidence"])
    }

    @Test func malformedReplyCountsAsFailureAndIsReported() {
        var h = TransitionTableTests.authenticating()
        let token = h.request("alpha", .authenticate)!.token
        h.send(.helperAnswerMalformed(token, helper: "alpha", problem: "unknown result 'ok'"))
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disableAutoconnect("conn-cafe")))
        #expect(h.protocolErrors.map(\.problem) == ["unknown result 'ok'"])
    }

    // A helper that leaves mid-command fails that command at once and is excluded; the machine
    // re-evaluates among the rest.
    @Test func chosenHelperLeavingMidAuthenticateIsExcludedAndTheRestReevaluate() {
        var h = TransitionTableTests.authenticating()
        let token = h.request("alpha", .authenticate)!.token
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        #expect(h.last.contains(.cancelCommand(token)))
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers == ["alpha"])
        #expect(!h.last.contains(.disconnect("wlan0")))
    }

    @Test func chosenHelperLeavingMidMaintainIsExcludedAndTheRestReevaluate() {
        var h = TransitionTableTests.authenticated()
        h.advance(by: .seconds(300))
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers == ["alpha"])
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
    }

    @Test func helperLeavingMidEvaluateCountsAsNoneAtOnce() {
        var h = TransitionTableTests.evaluating()
        h.answer("beta", .evaluate, confidence: .low)
        h.send(.helperUnregistered("alpha"))
        #expect(h.state() == .authenticating)
        #expect(h.chosen() == "beta")
        #expect(h.now == .epoch)
    }

    @Test func helperThatClaimedAndLeftBeforeTheVerdictIsNotChosen() {
        var h = TransitionTableTests.evaluating()
        h.answer("alpha", .evaluate, confidence: .low)
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        h.answer("beta", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
    }

    @Test func chosenHelperLeavingWhileTheUserIsAwaitedReevaluatesTheRest() {
        var h = TransitionTableTests.presentingUI()
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .evaluating)
        #expect(h.sentInLastStep.map(\.helper) == ["beta"])
    }

    @Test func chosenHelperLeavingWhileAuthenticatedStopsMaintainingButKeepsTheSession() {
        var h = TransitionTableTests.authenticated()
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == nil)
        #expect(!h.maintainTimerArmed())
    }

    @Test func chosenHelperReturningWhileAuthenticatedResumesMaintaining() {
        var h = TransitionTableTests.authenticated()
        h.send(.helperLeft("alpha"))
        h.register("alpha")
        #expect(h.chosen() == "alpha")
        #expect(h.maintainTimerArmed())
    }

    @Test func chosenHelperLeavingMidLogoffDisconnectsAtOnce() {
        var h = TransitionTableTests.authenticated()
        h.send(.logoffRequested("wlan0", by: .user))
        h.send(.helperLeft("alpha"))
        #expect(h.state() == .inactive)
        #expect(h.last.contains(.disconnect("wlan0")))
    }

    // Cache key: SSID bytes plus security class; roaming between BSSIDs keeps the helper.
    @Test func roamingToAnotherAccessPointOfTheNetworkKeepsTheHelperAndState() {
        var h = TransitionTableTests.authenticated()
        h.join(bssid: "aa:bb:cc:00:00:02")
        #expect(h.state() == .authenticated)
        #expect(h.chosen() == "alpha")
        #expect(h.core.machine(for: "wlan0")?.network?.bssid == "aa:bb:cc:00:00:02")
        #expect(h.maintainTimerArmed())
    }

    @Test func theSameSSIDWithAnotherSecurityClassIsAnotherNetwork() {
        var h = TransitionTableTests.authenticated()
        h.send(.connectivityLost("wlan0"))
        h.join(security: .personal)
        #expect(h.state() == .evaluating)
        h.send(.connectivityLost("wlan0"))
        h.join(security: .open)
        #expect(h.state() == .maintaining)
    }

    @Test func ssidsAreComparedAsBytes() {
        var h = Harness(restoring: PersistentState(cache: NetworkCache(entries: [
            NetworkKey(ssid: SSID(bytes: [0x43, 0x61, 0x66, 0xE9]), securityClass: .open): .helper("alpha")
        ])))
        h.register("alpha")
        h.join("wlan0", "Café")
        #expect(h.state() == .evaluating)
        h.send(.connectivityLost("wlan0"))
        h.send(.connectivityGained("wlan0", network: Network(ssid: SSID(bytes: [0x43, 0x61, 0x66, 0xE9])), connection: "c"))
        #expect(h.state() == .maintaining)
    }

    @Test func joiningAnotherNetworkWithoutLosingConnectivityStartsAFreshAssociation() {
        var h = TransitionTableTests.authenticating()
        h.answer("alpha", .authenticate, .unsupportedNetwork)
        h.join("wlan0", "Library", connection: "conn-library")
        #expect(h.state() == .evaluating)
        #expect(h.core.machine(for: "wlan0")?.excludedHelpers.isEmpty == true)
        #expect(h.pendingCommands().map(\.helper) == ["alpha", "beta"])
    }

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
        #expect(h.last.contains(.persist(h.core.persistentState)))
    }

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

    @Test func departedHelpersClaimsAreWithdrawnFromTheScanList() {
        var h = Harness()
        h.register("alpha")
        h.send(.scanListChanged("wlan0", [network("A")]))
        h.answer("alpha", .filterScanList, claims: [ScanClaim(ssid: SSID("A"), confidence: .low)])
        #expect(h.core.machine(for: "wlan0")?.annotatedScanList.first?.displayName == "alpha")
        h.send(.helperLeft("alpha"))
        #expect(h.core.machine(for: "wlan0")?.annotatedScanList.first?.displayName == nil)
    }

    // One state machine per Wi-Fi interface; several interfaces work independently.
    @Test func interfacesRunIndependently() {
        var h = Harness()
        h.register("alpha")
        h.join("wlan0", "Cafe")
        h.join("wlan1", "Library", connection: "conn-library")
        h.answer("alpha", .evaluate, confidence: .high, on: "wlan0")
        #expect(h.state("wlan0") == .authenticating)
        #expect(h.state("wlan1") == .evaluating)
        h.send(.connectivityLost("wlan1"))
        #expect(h.state("wlan0") == .authenticating)
        #expect(h.request("alpha", .authenticate, on: "wlan0") != nil)
    }

    @Test func removingAnInterfaceForgetsItsMachineAndCommands() {
        var h = TransitionTableTests.authenticating()
        h.send(.scanListChanged("wlan0", [network("A")]))
        h.send(.interfaceRemoved("wlan0"))
        #expect(h.core.machine(for: "wlan0") == nil)
        #expect(h.pendingCommands().isEmpty)
        #expect(h.timers.isEmpty)
    }

    // Our own decisions beyond §3.
    @Test func userActingAgainSupersedesAnUnansweredPresentUI() {
        var h = TransitionTableTests.presentingUI()
        h.send(.presentUIRequested("wlan0"))
        let first = h.request("alpha", .presentUI)!.token
        h.send(.presentUIRequested("wlan0"))
        #expect(h.last.contains(.cancelCommand(first)))
        #expect(h.pendingCommands().count == 1)
        #expect(h.request("alpha", .presentUI)!.token != first)
    }

    @Test func presentUIOutsidePresentingUIIsDeclined() {
        var h = TransitionTableTests.authenticated()
        h.send(.presentUIRequested("wlan0"))
        #expect(h.last.contains { if case .requestDeclined(.presentUI) = $0 { true } else { false } })
        #expect(h.sentInLastStep.isEmpty)
    }

    @Test func secondRegistrationWithTheSameIdentifierIsDeclined() {
        var h = Harness()
        h.register("alpha")
        h.register("alpha")
        #expect(h.last.contains { if case .requestDeclined(.registration("alpha", _)) = $0 { true } else { false } })
        #expect(h.core.helpers.count == 1)
    }

    @Test func commandsCarryDidJustJoinUntilTheAssociationFirstAuthenticates() {
        var h = TransitionTableTests.evaluating()
        #expect(h.sentInLastStep.allSatisfy { $0.network?.didJustJoin == true && !$0.isChosenHelper })
        h.answer("alpha", .evaluate, confidence: .high)
        #expect(h.request("alpha", .authenticate)?.network?.didJustJoin == true)
        #expect(h.request("alpha", .authenticate)?.isChosenHelper == true)
    }

    @Test func staleTimerFiringIsIgnored() {
        var h = TransitionTableTests.authenticated()
        let stale = h.timers.keys.first { $0.kind == .maintain }!
        h.send(.connectivityLost("wlan0"))
        h.send(.timerFired(stale))
        #expect(h.state() == .inactive)
        #expect(h.sentInLastStep.isEmpty)
    }

    @Test func rawValuesMatchTheDBusContract() {
        #expect(HotspotState.allCases.map(\.rawValue) == [
            "inactive", "evaluating", "authenticating", "presenting-ui", "authenticated", "maintaining", "logging-off", "failure",
        ])
        #expect(CommandType.allCases.map(\.rawValue) == [
            "filter-scan-list", "evaluate", "authenticate", "present-ui", "maintain", "logoff",
        ])
        #expect(CommandResult.allCases.map(\.rawValue) == [
            "success", "failure", "ui-required", "command-not-recognized", "authentication-required",
            "unsupported-network", "temporary-failure",
        ])
        #expect(Confidence.allCases.map(\.rawValue) == ["none", "low", "high"])
        #expect(SecurityClass.allCases.map(\.rawValue) == ["open", "wep", "personal", "enterprise"])
    }
}
