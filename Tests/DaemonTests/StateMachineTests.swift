// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Testing

/// Every row of the DESIGN §3 table, end to end: mock NetworkManager events in, helpers written
/// with HotspotHelperKit answering as scripted, state seen through the daemon's properties and
/// NetworkManager actions through the mock's recorded calls. The daemon runs in the test's process
/// (`DaemonMode.inProcess`): these tests never signal or restart it.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct StateMachineTests {
    static let mode = DaemonMode.inProcess

    @Test func joiningWithAHighConfidenceHelperAuthenticatesThroughIt() async throws {
        let s = try await Scenario(mode: Self.mode)
        let (_, script) = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        #expect(try await s.property("Helper") == .string("Cafe"))
        #expect(script.received.filter { $0 != .filterScanList } == [.evaluate, .authenticate])
        let network = try await s.network()
        #expect(network?["ssid"]?.byteArray == Array("CityFree".utf8))
        #expect(network?["bssid"] == .string("0A:00:00:00:00:01"))
    }

    /// Every state the interface passes through is announced, in order, even when the helper
    /// answers at once (announcements carry the record as it was, not as the bus server finds it).
    @Test func everyStateOfAJoinIsAnnouncedInOrder() async throws {
        let s = try await Scenario(mode: Self.mode)
        _ = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        let announced = try await s.watch("State", until: "authenticated")
        try await s.join("CityFree", accessPoint: "ap1")
        let states = await announced.values
        #expect(states == ["evaluating", "authenticating", "authenticated"], "\(states)")
    }

    @Test func rejoiningANetworkWithACachedHelperGoesStraightToMaintain() async throws {
        let s = try await Scenario(mode: Self.mode)
        let (_, script) = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        try await s.leave()
        try await s.waitFor("inactive")
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        let commands = script.received.filter { $0 != .filterScanList }
        #expect(commands == [.evaluate, .authenticate, .maintain], "\(commands)")
        #expect(script.receivedJustJoin(.maintain) == [true])
    }

    @Test func losingConnectivityReturnsToInactiveAndClearsTheHelper() async throws {
        let s = try await Scenario(mode: Self.mode)
        _ = try await s.helper("Cafe", script: HelperScript(confidence: .high))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        try await s.leave()
        try await s.waitFor("inactive")
        #expect(try await s.property("Helper") == .string(""))
    }

    @Test func whenNoHelperIsConfidentTheNetworkIsAuthenticatedWithoutOne() async throws {
        let s = try await Scenario(mode: Self.mode)
        let (_, script) = try await s.helper("Shy", script: HelperScript(confidence: .none))
        try await s.join("Library", accessPoint: "ap3")
        try await s.waitFor("authenticated")
        #expect(try await s.property("Helper") == .string(""))
        #expect(!script.received.contains(.authenticate))
    }

    @Test func uiRequiredEmitsTheSignalAndPresentUIFinishesTheSignIn() async throws {
        let s = try await Scenario(mode: Self.mode)
        let ui = try await s.client.signals(matching: MatchRule(sender: HotspotContract.busName, interface: HotspotContract.managerInterface, member: "UIRequired"))
        let (_, script) = try await s.helper("Lobby Portal", script: HelperScript(confidence: .high, results: [.authenticate: .uiRequired, .presentUI: .success]))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("presenting-ui")
        var it = ui.makeAsyncIterator()
        let signal = await it.next()
        #expect(signal?.body[0] == .objectPath(s.interfacePath))
        #expect(signal?.body[1] == .string("Lobby Portal"))
        // A broadcast: the network without its SSID and BSSID (location data), which GetNetwork gives.
        #expect(signal?.body[2].varDict?["ssid"] == nil && signal?.body[2].varDict?["bssid"] == nil, "\(String(describing: signal?.body[2]))")
        #expect(signal?.body[2].varDict?["secure"] != nil)
        #expect(try await s.network()?["ssid"]?.byteArray == Array("CityFree".utf8))
        _ = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface, member: "PresentUI")
        try await s.waitFor("authenticated")
        #expect(script.received.contains(.presentUI))
    }

    @Test func unsupportedNetworkExcludesTheHelperAndReEvaluatesAmongTheOthers() async throws {
        let s = try await Scenario(mode: Self.mode)
        let (_, first) = try await s.helper("First", script: HelperScript(confidence: .high, results: [.authenticate: .unsupportedNetwork]))
        let (_, second) = try await s.helper("Second", script: HelperScript(confidence: .low))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        #expect(try await s.property("Helper") == .string("Second"))
        #expect(first.received.filter { $0 == .evaluate }.count == 1, "the excluded helper was asked again")
        #expect(second.received.contains(.authenticate))
    }

    @Test func temporaryFailurePastItsRetriesDisconnectsButLeavesAutoconnectAlone() async throws {
        let s = try await Scenario(settings: ["authenticate-retries": "1", "authenticate-retry-delay": "0.2"], mode: Self.mode)
        let (_, script) = try await s.helper("Flaky", script: HelperScript(confidence: .high, results: [.authenticate: .temporaryFailure]))
        let profile = try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitForDisconnect()
        try await s.waitFor("inactive")
        // Autoconnect would be switched off right after the disconnect: each call the mock records wakes the check.
        #expect(try await s.holdsThroughout(.milliseconds(300)) { try await !s.calls(profile).contains { $0.method == "Update" } },
                "a temporary failure switched autoconnect off")
        #expect(script.received.filter { $0 == .authenticate }.count == 2, "one retry, then the disconnect: \(script.received)")
        let reason = try await s.property("Reason")?.string ?? ""
        #expect(reason.contains("failed temporarily 2 times (retries=1); disconnected"), "Reason: \(reason)")
    }

    @Test func temporaryFailureIsRetriedWithoutDisconnecting() async throws {
        let s = try await Scenario(settings: ["authenticate-retry-delay": "0.5"], mode: Self.mode)
        let (_, script) = try await s.helper("Slow gateway", script: HelperScript(confidence: .high, results: [.authenticate: .temporaryFailure]))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waiter.until("the first authenticate") { script.received.contains(.authenticate) }
        script.set(.authenticate, .success)
        try await s.waitFor("authenticated")
        #expect(script.received.filter { $0 == .authenticate }.count == 2)
        #expect(try await !s.disconnected(), "a temporary failure disconnected the network")
    }

    /// NetworkManager's device is the NetworkManager adapter's fact: after the kernel renames the
    /// interface (only ever while it is down), the daemon follows it under its new name, and a
    /// failed sign-in there still reaches the device (the old name found no device, so the
    /// disconnect quietly did nothing).
    @Test func aRenamedInterfaceIsFollowedUnderItsNewName() async throws {
        let s = try await Scenario(mode: Self.mode)
        _ = try await s.helper("Broken", script: HelperScript(confidence: .high, results: [.authenticate: .failure]))
        try await s.waitForInterface()
        try await s.mock("UpdateProperties", ["org.freedesktop.NetworkManager.Device", .varDict(["Interface": .string("wlp2s0")])], path: s.device)
        // An object listed a moment ago may be gone by the time its Name is read (the old name
        // leaving): that reading is "not yet", not an error.
        func names() async throws -> [String] {
            var out: [String] = []
            for path in try await s.managerProperty("Interfaces")?.objectPaths ?? [] {
                let name = try? await s.client.call(destination: HotspotContract.busName, path: path, interface: "org.freedesktop.DBus.Properties",
                                                    member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue), .string("Name")])
                out.append(name?.first?.unwrapped.string ?? "(gone)")
            }
            return out
        }
        try await s.waitUntil("the daemon follows the new name") { try await names() == ["wlp2s0"] }
        let path = try #require(try await s.managerProperty("Interfaces")?.objectPaths?.first)
        let device = try await s.client.call(destination: HotspotContract.busName, path: path, interface: "org.freedesktop.DBus.Properties",
                                             member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue), .string("Device")])
        #expect(device.first?.unwrapped.objectPath?.rawValue == s.device)
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitForDisconnect()
    }

    @Test func failureDisconnectsAndSwitchesAutoconnectOff() async throws {
        let s = try await Scenario(mode: Self.mode)
        _ = try await s.helper("Broken", script: HelperScript(confidence: .high, results: [.authenticate: .failure]))
        let profile = try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitForDisconnect()
        try await s.waitFor("inactive")
        var updates: [[DBusValue]] = []
        try await s.waiter.until("the profile is updated") {
            updates = try await s.calls(profile).filter { $0.method == "Update" }.map(\.args)
            return !updates.isEmpty
        }
        #expect(try await s.calls(s.device).contains { $0.method == "Disconnect" })
        let settings = updates.first?.first?.dictEntries
        let connection = settings?.first { $0.key == .string("connection") }?.value.varDict
        #expect(connection?["autoconnect"] == .bool(false), "Update calls: \(updates)")
    }

    @Test func theMaintainTimerSendsMaintainAndSuccessReturnsToAuthenticated() async throws {
        let s = try await Scenario(settings: ["maintain-interval": "0.3"], mode: Self.mode)
        let (_, script) = try await s.helper("Keeper", script: HelperScript(confidence: .high))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        try await s.waiter.until("two maintains") { script.received.filter { $0 == .maintain }.count >= 2 }
        #expect(script.received.filter { $0 == .maintain }.count >= 2)
        #expect(script.receivedJustJoin(.maintain).allSatisfy { !$0 })
        try await s.waitFor("authenticated")
    }

    @Test func maintainAnsweringAuthenticationRequiredSignsInAgain() async throws {
        let s = try await Scenario(settings: ["maintain-interval": "0.3"], mode: Self.mode)
        let (_, script) = try await s.helper("Keeper", script: HelperScript(confidence: .high, results: [.maintain: .authenticationRequired]))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waiter.until("a second authenticate") { script.received.filter { $0 == .authenticate }.count >= 2 }
        let commands = script.received.filter { $0 != .filterScanList }
        #expect(Array(commands.prefix(4)) == [.evaluate, .authenticate, .maintain, .authenticate], "\(commands)")
    }

    @Test func maintainAnsweringAnythingElseReEvaluates() async throws {
        let s = try await Scenario(settings: ["maintain-interval": "0.3"], mode: Self.mode)
        let (_, script) = try await s.helper("Keeper", script: HelperScript(confidence: .high, results: [.maintain: .failure]))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waiter.until("a second evaluate") { script.received.filter { $0 == .evaluate }.count >= 2 }
        let commands = script.received.filter { $0 != .filterScanList }
        #expect(Array(commands.prefix(4)) == [.evaluate, .authenticate, .maintain, .evaluate], "\(commands)")
    }

    @Test func logoffByTheChosenHelperSendsLogoffAndDisconnects() async throws {
        let s = try await Scenario(mode: Self.mode)
        let (helper, script) = try await s.helper("Leaver", script: HelperScript(confidence: .high))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        let network = try #require(script.lastNetwork.withLock { $0 })
        try await helper.logoff(network)
        // The state is published at once and the disconnect goes to NetworkManager behind it:
        // wait for the call, then the state.
        try await s.waitForDisconnect()
        try await s.waitFor("inactive")
        #expect(script.received.contains(.logoff))
    }

    @Test func filterScanListLabelsClaimedNetworksAndNeverPublishesThePassword() async throws {
        let s = try await Scenario(mode: Self.mode)
        _ = try await s.helper("Coffee Wi-Fi", script: HelperScript(claims: ["CoffeeShop": "s3cret-passw0rd", "CityFree": nil]))
        var list: [[String: DBusValue]] = []
        // Woken by CommandCompleted: the scan list is annotated when filter-scan-list completes.
        try await s.waiter.until("the scan list is annotated") {
            list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface,
                                           member: "GetScanList").first?.arrayItems?.compactMap { $0.varDict } ?? []
            return list.contains { $0["display-name"] == .string("Coffee Wi-Fi") && $0["has-password"] == .bool(true) }
        }
        let coffee = list.first { $0["ssid"]?.byteArray == Array("CoffeeShop".utf8) }
        #expect(coffee?["display-name"] == .string("Coffee Wi-Fi"))
        #expect(coffee?["has-password"] == .bool(true))
        let city = list.first { $0["ssid"]?.byteArray == Array("CityFree".utf8) }
        #expect(city?["display-name"] == .string("Coffee Wi-Fi"))
        #expect(city?["has-password"] == .bool(false))
        #expect(list.first { $0["ssid"]?.byteArray == Array("Library".utf8) }?["display-name"] == .string(""))
        #expect(!"\(list)".contains("s3cret-passw0rd"))
        #expect(!s.daemon.log.contains("s3cret-passw0rd"))
    }
}
