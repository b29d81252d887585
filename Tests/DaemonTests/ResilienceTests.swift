// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotProtocol
import Testing

/// A helper in another language, helpers that die or break the protocol, NetworkManager
/// restarting, and the daemon restarting with its state.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ResilienceTests {
    static let pythonHelper = TestKitPaths.repositoryRoot.appendingPathComponent("Tests/helpers/python-helper.py").path

    func startPythonHelper(_ s: Scenario, _ args: [String]) async throws -> ManagedProcess {
        let p = try ManagedProcess.launch(TestEnvironment.python, [Self.pythonHelper] + args, environment: s.bus.environment, name: "python helper")
        guard await p.waitForOutput(containing: "registered") else {
            throw TestKitError.startFailed("the Python helper did not register:\n\(p.output)")
        }
        return p
    }

    @Test func aHelperWrittenInPythonSignsInLikeASwiftOne() async throws {
        let s = try await Scenario()
        let helper = try await startPythonHelper(s, ["Py Wi-Fi", "high", "success", "CoffeeShop=pyth0n-pass"])
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        #expect(try await s.property("Helper") == .string("Py Wi-Fi"))
        #expect(helper.output.contains("command evaluate"))
        #expect(helper.output.contains("command authenticate"))
        // Woken by the filter-scan-list command's CommandCompleted.
        try await s.waiter.until("the Python helper's claim labels CoffeeShop",
                                 context: { "\(helper.output)\n\(s.daemon.log.suffix(4000))" }) {
            let list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface,
                                               member: "GetScanList").first?.arrayItems?.compactMap(\.varDict) ?? []
            return list.contains { $0["display-name"] == .string("Py Wi-Fi") && $0["has-password"] == .bool(true) }
        }
    }

    @Test func anUnknownResultFromAHelperCountsAsFailureAndIsReported() async throws {
        let s = try await Scenario()
        let helper = try await startPythonHelper(s, ["Odd", "high", "dance"])
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitForDisconnect()
        try await s.waitFor("inactive")
        #expect(helper.output.contains("command authenticate"))
        #expect(s.daemon.log.contains("unknown result 'dance'"), "\(s.daemon.log.suffix(2000))")
        #expect(s.daemon.process.isRunning)
    }

    /// The helper leaving the bus ends its command at once: with a 600 s deadline, far past every
    /// wait's safety net, the survivor can sign in only because the daemon saw it go. How soon is
    /// a figure, printed (daemon-benchmark measures joins).
    @Test func aHelperKilledMidAuthenticateIsReplacedByTheNextHelper() async throws {
        let s = try await Scenario(settings: ["command-timeout": "600"])
        let doomed = try ManagedProcess.launch(TestKitPaths.product("hotspot-example-helper").path,
                                               ["--display-name", "Doomed", "--network", "CityFree", "--hang", "authenticate"],
                                               environment: s.bus.environment, name: "doomed helper")
        #expect(await doomed.waitForOutput(containing: "registered"))
        let (_, survivor) = try await s.helper("Survivor", script: HelperScript(confidence: .low))
        try await s.join("CityFree", accessPoint: "ap1")
        #expect(await doomed.waitForOutput(containing: "not answering"))
        #expect(try await s.property("Helper") == .string("Doomed"))
        let killed = ContinuousClock.now
        doomed.send(SIGKILL)
        try await s.waitFor("authenticated")
        print("a killed helper's authenticate handed to the next helper and signed in: \(ContinuousClock.now - killed)")
        #expect(try await s.property("Helper") == .string("Survivor"))
        #expect(survivor.received.contains(.authenticate))
        // Still serving.
        #expect(try await s.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                        interface: HotspotContract.managerInterface, member: "CheckPermission", body: ["control"]) == ["yes"])
    }

    @Test func networkManagerRestartingRebuildsStateAndJoinsWorkAgain() async throws {
        let s = try await Scenario()
        _ = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        try await s.stopNetworkManager()
        // The interface goes away with NetworkManager…
        // Woken by the manager's PropertiesChanged for Interfaces.
        try await s.waiter.until("the interface goes away with NetworkManager") {
            let paths = try await s.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                                interface: "org.freedesktop.DBus.Properties", member: "Get",
                                                body: [.string(HotspotContract.managerInterface.rawValue), "Interfaces"]).first?.unwrapped.objectPaths ?? []
            return paths.isEmpty
        }
        // …and comes back with a new NetworkManager.
        let nm2 = try await s.bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        let device = try await nm2.setUpWiFi(s.client, accessPoints: Scenario.defaultAPs)
        try await s.waitForInterface()
        let conn = try await nm2.mockCall(s.client, path: Scenario.nmPath, "AddWiFiConnection", [.string(device), "library", "Library", ""]).first?.string ?? ""
        _ = try await nm2.mockCall(s.client, path: Scenario.nmPath, "AddActiveConnection",
                                   [.strings([device]), .string(conn), "/org/freedesktop/NetworkManager/AccessPoint/ap3", "again", .uint32(2)])
        try await s.waitFor("authenticated")
        let network = try await s.network()
        #expect(network?["ssid"]?.byteArray == Array("Library".utf8))
    }

    @Test func theCacheAndTheAutoconnectLedgerSurviveADaemonRestart() async throws {
        let bus = try await PrivateBus()
        let scratch = try ScratchDirectory("hotspot-persist")
        defer { withExtendedLifetime(scratch) {} }
        let state = scratch.appendingPathComponent("state")
        var profile = ""
        do {
            let s = try await Scenario(stateDirectory: state, bus: bus)
            let (_, script) = try await s.helper("Cafe", identifier: "com.example.cafe", script: HelperScript(confidence: .high, results: [.authenticate: .success]))
            try await s.join("CityFree", accessPoint: "ap1")
            try await s.waitFor("authenticated")
            try await s.leave()
            try await s.waitFor("inactive")
            script.set(.authenticate, .failure)
            _ = script
            s.daemon.process.send(SIGTERM)
            #expect(await s.daemon.process.waitForExit() == 0)
            try await s.stopNetworkManager()
        }
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("state").path))
        // A new daemon, a new NetworkManager, the same state directory and helper identifier.
        let s = try await Scenario(stateDirectory: state, bus: bus)
        let (_, script) = try await s.helper("Cafe", identifier: "com.example.cafe", script: HelperScript(confidence: .high, results: [.maintain: .failure, .authenticate: .failure]))
        profile = try await s.join("CityFree", accessPoint: "ap1")
        // The cache names the helper: the first command is maintain, not evaluate.
        try await s.waiter.until("a command other than filter-scan-list reaches the helper") {
            !script.received.filter({ $0 != .filterScanList }).isEmpty
        }
        #expect(script.received.first { $0 != .filterScanList } == .maintain, "\(script.received)")
        // maintain failure → evaluate → authenticate failure → autoconnect off, recorded on disk…
        try await s.waitForDisconnect()
        // Woken by the mock's MethodCalled.
        try await s.waiter.until("NetworkManager hears Update (autoconnect off)") {
            try await s.calls(profile).contains { $0.method == "Update" }
        }
        s.daemon.process.send(SIGTERM)
        #expect(await s.daemon.process.waitForExit() == 0)
        // …and a third daemon still knows it switched autoconnect off: forgetting turns it back on.
        let d3 = try await DaemonProcess.start(on: bus, stateDirectory: state)
        try await s.waitForInterface()
        _ = try await s.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                    member: "ForgetNetwork", body: [.bytes(Array("CityFree".utf8))])
        try await s.waiter.until("autoconnect is switched back on", context: { String(d3.log.suffix(2000)) }) {
            let updates = try await s.calls(profile).filter { $0.method == "Update" }
            return updates.contains { call in
                call.args.first?.dictEntries?.first { $0.key == .string("connection") }?.value.varDict?["autoconnect"] == .bool(true)
            }
        }
    }
}
