// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotClient
import HotspotCore
import HotspotProtocol
import Testing

extension DesktopTests {
    /// hotspotctl against a running daemon on a private bus with python-dbusmock's NetworkManager:
    /// each subcommand's table and JSON, the exit codes, and the messages when the daemon is not
    /// running.
    @Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)"))
    struct CtlTests {
        @Test func statusShowsTheInterfaceStateNetworkAndHelperAsATableAndAsJSON() async throws {
            let d = try await Desktop()
            try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")

            let table = try await d.ctl(["status"])
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("hotspot-helperd \(ProductVersion.current):") == true, "\(table.stdout)")
            #expect(lines.contains { $0.hasPrefix("INTERFACE") && $0.contains("STATE") && $0.contains("CONNECTIVITY") && $0.contains("EXPIRES") })
            let row = lines.first { $0.hasPrefix("wlan0") } ?? ""
            for cell in ["presenting-ui", "CityFree", "0A:00:00:00:00:01", "Lobby Portal"] { #expect(row.contains(cell), "\(row)") }

            // No subcommand means status.
            #expect(try await d.ctl([]).stdout == table.stdout)

            let doc = try json(try await d.ctl(["status", "--json"]).stdout) as? [String: Any]
            #expect(doc?["version"] as? String == ProductVersion.current)
            let interfaces = doc?["interfaces"] as? [[String: Any]] ?? []
            #expect(interfaces.count == 1)
            #expect(interfaces.first?["name"] as? String == "wlan0")
            #expect(interfaces.first?["state"] as? String == "presenting-ui")
            #expect(interfaces.first?["helper"] as? String == "Lobby Portal")
            #expect((interfaces.first?["network"] as? [String: Any])?["ssid"] as? String == "CityFree")
            #expect(interfaces.first?["session-expires"] as? Int == 0)
            #expect((doc?["helpers"] as? [[String: Any]])?.first?["display-name"] as? String == "Lobby Portal")
        }

        @Test func helpersAndCheckPrintTablesAndJSON() async throws {
            let d = try await Desktop()
            let empty = try await d.ctl(["helpers"])
            #expect(empty.status == 0 && empty.stdout == "no helpers registered\n", "\(empty.stdout)\(empty.stderr)")
            try await d.helper("Cafe", confidence: .none)
            let table = try await d.ctl(["helpers"])
            #expect(table.stdout.contains("IDENTIFIER") && table.stdout.contains("test.Cafe") && table.stdout.contains("responsive"), "\(table.stdout)")
            let list = try json(try await d.ctl(["helpers", "--json"]).stdout) as? [[String: Any]]
            #expect(list?.first?["identifier"] as? String == "test.Cafe")
            #expect(list?.first?["display-name"] as? String == "Cafe")
            #expect(list?.first?["purpose"] as? String == "Signs in at Cafe")
            #expect(table.stdout.contains("PURPOSE") && table.stdout.contains("Signs in at Cafe"), "\(table.stdout)")
            // A HotspotHelperKit helper takes its command channel.
            #expect(list?.first?["commands-via"] as? String == "channel")
            #expect(table.stdout.contains("COMMANDS VIA") && table.stdout.contains("channel"), "\(table.stdout)")

            let check = try await d.ctl(["check"])
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stdout.contains("CONNECTIVITY") && check.stdout.contains("wlan0"), "\(check.stdout)")
            let report = try json(try await d.ctl(["check", "wlan0", "--json"]).stdout) as? [String: Any]
            #expect(report?["interface"] as? String == "wlan0")
            #expect(report?["connectivity"] as? String != nil)
            #expect(report?.keys.contains("portal-url") == true && report?.keys.contains("reason") == true)
        }

        @Test func networksShowsTheScanListAnnotatedByTheClaimingHelper() async throws {
            let d = try await Desktop()
            try await d.helper("Cafe", confidence: .none, claims: ["CoffeeShop": "s3cret-pass"])
            try await d.join("Library", accessPoint: "ap3")
            var rows: [[String: Any]] = []
            try await d.waitUntil("the scan list is annotated") {
                rows = try json(try await d.ctl(["networks", "--json"]).stdout) as? [[String: Any]] ?? []
                return rows.contains { $0["display-name"] as? String == "Cafe" }
            }
            #expect(Set(rows.compactMap { $0["ssid"] as? String }) == ["CityFree", "CoffeeShop", "Library"])
            let coffee = rows.first { $0["ssid"] as? String == "CoffeeShop" }
            #expect(coffee?["has-password"] as? Bool == true)
            #expect(coffee?["secure"] as? Bool == true)
            #expect(coffee?["interface"] as? String == "wlan0")

            let table = try await d.ctl(["networks", "wlan0"])
            #expect(table.status == 0, "\(table.stderr)")
            let line = table.stdout.split(separator: "\n").first { $0.contains("CoffeeShop") } ?? ""
            #expect(line.contains("Cafe") && line.contains("stored") && line.contains("secured"), "\(table.stdout)")
            // The password itself is never printed.
            #expect(!table.stdout.contains("s3cret-pass"))
            #expect(!(try await d.ctl(["networks", "--json"]).stdout.contains("s3cret-pass")))
        }

        @Test func presentUIFinishesTheSignInAndLogoffSignsOut() async throws {
            let d = try await Desktop()
            let received = Kept<CommandType>()
            try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired, .presentUI: .success], received: received)
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")

            let present = try await d.ctl(["present-ui", "--json"])
            #expect(present.status == 0, "\(present.stderr)")
            let doc = try json(present.stdout) as? [String: Any]
            #expect(doc?["action"] as? String == "present-ui" && doc?["interface"] as? String == "wlan0" && doc?["network"] as? String == "CityFree")
            try await d.waitFor("authenticated")
            #expect(received.all.contains(.presentUI))

            let logoff = try await d.ctl(["logoff", "wlan0"])
            #expect(logoff.status == 0, "\(logoff.stderr)")
            #expect(logoff.stdout == "wlan0: logging off from CityFree through Lobby Portal\n", "\(logoff.stdout)")
            try await d.waitUntil("the helper receives logoff") { received.all.contains(.logoff) }

            // Present-ui when nothing waits for the user: the daemon's refusal, exit 1.
            try await d.waitUntil("the interface leaves authenticated") { try await d.state() != "authenticated" }
            let refused = try await d.ctl(["present-ui", "wlan0"])
            #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.hasPrefix("hotspotctl: "), "\(refused.stderr)")
        }

        @Test func forgetAcceptsTextAndHexSSIDs() async throws {
            let d = try await Desktop()
            let text = try await d.ctl(["forget", "CityFree"])
            #expect(text.status == 0 && text.stdout == "forgot CityFree\n", "\(text.stdout)\(text.stderr)")
            let hex = try await d.ctl(["forget", "--hex", "43:69:74:79", "--json"])
            #expect(hex.status == 0, "\(hex.stderr)")
            #expect((try json(hex.stdout) as? [String: String]) == ["action": "forget", "ssid": "City"])
            #expect(d.daemon.log.contains("forgetting network"))
        }

        @Test func mistakesExitWithTwoAndAnUnknownInterfaceWithOne() async throws {
            let d = try await Desktop()
            for args in [["forget"], ["frobnicate"], ["status", "--bogus"], ["forget", String(repeating: "x", count: 33)], ["forget", "--hex", "4"]] {
                let r = try await d.ctl(args)
                #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
                #expect(!r.stderr.isEmpty)
            }
            let unknown = try await d.ctl(["logoff", "wlan9"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr == "hotspotctl: no Wi-Fi interface named wlan9 (known: wlan0)\n", "\(unknown.stderr)")
            let help = try await d.ctl(["--help"])
            #expect(help.status == 0 && help.stdout.contains("Exit status: 0 success"), "\(help.stdout)")
        }

        @Test func monitorPrintsTransitionsCommandsAndUIRequiredUntilInterrupted() async throws {
            let d = try await Desktop()
            let human = try ManagedProcess.launch(TestKitPaths.product("hotspotctl").path, ["monitor"], environment: d.bus.environment)
            let lines = try ManagedProcess.launch(TestKitPaths.product("hotspotctl").path, ["monitor", "--json"], environment: d.bus.environment)
            #expect(await human.waitForOutput(containing: "wlan0: inactive"), "\(human.output)")
            #expect(await lines.waitForOutput(containing: #""to":"inactive""#), "\(lines.output)")

            try await d.helper("Lobby Portal", confidence: .high, results: [.authenticate: .uiRequired])
            try await d.join("CityFree", accessPoint: "ap1")
            try await d.waitFor("presenting-ui")
            #expect(await human.waitForOutput(containing: "authenticating -> presenting-ui"), "\(human.output)")
            #expect(await human.waitForOutput(containing: "wlan0: Lobby Portal needs you to sign in to CityFree (hotspotctl present-ui wlan0)"), "\(human.output)")
            #expect(await human.waitForOutput(containing: "wlan0: Lobby Portal answered authenticate: ui-required"), "\(human.output)")
            #expect(human.output.contains("helpers: Lobby Portal"), "\(human.output)")
            #expect(await lines.waitForOutput(containing: #""event":"ui-required""#), "\(lines.output)")

            // Every line of --json is one JSON object with an event.
            for line in lines.output.split(separator: "\n") {
                let object = try json(String(line)) as? [String: Any]
                #expect(object?["event"] is String && object?["time"] is String, "\(line)")
            }
            // The daemon going away is reported, and monitoring goes on.
            d.daemon.process.send(SIGTERM)
            #expect(await human.waitForOutput(containing: "hotspot-helperd stopped"), "\(human.output)")
            #expect(human.isRunning)

            human.send(SIGINT)
            #expect(await human.waitForExit(timeout: .seconds(10)) == 0)
            lines.send(SIGTERM)
            #expect(await lines.waitForExit(timeout: .seconds(10)) == 0)
        }

        @Test func withoutTheDaemonEveryCommandSaysHowToStartItAndExitsWithThree() async throws {
            let bus = try await PrivateBus()
            for args in [["status"], ["networks"], ["helpers"], ["check"], ["logoff"], ["present-ui"], ["forget", "X"], ["status", "--json"]] {
                let r = try await bus.run(TestKitPaths.product("hotspotctl").path, args)
                #expect(r.status == 3, "\(args): \(r.status) \(r.stdout) \(r.stderr)")
                #expect(r.stderr.hasPrefix("hotspotctl: hotspot-helperd is not running: sudo systemctl start hotspot-helperd"), "\(args): \(r.stderr)")
                #expect(r.stdout.isEmpty)
            }
            let noBus = try await ManagedProcess.run(TestKitPaths.product("hotspotctl").path, ["status"],
                                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/hotspot-test-bus"])
            #expect(noBus.status == 3)
            #expect(noBus.stderr.contains("cannot reach the system bus"), "\(noBus.stderr)")
        }

        @Test(.enabled(if: TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"), "needs root to run hotspotctl as nobody"))
        func withoutPolkitAnUnprivilegedCallerIsRefusedNamingTheActionAndExitsWithFour() async throws {
            let d = try await Desktop()
            let forget = try await d.ctlAsNobody(["forget", "CityFree"])
            #expect(forget.status == 4, "\(forget.status) \(forget.stderr)")
            #expect(forget.stderr.hasPrefix("hotspotctl: not authorized (polkit action org.freedesktop.NetworkManager.HotspotHelper.control)"), "\(forget.stderr)")
            let networks = try await d.ctlAsNobody(["networks"])
            #expect(networks.status == 4)
            #expect(networks.stderr.contains("org.freedesktop.NetworkManager.HotspotHelper.read-scan-list"), "\(networks.stderr)")
            // Reading the state needs no authorization.
            let status = try await d.ctlAsNobody(["status"])
            #expect(status.status == 0, "\(status.stderr)")
        }
    }

    /// The pieces of hotspotctl that need no bus.
    struct ClientFailureTests {
        @Test func errorsMapToTheDocumentedExitCodes() {
            #expect(ClientFailure.classify(DBusError.remote(name: DBusErrorName.serviceUnknown, message: "x")).exitCode == 3)
            #expect(ClientFailure.classify(DBusError.remote(name: "org.freedesktop.DBus.Error.Spawn.ChildExited", message: "x")).exitCode == 3)
            #expect(ClientFailure.classify(DBusError.connectionFailed(address: "a", reason: "r")).exitCode == 3)
            let denied = ClientFailure.classify(DBusError.remote(name: HotspotContract.errorPrefix + "NotAuthorized",
                                                                 message: "not authorized (polkit action \(HotspotContract.Action.readScanList.id)): no"))
            #expect(denied == .notAuthorized(action: HotspotContract.Action.readScanList.id, message: "not authorized (polkit action \(HotspotContract.Action.readScanList.id)): no"))
            #expect(denied.exitCode == 4)
            #expect(ClientFailure.classify(DBusError.remote(name: DBusErrorName.accessDenied, message: "x")).exitCode == 4)
            #expect(ClientFailure.classify(DBusError.remote(name: HotspotContract.errorPrefix + "NotAllowed", message: "no")) == .failed("no"))
            #expect(ClientFailure.usage("x").exitCode == 2)
        }

        @Test func ssidsThatAreNotTextAreEscaped() {
            #expect(SSIDText.display(Array("Café".utf8)) == "Café")
            #expect(SSIDText.display([0x41, 0xFF, 0x00, 0x5C]) == "A\\xff\\x00\\x5c")
        }
    }
}
