// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import Testing

/// polkit decides for everyone but root: with no polkit on the bus non-root callers are refused;
/// with polkit (python-dbusmock's polkitd) its answer counts. Callers run as `nobody` through
/// setpriv, so the tests need root.
@Suite(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"),
                "needs root (to run callers as nobody), setpriv and python3-dbusmock"))
struct AuthorizationTests {
    func busctl(_ f: DaemonScenario, _ args: [String]) async throws -> ManagedProcess.Result {
        try await f.runAsNobody(["/usr/bin/busctl", "--address=\(f.bus.address)"] + args)
    }

    @Test func withoutPolkitNonRootCallersAreRefusedNamingTheAction() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let r = try await busctl(f, ["call", HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue,
                                     HotspotContract.managerInterface.rawValue, "ForgetNetwork", "ay", "3", "65", "66", "67"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("org.freedesktop.NetworkManager.HotspotHelper.control"), "\(r.stderr)")
        #expect(r.stderr.contains("polkit is not running"), "\(r.stderr)")
        let p = try await busctl(f, ["call", HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue,
                                     HotspotContract.managerInterface.rawValue, "CheckPermission", "s", "register-helper"])
        #expect(p.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"s "no""#, "\(p.stdout) \(p.stderr)")
        // Root passes without polkit.
        _ = try await f.manager("ForgetNetwork", [.bytes(Array("ABC".utf8))])
        #expect(try await f.manager("CheckPermission", [.string("control")]) == [.string("yes")])
    }

    @Test func polkitDecidesForNonRootCallers() async throws {
        let bus = try await PrivateBus()
        let polkit = try await bus.startMock(template: "polkitd", waitFor: "org.freedesktop.PolicyKit1")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        let c = try f.bus.connect()
        try await polkit.mockCall(c, path: "/org/freedesktop/PolicyKit1/Authority", "SetAllowed",
                                   [.strings([HotspotContract.Action.control.id])])
        let allowed = try await busctl(f, ["call", HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue,
                                           HotspotContract.managerInterface.rawValue, "ForgetNetwork", "ay", "3", "65", "66", "67"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let denied = try await busctl(f, ["call", HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue,
                                          HotspotContract.managerInterface.rawValue, "RegisterHelper", "oa{sv}", "/h", "2", "DisplayName", "s", "x",
                                          "Purpose", "s", "testing"])
        #expect(denied.status != 0)
        #expect(denied.stderr.contains("register-helper"), "\(denied.stderr)")
        let answer = try await busctl(f, ["call", HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue,
                                          HotspotContract.managerInterface.rawValue, "CheckPermission", "s", HotspotContract.Action.control.id])
        #expect(answer.stdout.contains(#""yes""#), "\(answer.stdout) \(answer.stderr)")
    }
}
