// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import PortalSimulator
import Testing

/// RFC 8910 end to end: no `capport-url` anywhere. The mock NetworkManager reports a DHCPv4 lease
/// (address and server identifier 127.0.0.1); a stand-in DHCP server on 127.0.0.1:67 answers the
/// daemon's DHCPINFORM with option 114 naming the simulator's RFC 8908 API behind TLS. The daemon
/// checks the link with that API, signs in at its user portal, and learns the session's end.
extension GatewayEndToEnd {
    @Suite(.enabled(if: TestEnvironment.hasDBusMock && TLSFront.available && getuid() == 0,
                    "needs dbus-daemon, python3-dbusmock, socat, openssl and root (port 67 on loopback); skipped"))
    struct RFC8910EndToEndTests {
        @Test func theAPIFromDHCPOption114IsUsedWithoutACapportURL() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .capport, sessionSeconds: 120),
                                         profile: "[CityFree]\nssid=CityFree\nsign-in=click-through\n", tls: true) { s in
                let api = "https://capport.test:\(s.tls?.port ?? 0)/api/captive"
                let dhcp = try DHCPStandIn(host: "127.0.0.1", port: 67, uri: api)
                defer { dhcp.stop() }
                try await s.nm.addDHCP4Config(s.client, device: s.device, address: "127.0.0.1", server: "127.0.0.1")
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                #expect(dhcp.requests.contains { $0.ciaddr == "127.0.0.1" && $0.requested.contains(114) && $0.sourcePort != 68 })
                #expect(s.daemon.log.contains("DHCP option 114 names the RFC 8908 API \(api)"), "\(s.daemon.log.suffix(3000))")
                #expect(s.events.contains("capport-api"), "the daemon asked the announced API: \(s.events)")
                #expect(s.events.filter { $0 == "accepted" }.count == 1, "\(s.events)")
                // The session's end comes from the API's seconds-remaining: maintain is scheduled by it.
                try await s.waitUntil("SessionExpires is published") { (try await s.property("SessionExpires")?.integer ?? 0) > 0 }
                let expires = UInt64(try await s.property("SessionExpires")?.integer ?? 0)
                let now = UInt64(Date().timeIntervalSince1970)
                #expect(expires > now + 60 && expires <= now + 121, "\(expires) vs now \(now)")
                // The API's venue-info-url is published and shown by hotspotctl status.
                #expect(try await s.string("VenueInfoUrl") == "https://venue.example/info")
                let status = try await ManagedProcess.run(TestKitPaths.product("hotspotctl").path, ["status"], environment: s.bus.environment,
                                                          timeout: .seconds(20))
                #expect(status.stdout.contains("wlan0: venue information https://venue.example/info"), "\(status.stdout)\(status.stderr)")
            }
        }

        /// The session learned from the announced API is kept alive by maintain, as with a
        /// profile's capport-url: extended before each end, never signed into again.
        @Test func aSessionFromTheAnnouncedAPIIsExtendedBeforeItEnds() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .capport, sessionSeconds: 12),
                                         profile: "[CityFree]\nssid=CityFree\nsign-in=click-through\n", tls: true) { s in
                let dhcp = try DHCPStandIn(host: "127.0.0.1", port: 67, uri: "https://capport.test:\(s.tls?.port ?? 0)/api/captive")
                defer { dhcp.stop() }
                try await s.nm.addDHCP4Config(s.client, device: s.device, address: "127.0.0.1", server: "127.0.0.1")
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                try await s.waitUntil("maintain extended the session") { s.events.contains("extend") }
                #expect(s.events.filter { $0 == "accepted" }.count == 1, "one sign-in, then extensions: \(s.events)")
            }
        }

        @Test func anHTTPURIInOption114IsRejectedAndLogged() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .clickThrough),
                                         profile: "[CityFree]\nssid=CityFree\nsign-in=click-through\n") { s in
                let dhcp = try DHCPStandIn(host: "127.0.0.1", port: 67, uri: "http://portal.test/api")
                defer { dhcp.stop() }
                try await s.nm.addDHCP4Config(s.client, device: s.device, address: "127.0.0.1", server: "127.0.0.1")
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                #expect(s.daemon.log.contains("RFC 8910: no captive-portal URI from DHCP"), "\(s.daemon.log.suffix(3000))")
                #expect(s.daemon.log.contains("not https"))
                #expect(!s.events.contains("capport-api"))
            }
        }
    }
}
