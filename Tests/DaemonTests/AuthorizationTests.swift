// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotDaemon
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

    /// One user whose authentication agent never answers fills only their own slots: 80
    /// interactive RegisterHelper calls (each its own connection) leave 8 waiting at polkit and are
    /// otherwise refused naming the user's limit, while another user's calls, and the same user's
    /// non-interactive CheckPermission, are answered.
    @Test func oneUsersUnansweredChecksNeverRefuseAnotherUser() async throws {
        let bus = try await PrivateBus()
        let polkit = try await bus.startMock(template: "polkitd", waitFor: "org.freedesktop.PolicyKit1")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        let c = try f.bus.connect()
        let authority = "/org/freedesktop/PolicyKit1/Authority"
        try await polkit.mockCall(c, path: authority, "SetAllowed", [.strings([HotspotContract.Action.control.id])])
        // The agent that never answers: every register-helper check waits at polkit.
        try await polkit.mockCall(c, path: authority, "SimulateHangActions", [.strings([HotspotContract.Action.registerHelper.id])])
        let call = ["/usr/bin/busctl", "--address=\(f.bus.address)", "--timeout=300", "call", HotspotContract.busName.rawValue,
                    HotspotContract.managerPath.rawValue, HotspotContract.managerInterface.rawValue]
        let callers = try (0..<80).map { i in
            try ManagedProcess.launch("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + call
                                      + ["RegisterHelper", "oa{sv}", "/h\(i)", "2", "DisplayName", "s", "Flood \(i)", "Purpose", "s", "testing"])
        }
        defer { for p in callers { p.stop() } }
        // All but the user's 8 are refused at once (their busctl exits); the 8 wait at polkit.
        let expectedRefusals = callers.count - Authorizer.maximumInteractiveChecksPerUser
        let deadline = ContinuousClock.now + SafetyNet.wait
        while callers.filter({ !$0.isRunning }).count < expectedRefusals {
            try #require(ContinuousClock.now < deadline, "\(callers.filter { !$0.isRunning }.count) refused, not \(expectedRefusals)\n\(f.daemon.log.suffix(2000))")
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await polkit.mockCall(c, path: authority, "HaveHangingCalls", []).first == .bool(true))
        let refused = callers.filter { !$0.isRunning }
        #expect(refused.count == expectedRefusals)
        #expect(refused.allSatisfy { $0.output.contains("uid 65534 has 8 interactive authorization checks waiting") },
                "\(refused.first?.output ?? "")")

        // Another user (daemon, uid 1: dbus-daemon refuses a uid without a passwd entry): a
        // non-interactive check and an interactive call are answered.
        func asOther(_ args: [String]) async throws -> ManagedProcess.Result {
            try await f.bus.run("/usr/bin/setpriv", ["--reuid=1", "--regid=1", "--clear-groups"] + call + args)
        }
        let permission = try await asOther(["CheckPermission", "s", HotspotContract.Action.control.id])
        #expect(permission.stdout.contains(#""yes""#), "\(permission.stdout) \(permission.stderr)")
        let forget = try await asOther(["ForgetNetwork", "ay", "3", "65", "66", "67"])
        #expect(forget.status == 0, "\(forget.stdout) \(forget.stderr)")
        // The flooding user's own non-interactive check does not wait behind their interactive ones.
        let own = try await f.runAsNobody(["/usr/bin/busctl", "--address=\(f.bus.address)", "--allow-interactive-authorization=no", "call",
                                           HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue,
                                           HotspotContract.managerInterface.rawValue, "CheckPermission", "s", HotspotContract.Action.control.id])
        #expect(own.stdout.contains(#""yes""#), "\(own.stdout) \(own.stderr)")
        // The 8 were waiting at polkit: answered (not allowed), they end.
        let waiting = callers.filter(\.isRunning)
        #expect(waiting.count == Authorizer.maximumInteractiveChecksPerUser)
        _ = try await polkit.mockCall(c, path: authority, "ReleaseHangingCalls", [])
        for p in waiting { #expect(await p.waitForExit(timeout: SafetyNet.wait) != nil) }
        #expect(waiting.allSatisfy { $0.output.contains("register-helper") }, "\(waiting.first?.output ?? "")")
    }
}
