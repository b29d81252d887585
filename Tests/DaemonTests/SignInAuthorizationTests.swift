// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import Testing

/// Who may sign in with the portal's form: polkit's sign-in action, which the shipped policy
/// gives to the active local session only. Callers run as `nobody` through setpriv (root needed).
struct SignInAuthorizationTests {
    @Test func theShippedPolicyGivesSignInToTheActiveLocalUserOnly() throws {
        let text = try String(contentsOf: TestKitPaths.repositoryRoot.appendingPathComponent("packaging/org.freedesktop.NetworkManager.HotspotHelper.policy"),
                              encoding: .utf8)
        let start = try #require(text.range(of: "<action id=\"\(HotspotContract.Action.signIn.id)\">"))
        let action = String(text[start.upperBound...]).components(separatedBy: "</action>")[0]
        #expect(action.contains("<allow_active>yes</allow_active>"), "\(action)")
        #expect(action.contains("<allow_inactive>no</allow_inactive>"), "an inactive session is refused: \(action)")
        #expect(action.contains("<allow_any>no</allow_any>"), "a remote session is refused: \(action)")
    }

    @Test(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"),
                   "needs root (to run callers as nobody), setpriv and python3-dbusmock"))
    func aCallerPolkitDoesNotAllowIsRefusedBeforeAnythingElse() async throws {
        let bus = try await PrivateBus()
        let polkit = try await bus.startMock(template: "polkitd", waitFor: "org.freedesktop.PolicyKit1")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        let c = try f.bus.connect()
        func call() async throws -> ManagedProcess.Result {
            try await f.runAsNobody(["/usr/bin/busctl", "--address=\(f.bus.address)", "call", HotspotContract.busName.rawValue,
                                     f.interfacePath.rawValue, HotspotContract.interfaceInterface.rawValue, "SignIn", "a{sv}a{sv}",
                                     "1", "code", "s", "secret-code-1234", "0"])
        }
        // polkit allows other actions, not sign-in: refused, naming the action, never the value.
        try await polkit.mockCall(c, path: "/org/freedesktop/PolicyKit1/Authority", "SetAllowed",
                                   [.strings([HotspotContract.Action.control.id, HotspotContract.Action.readScanList.id])])
        let refused = try await call()
        #expect(refused.status != 0)
        #expect(refused.stderr.contains(HotspotContract.Action.signIn.id), "\(refused.stderr)")
        #expect(!refused.stderr.contains("secret-code-1234") && !f.daemon.log.contains("secret-code-1234"))
        // Allowed: past polkit, the daemon says no sign-in is waiting.
        try await polkit.mockCall(c, path: "/org/freedesktop/PolicyKit1/Authority", "SetAllowed", [.strings([HotspotContract.Action.signIn.id])])
        let allowed = try await call()
        #expect(allowed.status != 0)
        #expect(allowed.stderr.contains("no sign-in is waiting"), "\(allowed.stderr)")
        #expect(!f.daemon.log.contains("secret-code-1234"))
    }
}
