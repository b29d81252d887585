// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Testing

/// Real portals are slow and odd: a gateway that resets a new client's connections for a while,
/// answers its first requests late, sends it to a splash page on another port through two GET
/// forms, or flaps. Through the daemon, its built-in helpers and the mock NetworkManager, on
/// loopback: signed in, Connectivity full, never disconnected.
extension GatewayEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct SlowPortalEndToEndTests {
        static let clickThroughProfile = "[CityFree]\nssid=CityFree\nsign-in=click-through\n"

        /// Connectivity's values from the join until `state`/`connectivity` is reached.
        static func connectivitySeen(_ s: PortalScenario, until state: String, connectivity: String, timeout: Duration = SafetyNet.wait) async throws -> [String] {
            let seen = try await s.watch("Connectivity")
            try await s.join("CityFree")
            try await s.waitFor(state: state, connectivity: connectivity, timeout: timeout)
            return await seen.stop()
        }

        @Test func aGatewayThatResetsANewClientForAWhileIsWaitedForNotBelieved() async throws {
            var config = PortalSimulatorConfiguration(mode: .clickThrough)
            config.refuseSeconds = 3
            try await PortalScenario.run(config) { s in
                let joined = ContinuousClock.now
                let values = try await Self.connectivitySeen(s, until: "authenticated", connectivity: "full")
                print("join to full behind a gateway refusing 3 s: \(ContinuousClock.now - joined)")
                #expect(s.events.contains("refused-connection"), "the gateway refused first: \(s.events)")
                #expect(s.events.contains("accepted"), "the portal helper accepted the terms: \(s.diagnostics)")
                #expect(!values.contains("none"), "a refused probe was believed: \(values)")
                #expect(try await !s.disconnected())
                #expect(try await s.string("Helper") == "Portal")
            }
        }

        /// A user not thrown off a slow gateway: the first authenticate meets the refused gateway (patience
        /// cut short here) and answers temporary-failure; it is repeated, not disconnected.
        @Test func temporaryFailureAgainstARefusingGatewayIsRetriedUntilSignedIn() async throws {
            var config = PortalSimulatorConfiguration(mode: .clickThrough)
            config.refuseSeconds = 3
            try await PortalScenario.run(config, profile: Self.clickThroughProfile, connectivity: ["join-patience": "0.1"],
                                         settings: ["authenticate-retry-delay": "1"]) { s in
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                #expect(s.daemon.log.contains("failed temporarily; trying again"), "\(s.diagnostics)")
                #expect(s.events.contains("accepted"))
                #expect(try await !s.disconnected(), "a gateway that needed a few seconds threw the user off")
                #expect(try await s.string("Helper") == "Known Networks")
            }
        }

        /// Not "no helper, ever": the join's evaluate saw no portal (patience cut short),
        /// every helper answered none; the portal that shows itself later is signed into.
        @Test func aPortalFoundAfterTheJoinIsSignedInto() async throws {
            var config = PortalSimulatorConfiguration(mode: .clickThrough)
            config.refuseSeconds = 3
            try await PortalScenario.run(config, connectivity: ["join-patience": "0.1"]) { s in
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                #expect(s.events.contains("accepted"), "\(s.diagnostics)")
                #expect(try await s.string("Helper") == "Portal")
                // Evaluated twice: at the join (none), and once the portal showed itself.
                let evaluations = s.daemon.log.components(separatedBy: "evaluate → builtin.portal").count - 1
                #expect(evaluations >= 2, "\(s.diagnostics)")
            }
        }

        @Test func aGatewayAnsweringItsFirstRequestsLateIsSignedIntoWithoutNone() async throws {
            var config = PortalSimulatorConfiguration(mode: .clickThrough, slowDelay: .seconds(4))
            config.slowFirstRequests = 4
            try await PortalScenario.run(config, profile: Self.clickThroughProfile) { s in
                let joined = ContinuousClock.now
                let values = try await Self.connectivitySeen(s, until: "authenticated", connectivity: "full")
                print("join to full behind a gateway answering its first 4 requests 4 s late: \(ContinuousClock.now - joined)")
                #expect(s.events.contains("slow-answer"))
                #expect(!values.contains("none"), "a probe slower than its timeout was believed: \(values)")
                #expect(try await !s.disconnected())
            }
        }

