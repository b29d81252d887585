// SPDX-License-Identifier: Apache-2.0
import BusTestKit
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Testing

/// Issue 11 item 7 through the daemon: python-dbusmock's NetworkManager given
/// `ConnectivityCheckEnabled`/`ConnectivityCheckUri`, the simulator on loopback as the only probe
/// endpoint, and `interval=0.3` so that periodic checks, when there are any, come several times a
/// second. Opted out: the join is probed, then nothing while the network stays joined; opted in:
/// the probes keep coming; switching NetworkManager's check on or off takes effect live.
extension DaemonEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct ProbePrivacyEndToEndTests {
        struct Setup {
            let bus: PrivateBus
            let nm: DBusMock
            let client: Connection
            let device: String
            let daemon: DaemonProcess
            let sim: PortalSimulator
            let dns: SimulatorDNS
            let port: UInt16

            var probes: Int { sim.events().filter { $0.kind.hasPrefix("probe") }.count }

            func stop() async {
                daemon.process.stop()
                dns.stop()
                await sim.stop()
                nm.stop()
                bus.stop()
            }

            func setNetworkManagerCheck(enabled: Bool) async throws {
                _ = try await nm.mockCall(client, path: DBusMock.networkManagerPath, "SetProperty",
                                          [.string(DBusMock.networkManagerPath), "org.freedesktop.NetworkManager", "ConnectivityCheckEnabled",
                                           .variant(.bool(enabled))])
            }

            func managerProperty(_ name: String) async throws -> DBusValue? {
                try await client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: "org.freedesktop.DBus.Properties",
                                      member: "Get", body: [.string(HotspotContract.managerInterface.rawValue), .string(name)]).first?.unwrapped
            }

            func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
                let deadline = ContinuousClock.now + timeout
                while ContinuousClock.now < deadline {
                    if try await condition() { return }
                    try await Task.sleep(for: .milliseconds(20))
                }
                throw TestKitError.timeout("\(what): not within \(timeout)\n--- simulator ---\n\(sim.events().map { "\($0.kind) \($0.path)" }.joined(separator: "\n"))\n--- daemon log ---\n\(daemon.log.suffix(6000))")
            }

            /// The probes counted over `window` while the network stays joined.
            func probes(during window: Duration) async throws -> Int {
                let before = probes
                try await Task.sleep(for: window)
                return probes - before
            }
        }

        /// `configured` false: no `probes=`, so the daemon takes NetworkManager's URI (the simulator's).
        static func start(enabled: Bool, configured: Bool) async throws -> Setup {
            let sim = PortalSimulator(configuration: PortalSimulatorConfiguration(mode: .open))
            let port = try await sim.start()
            let dns = try SimulatorDNS(host: "127.0.0.1", port: 0, answer: "127.0.0.1")
            let bus = try await PrivateBus()
            let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
            let client = try bus.connect()
            let nmURI = "http://nmcheck.gnome.org:\(port)/check_network_status.txt"
            for (name, value) in [("ConnectivityCheckEnabled", DBusValue.bool(enabled)), ("ConnectivityCheckUri", .string(nmURI))] {
                _ = try await nm.mockCall(client, path: DBusMock.networkManagerPath, "AddProperty",
                                          [.string("org.freedesktop.NetworkManager"), .string(name), .variant(value)])
            }
            let device = try await nm.setUpWiFi(client, accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")])
            var c = ["dns-servers": "127.0.0.1:\(dns.port)", "bind-interface": "false", "probe-timeout": "3", "interval": "0.3"]
            if configured { c["probes"] = "http://connectivitycheck.gstatic.com:\(port)/generate_204 status=204" }
            let daemon = try await DaemonProcess.start(on: bus, settings: ["command-timeout": "10", "filter-interval": "0.2"], connectivity: c)
            let s = Setup(bus: bus, nm: nm, client: client, device: device, daemon: daemon, sim: sim, dns: dns, port: port)
            try await s.waitUntil("the daemon publishes wlan0") {
                try await s.managerProperty("Interfaces")?.objectPaths?.contains(HotspotContract.interfacePath(1)) == true
            }
            return s
        }

        @Test func optedOutProbesTheJoinThenNothingWhileJoined() async throws {
            let s = try await Self.start(enabled: false, configured: true)
            defer { Task { await s.stop() } }
            #expect(s.probes == 0, "nothing is probed before a network is joined")
            _ = try await s.nm.joinWiFi(s.client, device: s.device, ssid: "CityFree", accessPoint: "ap1")
            try await s.waitUntil("the join is probed") { s.probes > 0 }
            try await Task.sleep(for: .milliseconds(500))  // the join's check and the helpers' evaluation settle
            let idle = try await s.probes(during: .seconds(3))
            #expect(idle == 0, "\(idle) probes in 3 s while idle-joined with NetworkManager's check off (interval 0.3 s)")
            #expect(s.sim.events().allSatisfy { !$0.path.contains("check_network_status") }, "only the configured endpoint")
            #expect(s.daemon.log.contains("probing only while joining, evaluating or signing in"))
            let policy = try await s.managerProperty("ProbePolicy")?.string ?? ""
            #expect(policy == "probes: http://connectivitycheck.gstatic.com:\(s.port)/generate_204 ([connectivity] probes=; "
                + "NetworkManager's connectivity check is off: probing only while joining, evaluating or signing in)")

            // NetworkManager's check switched on: periodic probes start without a restart.
            try await s.setNetworkManagerCheck(enabled: true)
            try await s.waitUntil("periodic probes after NetworkManager's check is switched on") { try await s.probes(during: .seconds(1)) >= 2 }
            #expect(try await s.managerProperty("ProbePolicy")?.string?.hasSuffix("([connectivity] probes=; periodic checks)") == true)
        }

        @Test func optedInProbesPeriodicallyAtNetworkManagersURI() async throws {
            let s = try await Self.start(enabled: true, configured: false)
            defer { Task { await s.stop() } }
            _ = try await s.nm.joinWiFi(s.client, device: s.device, ssid: "CityFree", accessPoint: "ap1")
            try await s.waitUntil("the join is probed") { s.probes > 0 }
            let periodic = try await s.probes(during: .seconds(2))
            #expect(periodic >= 3, "only \(periodic) probes in 2 s with interval 0.3 s")
            let paths = Set(s.sim.events().filter { $0.kind.hasPrefix("probe") }.map(\.path))
            #expect(paths == ["/check_network_status.txt"], "NetworkManager's URI alone: \(paths)")
            #expect(try await s.managerProperty("ProbePolicy")?.string
                    == "probes: http://nmcheck.gnome.org:\(s.port)/check_network_status.txt (NetworkManager's ConnectivityCheckUri; periodic checks)")

            let status = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["status"])
            #expect(status.stdout.contains("\nprobes: http://nmcheck.gnome.org:\(s.port)/check_network_status.txt (NetworkManager's ConnectivityCheckUri; periodic checks)\n"),
                    "\(status.stdout)\(status.stderr)")

            // Switched off: the periodic probes stop.
            try await s.setNetworkManagerCheck(enabled: false)
            try await s.waitUntil("the daemon follows NetworkManager") { s.daemon.log.contains("NetworkManager's check changed") }
            try await Task.sleep(for: .milliseconds(500))
            let after = try await s.probes(during: .seconds(2))
            #expect(after == 0, "\(after) probes in 2 s after NetworkManager's check was switched off")
            let json = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["--json", "status"])
            #expect(json.stdout.contains("probing only while joining, evaluating or signing in"), "\(json.stdout)")
        }
    }
}
