// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Testing

/// SIGHUP (`systemctl reload hotspot-helperd`) reads the profiles again while the daemon runs: a
/// profile added, changed and removed takes effect, a broken one is refused with its file, line
/// and fix while the others stay loaded, and the daemon never ends on it.
extension DaemonEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct ProfileReloadEndToEndTests {
        /// The display name the scan list shows for CityFree ("" none).
        static func displayName(_ s: PortalScenario) async throws -> String {
            let list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath,
                                               interface: HotspotContract.interfaceInterface, member: "GetScanList").first?.arrayItems?.compactMap(\.varDict) ?? []
            return list.first { $0["ssid"]?.byteArray == Array("CityFree".utf8) }?["display-name"]?.string ?? ""
        }

        static func reload(_ s: PortalScenario, expecting line: String) async throws {
            let before = s.daemon.log.components(separatedBy: line).count
            s.daemon.process.send(SIGHUP)
            try await s.waitUntil("the daemon logs '\(line)'") { s.daemon.log.components(separatedBy: line).count > before }
        }

        @Test func profilesAddedChangedAndRemovedTakeEffectABrokenOneIsRefusedAndTheDaemonLivesOn() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .open)) { s in
                #expect(try await Self.displayName(s) == "")

                _ = try s.profiles.write("20-city.conf", "[CityFree]\nssid=CityFree\ndisplay-name=City Free Wi-Fi\nsign-in=click-through\n")
                try await Self.reload(s, expecting: "1 added, 0 changed, 0 removed, 0 refused")
                try await s.waitUntil("the added profile names CityFree") { try await Self.displayName(s) == "City Free Wi-Fi" }
                #expect(s.daemon.log.contains("reload: profile [CityFree]"), "\(s.diagnostics)")

                _ = try s.profiles.write("20-city.conf", "[CityFree]\nssid=CityFree\ndisplay-name=City Wi-Fi (changed)\nsign-in=click-through\n")
                try await Self.reload(s, expecting: "0 added, 1 changed, 0 removed, 0 refused")
                try await s.waitUntil("the changed profile names CityFree anew") { try await Self.displayName(s) == "City Wi-Fi (changed)" }

                // A broken file: refused with its file, line and fix; the good one stays.
                _ = try s.profiles.write("10-broken.conf", "[Broken]\nssid=Other\nsign-in=teleport\n")
                try await Self.reload(s, expecting: "0 added, 0 changed, 0 removed, 1 refused")
                #expect(s.daemon.log.contains("10-broken.conf line 3"), "\(s.diagnostics)")
                #expect(try await Self.displayName(s) == "City Wi-Fi (changed)")
                #expect(s.daemon.process.isRunning, "SIGHUP never ends the daemon")

                try FileManager.default.removeItem(atPath: s.profiles.path + "/20-city.conf")
                try await Self.reload(s, expecting: "0 added, 0 changed, 1 removed, 1 refused")
                try await s.waitUntil("the removed profile no longer names CityFree") { try await Self.displayName(s) == "" }
                #expect(s.daemon.process.isRunning)
                #expect(try await s.managerProperty("Version")?.string != nil, "the daemon still answers")

                // The configuration file: a setting changed is named as needing a restart; a broken
                // file leaves the configuration in use, and the daemon runs on.
                let config = s.daemon.configPath
                let original = try String(contentsOf: config, encoding: .utf8)
                try original.replacingOccurrences(of: "command-timeout=10", with: "command-timeout=11").write(to: config, atomically: true, encoding: .utf8)
                try await Self.reload(s, expecting: "take effect only when the daemon restarts")
                try "[daemon]\ncommand-timeout=soon\n".write(to: config, atomically: true, encoding: .utf8)
                try await Self.reload(s, expecting: "the configuration in use stays")
                try original.write(to: config, atomically: true, encoding: .utf8)
                #expect(s.daemon.process.isRunning)
            }
        }
    }
}
