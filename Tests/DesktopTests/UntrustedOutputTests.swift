// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import Testing

extension DesktopTests {
    /// An SSID is whatever a nearby access point broadcasts: one with a right-to-left override or a
    /// zero-width space reaches `hotspotctl status`, `hotspotctl networks` and the daemon's "joined …"
    /// line only as escapes, so a terminal shows what was sent, in the order it was sent.
    @Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)"))
    struct UntrustedOutputTests {
        @Test func hostileSSIDIsEscapedInStatusNetworksAndTheLog() async throws {
            let ssid = "Free\u{202E}iFW\u{200B}"
            let core = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: ssid, bssid: "0A:00:00:00:00:07")])
            _ = try await core.join(ssid, accessPoint: "ap1", profile: "hostile")
            try await core.waitUntil("the daemon logs the join") { core.daemon.log.contains(" joined ") }
            let escaped = "Free\\u{202E}iFW\\u{200B}"
            let status = try await core.bus.run(TestKitPaths.product("hotspotctl").path, ["status"])
            let networks = try await core.bus.run(TestKitPaths.product("hotspotctl").path, ["networks"])
            let joined = core.daemon.log.split(separator: "\n").first { $0.contains(" joined ") }.map(String.init) ?? ""
            for (what, text) in [("status", status.stdout), ("networks", networks.stdout), ("the log", joined)] {
                #expect(text.contains(escaped), "\(what): \(UntrustedText.forLog(text, limit: 2000))")
                #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .format }, "\(what) printed a format character raw")
            }
        }
    }
}
