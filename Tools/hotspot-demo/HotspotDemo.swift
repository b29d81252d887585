// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol

/// The demo: hotspot-helperd against a simulated NetworkManager on a private bus, with the
/// example helper, joining networks and showing, live, the annotated scan list, every state
/// transition and every command with its result and timing. It ends by itself and leaves nothing
/// running.
@main
struct HotspotDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotspot-demo",
        abstract: "Show hotspot-helperd at work against a simulated NetworkManager and an example helper.")

    @Option(help: "Seconds between maintain commands in the demo.")
    var maintainInterval = 2.0

    /// The programs the demo starts, built beside it (`make demo` builds them all).
    static let programs = ["hotspot-helperd", "hotspot-example-helper", "hotspot-portal-sim"]

    func run() async throws {
        let missing = Self.programs.filter { !FileManager.default.isExecutableFile(atPath: TestKitPaths.product($0).path) }
        guard missing.isEmpty else {
            throw ValidationError("\(missing.joined(separator: ", ")) not found in \(TestKitPaths.productsDirectory.path), where the demo runs them from; "
                                  + "build \(missing.count == 1 ? "it" : "them") with `\(missing.map { "swift build --product \($0)" }.joined(separator: " && "))`, or run `make demo`")
        }
        let demo = Demo(maintainInterval: maintainInterval)
        try await demo.run()
    }
}

final class Demo: Sendable {
    let maintainInterval: Double
    let start = ContinuousClock.now
    init(maintainInterval: Double) { self.maintainInterval = maintainInterval }

