// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Testing

/// A gateway slower than the probes: the simulator's slow router (openNDS on a small router)
/// answers one request at a time, each seconds late, and starts intercepting a client only a
/// while after its first packet. Through the daemon, its built-in helpers and the mock
/// NetworkManager, on loopback: the join is checked until the portal answers, the daemon sends
/// the gateway one request at a time instead of bursts it would spend its time on, the network
/// is not called signed in before anyone signed in, and the sign-in ends with NetworkManager
/// asked to check again (so its own verdict leaves PORTAL).
///
/// Slow routers answer 6–10 s late (30 s with the site's patience configured to match); these
/// scenarios use 6–8 s, and the silent gateway answers nothing for 40 s, as one was seen to.
extension GatewayEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct SlowRouterEndToEndTests {
        /// The requests the slow router made a client wait for before the sign-in, and what
        /// `State` went through from the join to full.
        struct Run {
            var states: [String]
            var waitsBeforeSignIn: Int
            var joinToFull: Duration
        }

        /// Generous command deadlines: every page of the sign-in takes the gateway 6–8 s.
        static let settings = ["command-timeout": "120"]

        /// Joins CityFree behind `config`'s slow router, waits (on events; `safetyNet` is ~10×
        /// the gateway's own time) for authenticated and full, the sign-in recorded as `signedIn`,
        /// and runs `body` on what it saw; the scenario is stopped afterwards.
        static func run(_ config: PortalSimulatorConfiguration, profile: String = "", signedIn: String,
                        safetyNet: Duration, _ body: (PortalScenario, Run) async throws -> Void) async throws {
            try await PortalScenario.run(config, profile: profile, settings: settings) { s in
                let seen = try await s.watch("State")
                let joined = ContinuousClock.now
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated", connectivity: "full", timeout: safetyNet)
                let took = ContinuousClock.now - joined
                let states = await seen.stop()
                // What the daemon did at the gateway, hop by hop (for the record; asserted below).
                print(s.daemon.log.split(separator: "\n").filter { $0.contains("wlan0") && !$0.contains(" debug ") }.joined(separator: "\n"))
                print(s.sim.events().map { String(format: "%6.1f s  %@ %@ %@", $0.time, $0.kind, $0.path, $0.detail) }.joined(separator: "\n"))
                let events = s.sim.events()
                let signIn = events.firstIndex { $0.kind == signedIn } ?? events.count
                let waits = events[..<signIn].filter { $0.kind == "slow-router-wait" }.count
                try await body(s, Run(states: states, waitsBeforeSignIn: waits, joinToFull: took))
            }
        }

        /// What every scenario shows: signed in by `helper`, never "authenticated" before an
        /// authenticate, no burst at the gateway, NetworkManager asked to check after the sign-in.
        static func expectSignedInWithoutBursts(_ s: PortalScenario, _ run: Run, helper: String, requestsNeeded: Int,
                                                sourceLocation: SourceLocation = #_sourceLocation) async throws {
            #expect(try await s.string("Helper") == helper, "\(s.diagnostics)", sourceLocation: sourceLocation)
            // The state tells the truth: nobody had signed in before the first authenticate.
            let firstAuthenticating = run.states.firstIndex(of: "authenticating") ?? run.states.count
            #expect(!run.states[..<firstAuthenticating].contains("authenticated"),
                    "called signed in before any helper signed in: \(run.states)\n\(s.diagnostics)", sourceLocation: sourceLocation)
            // One request at a time: the gateway served the requests the sign-in needs, plus at
            // most one the daemon gave up on, not a burst of probes and their retries.
            #expect(run.waitsBeforeSignIn <= requestsNeeded + 1,
                    "the gateway queued \(run.waitsBeforeSignIn) requests before the sign-in (\(requestsNeeded) needed)\n\(s.diagnostics)",
                    sourceLocation: sourceLocation)
            #expect(try await s.networkManagerChecks() >= 1, "NetworkManager was not asked to check after the sign-in", sourceLocation: sourceLocation)
            #expect(try await !s.disconnected(), sourceLocation: sourceLocation)
        }

        @Test func aClickThroughBehindASlowRouterIsSignedIntoByThePortalHelper() async throws {
            var config = PortalSimulatorConfiguration(mode: .clickThrough)
            config.slowRouter = SlowRouterSettings(delay: 6...8, interceptAfter: 3)
            try await Self.run(config, signedIn: "accepted", safetyNet: .seconds(300)) { s, run in
                print("slow router (click-through, 6–8 s per answer, intercepting after 3 s): join → full \(run.joinToFull), \(run.waitsBeforeSignIn) requests queued before the sign-in")
                // The lead probe's redirect, the terms page, the accept.
                try await Self.expectSignedInWithoutBursts(s, run, helper: "Portal", requestsNeeded: 3)
                #expect(s.daemon.log.contains("the gateway answered the lead probe after"), "\(s.diagnostics)")
            }
        }

        @Test func aNameAndEmailFormBehindASlowRouterIsFilledFromTheProfile() async throws {
            var config = PortalSimulatorConfiguration(mode: .getForms)
            config.detailsForm = true
            config.slowRouter = SlowRouterSettings(delay: 6...8, interceptAfter: 3)
            let profile = "[CityFree]\nssid=CityFree\nsign-in=form\nform-field-name=Ada\nform-field-email=ada@example.org\n" + PortalScenario.loginHosts
            try await Self.run(config, profile: profile, signedIn: "login-ok", safetyNet: .seconds(400)) { s, run in
                print("slow router (name-and-e-mail form, 6–8 s per answer): join → full \(run.joinToFull), \(run.waitsBeforeSignIn) requests queued before the sign-in")
                // The lead probe's 307, the splash page, its "Continue", the details form's POST.
                try await Self.expectSignedInWithoutBursts(s, run, helper: "Known Networks", requestsNeeded: 4)
                let ok = s.sim.events().first { $0.kind == "login-ok" }
                #expect(ok?.detail == "fields: email,go,name,tok", "\(s.diagnostics)")
                #expect(!s.daemon.log.contains("ada@example.org"), "the profile's fields are never logged")
            }
        }

        /// A gateway that answers nothing at all for 40 s, then intercepts. The join is
        /// checked all along (no quiet minutes), shown pending rather than none, and the portal
        /// found late is signed into by the helpers.
        @Test func aGatewaySilentFor40SecondsIsCheckedUntilItInterceptsAndSignedInto() async throws {
            var config = PortalSimulatorConfiguration(mode: .clickThrough)
            config.slowRouter = SlowRouterSettings(delay: 6...8, interceptAfter: 40, silentBeforeInterception: true)
            try await Self.run(config, signedIn: "accepted", safetyNet: .seconds(500)) { s, run in
                print("slow router silent for 40 s, then 6–8 s per answer: join → full \(run.joinToFull)")
                try await Self.expectSignedInWithoutBursts(s, run, helper: "Portal", requestsNeeded: 3)
                // Checked all along: more than one probe went out while it was silent.
                let silent = s.sim.events().filter { $0.kind == "silent" }.count
                #expect(silent >= 2, "\(s.diagnostics)")
                #expect(s.daemon.log.contains("waiting for the connectivity check's verdict"), "\(s.diagnostics)")
            }
        }
    }
}
