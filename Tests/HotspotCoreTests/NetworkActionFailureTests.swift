// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// NetworkManager failing an action the core asked for reaches the machine as an event: the
/// interface's reason says what the user now sees, and the state stays what the core decided.
@Suite struct NetworkActionFailureTests {
    @Test func aFailedDisconnectAfterAFailedSignInIsExplainedOnTheInterface() {
        var h = TransitionTableTests.authenticating()
        let effects = h.answer("alpha", .authenticate, .failure)
        #expect(effects.contains(.disconnect("wlan0")))
        #expect(effects.contains(.disableAutoconnect("conn-cafe")))
        h.send(.networkActionFailed("wlan0", .disconnect, reason: "NoActiveConnection"))
        #expect(h.state() == .inactive)
        #expect(h.last.contains { if case .explain("wlan0", let text) = $0 { text.contains("did not disconnect") && text.contains("NoActiveConnection") } else { false } })
        h.send(.networkActionFailed("wlan0", .setAutoconnect(false, "conn-cafe"), reason: "PermissionDenied"))
        #expect(h.last.contains { if case .explain("wlan0", let text) = $0 { text.contains("autoconnect off") && text.contains("conn-cafe") } else { false } })
    }

    @Test func aFailureOnAnInterfaceTheCoreDoesNotKnowChangesNothing() {
        var h = Harness()
        h.send(.networkActionFailed("wlan9", .disconnect, reason: "gone"))
        #expect(h.last.isEmpty)
    }
}