    func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    func stamp() -> String {
        let d = ContinuousClock.now - start
        return String(format: "%7.3f s", Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
    func event(_ text: String) { say("  \(stamp())  \(text)") }

    func run() async throws {
        say("Hotspot Helper demo: hotspot-helperd, a simulated NetworkManager (python-dbusmock) and an example helper on a private bus\n")
        let bus = try await PrivateBus()
        say("  ✓ private D-Bus at \(bus.address.split(separator: ",").first ?? "")")
        let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        let c = try bus.connect()
        let mockPath = "/org/freedesktop/NetworkManager"
        func mock(_ member: String, _ body: [DBusValue]) async throws -> [DBusValue] {
            try await nm.mockCall(c, path: mockPath, member, body)
        }
        let device = try await mock("AddWiFiDevice", ["wlan0", "wlan0", .int32(30)]).first?.string ?? ""
        let aps: [(String, String, String, UInt8, UInt32)] = [
            ("ap1", "CityFree", "0A:11:22:33:44:01", 82, 0), ("ap2", "CoffeeShop", "0A:11:22:33:44:02", 67, 0x100),
            ("ap3", "Airport_Guest", "0A:11:22:33:44:03", 45, 0), ("ap4", "HomeNet", "0A:11:22:33:44:04", 30, 0x100),
        ]
        for (name, ssid, bssid, strength, security) in aps {
            _ = try await mock("AddAccessPoint", [.string(device), .string(name), .string(ssid), .string(bssid), .uint32(2), .uint32(2412),
                                                  .uint32(54000), .byte(strength), .uint32(security)])
        }
        try await nm.addAgentManager(c)
        try await nm.addDisconnect(c, device: device)
        say("  ✓ NetworkManager with wlan0 and \(aps.count) access points")
        let daemon = try await DaemonProcess.start(on: bus, settings: [
            "maintain-interval": String(maintainInterval), "filter-interval": "0.5", "command-timeout": "5",
        ], logLevel: "info")
        say("  ✓ hotspot-helperd running (maintain every \(maintainInterval) s for the demo; 300 s by default)")

        // Watch the daemon before anything happens.
        let monitor = try await watch(bus: c)
        let helper = try ManagedProcess.launch(TestKitPaths.product("hotspot-example-helper").path,
                                               ["--display-name", "Coffee Wi-Fi", "--identifier", "com.example.coffee",
                                                "--network", "CoffeeShop=espresso42", "--network", "City*"],
                                               environment: bus.environment, name: "example helper")
        guard await helper.waitForOutput(containing: "registered", timeout: .seconds(10)) else {
            throw DemoError("the example helper did not register:\n\(helper.output)\n\(daemon.log)")
        }
        say("  ✓ example helper \"Coffee Wi-Fi\" registered: claims CoffeeShop (with its password) and City*\n")

        try await Task.sleep(for: .seconds(1.2))
        try await showScanList(c)

        say("\nJoining CityFree (open network, the helper signs in):")
        let conn = try await mock("AddWiFiConnection", [.string(device), "cityfree", "CityFree", ""]).first?.string ?? ""
        _ = try await mock("AddActiveConnection", [.strings([device]), .string(conn), "/org/freedesktop/NetworkManager/AccessPoint/ap1", "active1", .uint32(2)])
        try await Task.sleep(for: .seconds(maintainInterval + 1))

        say("\nNetworkManager asks the secret agent for CoffeeShop's password:")
        try await askSecret(nm, c, ssid: "CoffeeShop")
        try await askSecret(nm, c, ssid: "HomeNet")

        say("\nLeaving the network:")
        _ = try await mock("SetDeviceDisconnected", [.string(device)])
        try await Task.sleep(for: .seconds(0.5))

        monitor.cancel()
        helper.stop()
        daemon.process.send(SIGTERM)
        _ = await daemon.process.waitForExit(timeout: .seconds(5))
        nm.stop()
        bus.stop()
        say("\nDone with part 1: every process stopped. The daemon's log:")
        for line in daemon.log.split(separator: "\n").suffix(12) { say("  | \(line)") }
        try await RealSignInDemo(demo: self).run()
        say("\nDone: every process stopped.")
    }

    func watch(bus c: Connection) async throws -> Task<Void, Never> {
        let props = try await c.signals(matching: MatchRule(sender: HotspotContract.busName, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        let commands = try await c.signals(matching: MatchRule(sender: HotspotContract.busName, path: HotspotContract.managerPath,
                                                               interface: HotspotContract.managerInterface, member: "CommandCompleted"))
        let ui = try await c.signals(matching: MatchRule(sender: HotspotContract.busName, path: HotspotContract.managerPath,
                                                         interface: HotspotContract.managerInterface, member: "UIRequired"))
        return Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await s in props {
                        guard s.body.count == 3, s.body[0].string == HotspotContract.interfaceInterface.rawValue, let changed = s.body[1].varDict else { continue }
                        if let state = changed["State"]?.string { self.event("wlan0  state → \(state)") }
                        if let helper = changed["Helper"]?.string, !helper.isEmpty { self.event("wlan0  chosen helper: \(helper)") }
                    }
                }
                group.addTask {
                    for await s in commands where s.body.count == 5 {
                        let cmd = s.body[2].string ?? "", helper = s.body[1].string ?? "", result = s.body[3].string ?? ""
                        let ms = (s.body[4].double ?? 0) * 1000
                        self.event(String(format: "%@ → %@: %@ (%.1f ms)", cmd.padding(toLength: 16, withPad: " ", startingAt: 0), helper, result, ms))
                    }
                }
                group.addTask {
                    for await s in ui { self.event("UIRequired from \(s.body[1].string ?? "")") }
                }
            }
        }
    }

    func showScanList(_ c: Connection) async throws {
        let interfaces = try await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                                          member: "Get", body: [.string(HotspotContract.managerInterface.rawValue), "Interfaces"]).first?.objectPaths ?? []
        guard let path = interfaces.first else { say("  (no Wi-Fi interface known to the daemon)"); return }
        let list = try await c.call(destination: HotspotContract.busName, path: path, interface: HotspotContract.interfaceInterface,
                                    member: "GetScanList").first?.arrayItems?.compactMap(\.varDict) ?? []
        say("The scan list as the desktop sees it (GetScanList on \(path)):")
        say("  SSID            BSSID              signal  secure  helper          password")
        for n in list.sorted(by: { ($0["strength"]?.double ?? 0) > ($1["strength"]?.double ?? 0) }) {
            let ssid = String(decoding: n["ssid"]?.byteArray ?? [], as: UTF8.self)
            let helper = n["display-name"]?.string ?? ""
            say(String(format: "  %@%@%5.0f%%   %@%@%@", ssid.padding(toLength: 16, withPad: " ", startingAt: 0),
                       (n["bssid"]?.string ?? "").padding(toLength: 19, withPad: " ", startingAt: 0), (n["strength"]?.double ?? 0) * 100,
                       ((n["secure"]?.bool ?? false) ? "yes" : "no").padding(toLength: 8, withPad: " ", startingAt: 0),
                       (helper.isEmpty ? "—" : helper).padding(toLength: 16, withPad: " ", startingAt: 0),
                       (n["has-password"]?.bool ?? false) ? "supplied (hidden)" : "—"))
        }
    }

    /// NetworkManager (the mock's own connection) asks the daemon's secret agent, as it does
    /// when joining a secured network it has no password for.
    func askSecret(_ nm: DBusMock, _ c: Connection, ssid: String) async throws {
        do {
            let secrets = try await nm.callGetSecrets(c, agent: HotspotContract.busName.rawValue, ssid: Array(ssid.utf8))
            let psk = secrets.first?.dictEntries?.first?.value.varDict?["psk"]?.string
            event("GetSecrets for \(ssid): password supplied (\(psk?.count ?? 0) characters; never logged or published)")
        } catch let error as DBusError {
            event("GetSecrets for \(ssid): \(error.name): no helper supplied a password")
        }
    }
}

struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
