// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotProtocol
import Synchronization
import Testing

/// The daemon's secret agent, called the way NetworkManager calls agents: from NetworkManager's
/// own connection (the mock's), for the Wi-Fi password a helper supplied in filter-scan-list.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct SecretAgentTests {
    static let password = "s3cret-passw0rd"

    @Test func networkManagerGetsTheHelpersPasswordAndNothingElseLeaks() async throws {
        // The daemon also traces its messages (daemon-benchmark --hops uses the trace): names
        // and paths, never a body.
        let trace = try ScratchDirectory("wire-trace")
        let s = try await Scenario(environment: ["HOTSPOT_WIRE_TRACE": trace.appendingPathComponent("wire").path])
        let props = try await s.client.signals(matching: MatchRule(sender: HotspotContract.busName, interface: "org.freedesktop.DBus.Properties"))
        let signals = try await s.client.signals(matching: MatchRule(sender: HotspotContract.busName, interface: HotspotContract.managerInterface))
        let collected = SignalLog()
        let t1 = Task { for await x in props { collected.add(x) } }
        let t2 = Task { for await x in signals { collected.add(x) } }
        _ = try await s.helper("Coffee", script: HelperScript(confidence: .high, claims: ["CoffeeShop": Self.password]))
        // Wait until filter-scan-list has annotated the network (its CommandCompleted wakes the wait).
        try await s.waitUntil("the scan list shows the helper's password") {
            let list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface,
                                               member: "GetScanList").first?.arrayItems?.compactMap(\.varDict) ?? []
            return list.contains(where: { $0["has-password"] == .bool(true) })
        }
        // The agent registers with NetworkManager on its own time (the mock's MethodCalled wakes the wait).
        try await s.waitUntil("the daemon registers its secret agent") {
            try await s.calls(DBusMock.agentManagerPath).contains { $0.method.hasPrefix("Register") }
        }
        let secrets = try await s.nm.callGetSecrets(s.client, agent: HotspotContract.busName.rawValue, ssid: Array("CoffeeShop".utf8))
        let psk = secrets.first?.dictEntries?.first { $0.key == .string("802-11-wireless-security") }?.value.varDict?["psk"]
        #expect(psk == .string(Self.password), "\(s.daemon.log.suffix(5000))")
        await #expect { try await s.nm.callGetSecrets(s.client, agent: HotspotContract.busName.rawValue, ssid: Array("Library".utf8)) } throws: {
            ($0 as? DBus.DBusError)?.message.contains("NoSecrets") == true || $0.dbusName == "org.freedesktop.NetworkManager.SecretAgent.NoSecrets"
        }
        // Anyone but NetworkManager is refused.
        await #expect { try await s.client.call(destination: HotspotContract.busName, path: "/org/freedesktop/NetworkManager/SecretAgent",
                                                interface: "org.freedesktop.NetworkManager.SecretAgent", member: "GetSecrets",
                                                body: Array(try Self.directArgs().dropFirst())) } throws: { $0.dbusName == DBusErrorName.accessDenied }
        try await s.join("CoffeeShop", accessPoint: "ap2")
        try await s.waitFor("authenticated")
        t1.cancel(); t2.cancel()
        #expect(!collected.text.contains(Self.password), "a signal carried the password")
        #expect(!s.daemon.log.contains(Self.password), "the daemon logged the password")
        let everything = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: "org.freedesktop.DBus.Properties",
                                                 member: "GetAll", body: [.string(HotspotContract.interfaceInterface.rawValue)])
        let manager = try await s.client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                                              member: "GetAll", body: [.string(HotspotContract.managerInterface.rawValue)])
        #expect(!"\(everything)\(manager)".contains(Self.password), "a property carried the password")
        // The trace is written as the daemon exits: NetworkManager's secrets call is in it, the
        // password (the body of the daemon's answer) is not.
        #expect(await s.daemon.stop() == 0)
        let traced = (try? String(contentsOf: trace.appendingPathComponent("wire.\(s.daemon.process.pid)"), encoding: .utf8)) ?? ""
        let lines = traced.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(lines.contains { $0.count == 7 && $0[3] == "in" && $0[4] == "1" && $0[5] == "GetSecrets" && $0[6] == "/org/freedesktop/NetworkManager/SecretAgent" },
                "no GetSecrets call in the daemon's wire trace:\n\(traced.suffix(3000))")
        #expect(lines.allSatisfy { $0.count == 7 }, "\(traced.suffix(3000))")
        #expect(!traced.contains(Self.password), "the wire trace carried the password")
    }

    static func directArgs() throws -> [DBusValue] {
        let profile = DBusValue.dictionary(key: .string, value: .dictionary(key: .string, value: .variant), [
            DictEntry("802-11-wireless", .varDict(["ssid": .bytes(Array("CoffeeShop".utf8))])),
            DictEntry("802-11-wireless-security", .varDict(["key-mgmt": "wpa-psk"])),
        ])
        return [.string(""), profile, .objectPath("/org/freedesktop/NetworkManager/Settings/1"), "802-11-wireless-security", .strings([]), .uint32(1)]
    }
}

/// Every signal's text, for searching.
final class SignalLog: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ s: Signal) { lines.withLock { $0.append("\(s.member) \(s.body)") } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
