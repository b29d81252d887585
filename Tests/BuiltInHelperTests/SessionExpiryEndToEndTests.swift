// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import PortalSimulator
import Testing

/// RFC 8908 end to end: a capport session of a few seconds behind TLS (socat, a test CA). The
/// daemon learns `seconds-remaining`, the core moves maintain before the end, the profile helper
/// extends the session and the user stays signed in; when the portal comes back, maintain answers
/// authentication-required and a new sign-in follows.
extension GatewayEndToEnd {
    @Suite(.enabled(if: TestEnvironment.hasDBusMock && TLSFront.available, "needs dbus-daemon, python3-dbusmock, socat and openssl; skipped"))
    struct SessionExpiryEndToEndTests {
        @Test func maintainBeforeExpiryKeepsTheUserSignedInAndAReturningPortalLeadsToANewSignIn() async throws {
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .capport, sessionSeconds: 12),
                                         profile: "[CityFree]\nssid=CityFree\nsign-in=capport\ncapport-url=https://capport.test:{TLS}/api/captive\n",
                                         tls: true) { s in
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                #expect(s.events.filter { $0 == "accepted" }.count == 1, "\(s.events)")
                try await s.waitUntil("SessionExpires is published") { (try await s.property("SessionExpires")?.integer ?? 0) > 0 }
                let expires = UInt64(try await s.property("SessionExpires")?.integer ?? 0)
                let now = UInt64(Date().timeIntervalSince1970)
                #expect(expires >= now && expires <= now + 13, "CLOCK_REALTIME seconds of the session's end: \(expires) vs now \(now)")

                // Over two session lengths: without maintain before expiry, the session would lapse. The
                // session is 12 s, so maintain comes 3 s before each end (a quarter of it): on a loaded
                // 2-core machine a 6 s session's 2 s lead was not always enough for the TLS round trip.
                let seen = try await s.values(of: "Connectivity", over: .seconds(27))
                #expect(Set(seen) == ["full"], "the user stayed signed in: \(seen)\n\(s.daemon.log.suffix(3000))")
                let extensions = s.events.filter { $0 == "extend" }.count
                #expect(extensions >= 2, "maintain extended the session before each end: \(s.events)")
                #expect(s.daemon.log.contains("RFC 8908 session ends in"))

                // The portal comes back (the operator ended the session).
                s.sim.signOut("127.0.0.1")
                try await s.waitUntil("a new sign-in after authentication-required") {
                    s.events.filter { $0 == "accepted" }.count >= 2
                }
                #expect(s.daemon.log.contains("maintain → builtin.profiles: authentication-required"), "\(s.daemon.log.suffix(3000))")
                try await s.waitFor(state: "authenticated", connectivity: "full")
            }
        }
    }
}