        @Test func anOpenNDSLikeGatewayIsSignedIntoThroughTwoGetFormsOnAnotherPort() async throws {
            var config = PortalSimulatorConfiguration(mode: .getForms)
            config.splashPort = try Self.freePort()
            try await PortalScenario.run(config, profile: Self.clickThroughProfile) { s in
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                #expect(s.events.contains("continue") && s.events.contains("login-ok"), "\(s.diagnostics)")
                #expect(!s.events.contains("login-failed") && !s.events.contains("refused"))
                let splash = s.sim.events().filter { $0.kind == "portal-page" }
                #expect(!splash.isEmpty)
            }
        }

        @Test func thePortalHelperAloneGoesThroughTheGetForms() async throws {
            var config = PortalSimulatorConfiguration(mode: .getForms)
            config.splashPort = try Self.freePort()
            try await PortalScenario.expectThePortalHelperAloneSignsIn(config, recording: "login-ok")
        }

        @Test func aNameAndEmailFormAfterTheTermsIsFilledFromTheProfile() async throws {
            var config = PortalSimulatorConfiguration(mode: .getForms)
            config.detailsForm = true
            let profile = "[CityFree]\nssid=CityFree\nsign-in=form\nform-field-name=Ada\nform-field-email=ada@example.org\n" + PortalScenario.loginHosts
            try await PortalScenario.run(config, profile: profile) { s in
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full")
                let ok = s.sim.events().first { $0.kind == "login-ok" }
                #expect(ok?.detail == "fields: email,go,name,tok", "\(s.diagnostics)")
                #expect(!s.daemon.log.contains("ada@example.org"), "the profile's fields are never logged")
            }
        }

        /// A portal nobody can sign in to (a form, no profile) that hangs every other period: the
        /// timeouts do not turn it into "none", and the user is not disconnected.
        @Test func aFlappingPortalStaysAPortal() async throws {
            var config = PortalSimulatorConfiguration(mode: .form)
            // Phases under a second, and not a whole fraction of one: checks back off to a whole
            // number of seconds apart, and with phases of whole seconds they could keep landing
            // in the answering half (a run saw 22 checks and no hang).
            config.flapSeconds = 0.7
            config.flapHang = .seconds(6)
            try await PortalScenario.run(config) { s in
                try await s.join("CityFree")
                try await s.waitFor(state: "presenting-ui", connectivity: "portal")
                // Watched until a check has met a hang (probes back off, so how many land in a hang
                // period in a fixed window depends on the machine's timing), at most 36 s.
                var values: [String] = []
                for _ in 0..<6 {
                    values += try await s.values(of: "Connectivity", over: .seconds(6))
                    if s.events.contains("flap-hang") { break }
                }
                #expect(s.events.contains("flap-hang"), "\(s.diagnostics)")
                #expect(values.allSatisfy { $0 == "portal" }, "\(values)")
                #expect(try await !s.disconnected())
            }
        }

        /// While a join's checks find nothing and are repeated, `hotspotctl status` says the verdict
        /// is pending instead of showing "unknown" or "none".
        @Test func statusSaysTheVerdictIsPendingWhileChecksAreRepeated() async throws {
            var config = PortalSimulatorConfiguration(mode: .clickThrough)
            config.refuseSeconds = 30
            try await PortalScenario.run(config, profile: Self.clickThroughProfile) { s in
                try await s.join("CityFree")
                try await s.waitUntil("the gateway refused a probe") { s.events.contains("refused-connection") }
                let status = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["status"])
                let row = status.stdout.split(separator: "\n").first { $0.hasPrefix("wlan0") } ?? ""
                #expect(row.contains("pending"), "\(status.stdout)\(status.stderr)")
                #expect(status.stdout.contains("wlan0: connectivity verdict pending"), "\(status.stdout)")
                #expect(try await s.string("Connectivity") == "unknown")
                #expect(try await !s.disconnected())
            }
        }

        static func freePort() throws -> UInt16 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            return UInt16(bigEndian: a.sin_port)
        }
    }
}
