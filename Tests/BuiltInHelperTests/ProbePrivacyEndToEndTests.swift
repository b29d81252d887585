// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Testing

/// Periodic probes only while NetworkManager's connectivity check is on (the user's choice of
/// privacy), through the daemon: python-dbusmock's NetworkManager given
/// `ConnectivityCheckEnabled`/`ConnectivityCheckUri`, the simulator on loopback as the only probe
/// endpoint, and `interval=0.3` so that periodic checks, when there are any, come several times a
/// second. Opted out: the join is probed, then nothing while the network stays joined; opted in:
/// the probes keep coming; switching NetworkManager's check on or off takes effect live.
extension DaemonEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct ProbePrivacyEndToEndTests {
        /// `configured` false: no `probes=`, so the daemon takes NetworkManager's URI (the simulator's).
        static func run(enabled: Bool, configured: Bool, _ body: (PortalScenario) async throws -> Void) async throws {
            try await PortalScenario.run(
                PortalSimulatorConfiguration(mode: .open),
                accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")],
                connectivity: ["interval": "0.3"],
                probes: { port in configured ? "http://connectivitycheck.gstatic.com:\(port)/generate_204 status=204" : "" },
                beforeDaemon: { nm, client, port in
                    let nmURI = "http://nmcheck.gnome.org:\(port)/check_network_status.txt"
                    for (name, value) in [("ConnectivityCheckEnabled", DBusValue.bool(enabled)), ("ConnectivityCheckUri", .string(nmURI))] {
                        _ = try await nm.mockCall(client, path: DBusMock.networkManagerPath, "AddProperty",
                                                  [.string("org.freedesktop.NetworkManager"), .string(name), .variant(value)])
                    }
                }, body)
        }

        @Test func optedOutProbesTheJoinThenNothingWhileJoined() async throws {
            try await Self.run(enabled: false, configured: true) { s in
                #expect(s.probes == 0, "nothing is probed before a network is joined")
                try await s.join("CityFree")
                try await s.waitUntil("the join is probed") { s.probes > 0 }
                // The join's check and the helpers' evaluation probe too: they are over once half a second passes without a probe.
                try await s.waitFor(state: "authenticated", connectivity: "full")
                try await s.waitUntil("the join's probes end") { try await s.noProbes(during: .milliseconds(500)) }
                #expect(try await s.noProbes(during: .seconds(3)), "probes while idle-joined with NetworkManager's check off (interval 0.3 s): \(s.events)")
                #expect(s.sim.events().allSatisfy { !$0.path.contains("check_network_status") }, "only the configured endpoint")
                #expect(s.daemon.log.contains("probing only while joining, evaluating or signing in"))
                let policy = try await s.managerProperty("ProbePolicy")?.string ?? ""
                #expect(policy == "probes: http://connectivitycheck.gstatic.com:\(s.simPort)/generate_204 ([connectivity] probes=; "
                    + "NetworkManager's connectivity check is off: probing only while joining, evaluating or signing in)")

                // NetworkManager's check switched on: periodic probes start without a restart.
                let idle = s.probes
                try await s.setNetworkManagerCheck(enabled: true)
                try await s.waitUntil("periodic probes after NetworkManager's check is switched on") { s.probes >= idle + 2 }
                #expect(try await s.managerProperty("ProbePolicy")?.string?.hasSuffix("([connectivity] probes=; periodic checks)") == true)
            }
        }

        @Test func optedInProbesPeriodicallyAtNetworkManagersURI() async throws {
            try await Self.run(enabled: true, configured: false) { s in
                try await s.join("CityFree")
                try await s.waitUntil("the join is probed") { s.probes > 0 }
                // Signed in, the join's checks are over: what is probed now is periodic (each probe
                // wakes the wait, however long the machine takes between them).
                try await s.waitFor(state: "authenticated", connectivity: "full")
                let joined = s.probes
                try await s.waitUntil("three periodic probes while joined (interval 0.3 s)") { s.probes >= joined + 3 }
                let paths = Set(s.sim.events().filter { $0.kind.hasPrefix("probe") }.map(\.path))
                #expect(paths == ["/check_network_status.txt"], "NetworkManager's URI alone: \(paths)")
                #expect(try await s.managerProperty("ProbePolicy")?.string
                        == "probes: http://nmcheck.gnome.org:\(s.simPort)/check_network_status.txt (NetworkManager's ConnectivityCheckUri; periodic checks)")

                let status = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["status"])
                #expect(status.stdout.contains("\nprobes: http://nmcheck.gnome.org:\(s.simPort)/check_network_status.txt (NetworkManager's ConnectivityCheckUri; periodic checks)\n"),
                        "\(status.stdout)\(status.stderr)")

                // Switched off: the periodic probes stop.
                try await s.setNetworkManagerCheck(enabled: false)
                try await s.waitUntil("the daemon follows NetworkManager") { s.daemon.log.contains("NetworkManager's check changed") }
                // A check already on its way may still arrive: the probes have stopped once half a second passes without one.
                try await s.waitUntil("the probes stop") { try await s.noProbes(during: .milliseconds(500)) }
                #expect(try await s.noProbes(during: .seconds(2)), "probes after NetworkManager's check was switched off: \(s.events)")
                let json = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["--json", "status"])
                #expect(json.stdout.contains("probing only while joining, evaluating or signing in"), "\(json.stdout)")
            }
        }
    }
}

extension PortalScenario {
    /// The probes the simulator saw.
    var probes: Int { sim.events().filter { $0.kind.hasPrefix("probe") }.count }

    /// Whether no probe reached the simulator over `window` (each request wakes the check).
    func noProbes(during window: Duration) async throws -> Bool {
        let before = probes
        return try await holdsThroughout(window) { probes == before }
    }

    func setNetworkManagerCheck(enabled: Bool) async throws {
        _ = try await nm.mockCall(client, path: DBusMock.networkManagerPath, "SetProperty",
                                  [.string(DBusMock.networkManagerPath), "org.freedesktop.NetworkManager", "ConnectivityCheckEnabled",
                                   .variant(.bool(enabled))])
    }
}
