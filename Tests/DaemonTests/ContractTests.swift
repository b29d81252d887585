// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Testing

/// The daemon's D-Bus surface against the shipped contract (dbus/*.xml), its errors, and its
/// resilience to malformed calls. NetworkManager is not needed here.
@Suite(.enabled(if: TestEnvironment.hasDBusDaemon, "needs /usr/bin/dbus-daemon (apt-get install dbus)"))
struct ContractTests {
    static let contract = TestKitPaths.repositoryRoot.appendingPathComponent("dbus/org.freedesktop.NetworkManager.HotspotHelper.xml")

    @Test func liveIntrospectionMatchesTheContractFile() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let xml = try String(contentsOf: Self.contract, encoding: .utf8)
        let contract = IntrospectionModel(xml: xml)
        let live = IntrospectionModel(xml: try await f.client.call(
            destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Introspectable",
            member: "Introspect").first?.string ?? "")
        let name = HotspotContract.managerInterface.rawValue
        let difference = live.difference(from: contract, in: name, labels: ("the daemon", "dbus/"))
        #expect(difference.isEmpty, "the manager interface differs from dbus/:\n\(difference)")
        #expect(contract.interfaces[name]?.contains { $0.name == "RegisterHelper" && $0.inputSignature == "oa{sv}" } == true)
    }

    @Test func busctlIntrospectShowsTheDocumentedManagerInterface() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let r = try await f.bus.run("/usr/bin/busctl", ["--address=\(f.bus.address)", "introspect", "--no-pager",
                                                        HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = Set(r.stdout.split(separator: "\n").map { $0.split(separator: " ").prefix(3).joined(separator: " ") })
        let contract = IntrospectionModel(xml: try String(contentsOf: Self.contract, encoding: .utf8))
        let members = contract.interfaces[HotspotContract.managerInterface.rawValue] ?? []
        #expect(!members.isEmpty)
        for member in members {
            let sig = member.kind == "property" ? member.type : member.inputSignature
            #expect(lines.contains(".\(member.name) \(member.kind) \(sig.isEmpty ? "-" : sig)"), "busctl lacks .\(member.name) \(member.kind) \(sig)\n\(r.stdout)")
        }
    }

    @Test func helperKitHandlerInterfaceMatchesTheContractFile() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let helperConnection = try f.bus.connect()
        let helper = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "Contract"), connection: helperConnection) { _ in }
        let live = IntrospectionModel(xml: try await f.client.call(
            destination: BusName(helperConnection.uniqueName), path: helper.handlerPath, interface: "org.freedesktop.DBus.Introspectable",
            member: "Introspect").first?.string ?? "")
        let contract = IntrospectionModel(xml: try String(contentsOf: Self.contract, encoding: .utf8))
        let name = HotspotContract.handlerInterface.rawValue
        let difference = live.difference(from: contract, in: name, labels: ("HotspotHelperKit", "dbus/"))
        #expect(difference.isEmpty, "the Handler interface differs from dbus/:\n\(difference)")
    }

    @Test func helperKitAcceptsCommandsOnlyFromTheDaemon() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let c = try f.bus.connect()
        let helper = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "Picky"), connection: c) { command in
            command.createResponse(.success).deliver()
        }
        let command = WireCommand(type: .authenticate, interface: "wlan0", network: Network(ssid: SSID("X")), isChosenHelper: true, networks: [], deadline: nil)
        await #expect { try await f.client.call(destination: BusName(c.uniqueName), path: helper.handlerPath, interface: HotspotContract.handlerInterface,
                                                member: "HandleCommand", body: [command.encode()]) } throws: { $0.dbusName == DBusErrorName.accessDenied }
    }

    @Test func helpersRegisterShowUpAndUnregister() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let c = try f.bus.connect()
        let helper = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "Cafe", identifier: "com.example.cafe"), connection: c) { _ in }
        let helpers = try await f.managerProperty("Helpers")?.arrayItems?.compactMap(\.varDict) ?? []
        #expect(helpers.count == 1)
        #expect(helpers.first?["identifier"] == "com.example.cafe")
        #expect(helpers.first?["display-name"] == "Cafe")
        // The same identifier from another process is refused.
        let other = try f.bus.connect()
        await #expect { _ = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "X", identifier: "com.example.cafe"), connection: other) { _ in } } throws: {
            $0.dbusName == "org.freedesktop.NetworkManager.HotspotHelper.Error.AlreadyRegistered"
        }
        try await helper.unregister()
        #expect(try await f.managerProperty("Helpers")?.arrayItems?.isEmpty == true)
    }

    @Test func aHelperThatLeavesTheBusIsRemovedAtOnce() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let c = try f.bus.connect()
        _ = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "Leaver"), connection: c) { _ in }
        await c.close()
        try await f.waitUntil("the daemon stops listing a helper whose connection closed") {
            try await f.managerProperty("Helpers")?.arrayItems?.isEmpty == true
        }
        // The bus or the helper's command channel, whichever the daemon hears first, tells it.
        #expect(f.daemon.log.contains("left the bus") || f.daemon.log.contains("its command channel closed"))
    }

    @Test func malformedCallsGetClearErrorsAndTheDaemonKeepsRunning() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        await #expect { try await f.manager("RegisterHelper", [.string("/not-a-path-type"), .varDict([:])]) } throws: { $0.dbusName == DBusErrorName.invalidArgs }
        await #expect { try await f.manager("RegisterHelper", [.objectPath("/h"), .varDict([:])]) } throws: {
            $0.dbusName == "org.freedesktop.NetworkManager.HotspotHelper.Error.InvalidArgs" && ($0 as? DBus.DBusError)?.message.contains("DisplayName") == true
        }
        await #expect { try await f.manager("RegisterHelper", [.objectPath("/h"), .varDict(["DisplayName": "x", "Commands": .strings(["evaluate", "dance"])])]) } throws: {
            ($0 as? DBus.DBusError)?.message.contains("'dance'") == true
        }
        await #expect { try await f.manager("ForgetNetwork", [.bytes(Array(repeating: 65, count: 33))]) } throws: {
            ($0 as? DBus.DBusError)?.message.contains("33") == true
        }
        await #expect { try await f.manager("CheckPermission", [.string("fly")]) } throws: { $0.dbusName == "org.freedesktop.NetworkManager.HotspotHelper.Error.InvalidArgs" }
        await #expect { try await f.manager("NoSuchMethod") } throws: { $0.dbusName == DBusErrorName.unknownMethod }
        // Non-UTF-8 SSID bytes are just bytes: forgetting one works.
        _ = try await f.manager("ForgetNetwork", [.bytes([0xFF, 0xFE, 0x00, 0x41])])
        #expect(try await f.managerProperty("Version") == .string(ProductVersion.current))
        #expect(f.daemon.process.isRunning)
    }

    @Test func thousandsOfRandomisedCallsLeaveTheDaemonAnswering() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let members: [MemberName] = ["RegisterHelper", "UnregisterHelper", "ForgetNetwork", "CheckPermission", "Get", "GetAll", "Introspect", "Bogus"]
        let interfaces: [InterfaceName] = [HotspotContract.managerInterface, "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", HotspotContract.interfaceInterface]
        let values: [DBusValue] = [.string("x"), .objectPath("/a"), .varDict(["DisplayName": .int32(3)]), .bytes(Array(repeating: 1, count: 40)),
                                   .bytes([]), .uint32(7), .varDict(["Commands": .strings(["logoff"]), "DisplayName": "y"]), .strings([]), .bool(true)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                let c = try f.bus.connect()
                var local = SystemRandomNumberGenerator()
                let plan = (0..<700).map { _ in
                    (members.randomElement(using: &local)!, interfaces.randomElement(using: &local)!,
                     (0..<Int.random(in: 0...3, using: &local)).map { _ in values.randomElement(using: &local)! })
                }
                group.addTask {
                    for (member, iface, body) in plan {
                        _ = try? await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: iface,
                                              member: member, body: body, timeout: .seconds(5))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await f.managerProperty("Version") == .string(ProductVersion.current))
        #expect(f.daemon.process.isRunning, "the daemon died:\n\(f.daemon.log.suffix(3000))")
    }

    @Test func sigtermStopsTheDaemonCleanly() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        f.daemon.process.send(SIGTERM)
        let status = await f.daemon.process.waitForExit(timeout: .seconds(10))
        #expect(status == 0, "exit status \(String(describing: status))\n\(f.daemon.log)")
        #expect(f.daemon.log.contains("shutting down: SIGTERM"))
    }
}
