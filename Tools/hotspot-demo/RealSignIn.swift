// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import DBus
import Foundation
import HotspotProtocol

/// The demo's second part: a real sign-in. hotspot-portal-sim runs a click-through portal on
/// loopback, a profile for CityFree (sign-in=click-through, mode 0600) sits in a temporary
/// profiles directory, and the daemon probes the simulator (bind-interface=false, probes and DNS
/// pointed at it). The output shows the portal found, the terms accepted by the built-in profiles
/// helper (as the simulator recorded it) and Connectivity going portal → full.
struct RealSignInDemo {
    let demo: Demo

    func run() async throws {
        demo.say("\nPart 2 — a real sign-in: hotspot-portal-sim (click-through) on loopback, a profile for CityFree, the built-in helpers")
        let sim = try await SimulatedPortal.start(mode: "click-through")
        defer { sim.stop() }
        let (port, dnsPort) = (sim.port, sim.dnsPort)
        demo.say("  ✓ portal simulator on 127.0.0.1:\(port), its DNS on 127.0.0.1:\(dnsPort) (every name → 127.0.0.1)")

        let profiles = try ProfilesDirectory()
        defer { profiles.remove() }
        let text = "[CityFree]\nssid=CityFree\ndisplay-name=City Free Wi-Fi\nsign-in=click-through\n"
        let profile = try profiles.write("cityfree.conf", text)
        demo.say("  ✓ profile \(profile) (mode 0600):")
        for line in text.split(separator: "\n") { demo.say("      \(line)") }

        let bus = try await PrivateBus()
        defer { bus.stop() }
        let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        defer { nm.stop() }
        let c = try bus.connect()
        let nmPath = "/org/freedesktop/NetworkManager"
        let device = try await nm.mockCall(c, path: nmPath, "AddWiFiDevice", ["wlan0", "wlan0", .int32(30)]).first?.string ?? ""
        _ = try await nm.mockCall(c, path: nmPath, "AddAccessPoint", [.string(device), "ap1", "CityFree", "0A:11:22:33:44:01",
                                                                       .uint32(2), .uint32(2412), .uint32(54000), .byte(82), .uint32(0)])
        try await nm.addAgentManager(c)
        try await nm.addDisconnect(c, device: device)
        let daemon = try await DaemonProcess.start(on: bus, settings: ["profiles-dir": profiles.path, "command-timeout": "10"],
                                                   connectivity: sim.connectivity(), logLevel: "info")
        defer { daemon.process.stop() }
        demo.say("  ✓ hotspot-helperd with [connectivity] bind-interface=false, 4 probes and DNS at the simulator")

        let path = HotspotContract.interfacePath(1)
        let changes = try await c.signals(matching: MatchRule(sender: HotspotContract.busName, path: path,
                                                              interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        let watcher = Task {
            for await s in changes {
                guard s.body.count == 3, let changed = s.body[1].varDict else { continue }
                if let v = changed["Connectivity"]?.unwrapped.string { demo.event("wlan0  Connectivity → \(v)") }
                if let v = changed["PortalUrl"]?.unwrapped.string, !v.isEmpty { demo.event("wlan0  PortalUrl → \(v)") }
                if let v = changed["State"]?.unwrapped.string { demo.event("wlan0  state → \(v)") }
                if let v = changed["Helper"]?.unwrapped.string, !v.isEmpty { demo.event("wlan0  chosen helper: \(v)") }
            }
        }
        defer { watcher.cancel() }
        _ = try await pollUntil(timeout: .seconds(4), every: .milliseconds(20)) { try await c.daemonInterfaces().contains(path) }
        demo.say("\nJoining CityFree:")
        _ = try await nm.mockCall(c, path: nmPath, "AddWiFiConnection", [.string(device), "cityfree", "CityFree", ""])
        _ = try await nm.mockCall(c, path: nmPath, "AddActiveConnection", [.strings([device]), "/org/freedesktop/NetworkManager/Settings/cityfree",
                                                                            "/org/freedesktop/NetworkManager/AccessPoint/ap1", "active1", .uint32(2)])
        var connectivity = ""
        _ = await pollUntil(timeout: .seconds(10), every: .milliseconds(25)) {
            connectivity = (try? await c.daemonProperty(path, "Connectivity"))?.string ?? ""
            return connectivity == "full"
        }
        try await Task.sleep(for: .milliseconds(300))
        demo.say("\nWhat the simulator recorded (GET /__sim/events):")
        let events = await sim.events()
        for e in events where ["probe-portal", "portal-page", "accepted", "probe-online"].contains(e["kind"] as? String ?? "") {
            demo.say("  \(e["method"] ?? "") \(e["host"] ?? "")\(e["path"] ?? "")  → \(e["kind"] ?? "") \(e["detail"] ?? "")")
        }
        let accepted = events.contains { $0["kind"] as? String == "accepted" && $0["method"] as? String == "POST" }
        demo.say(accepted ? "  ✓ the sign-in POST reached the portal; Connectivity is \(connectivity)" : "  ✗ no sign-in was recorded")
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("connectivity") || $0.contains("sign-in") || $0.contains("→") }
        demo.say("\nThe daemon's log of it:")
        for line in lines.suffix(10) { demo.say("  | \(line)") }
    }
}
