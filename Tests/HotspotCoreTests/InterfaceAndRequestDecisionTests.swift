// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// DESIGN.md §3 decisions: interfaces, user requests, registration, did-just-join and the contract's raw values.
@Suite struct InterfaceAndRequestDecisionTests {
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
