// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing

/// What probes see in ``NamespaceLab``'s namespaces: bound to the Wi-Fi link they see the
/// portal although the client's default route is online; unbound, the same names and DNS lead
/// out through the default route.
@Suite(.serialized, .enabled(if: NamespaceLab.canRun, "needs root and iproute2 (ip netns); skipped"))
struct NamespaceTests {
    @Test func probesBoundToTheWifiLinkSeeThePortalWhileTheDefaultRouteIsOnline() async throws {
        try await NamespaceLab.run(prefix: "hhpt") { lab in
            try await lab.startSimulators()
            let wifi = try await Self.probe(lab, interface: NamespaceLab.wifi, dns: NamespaceLab.portalIP)
            #expect(wifi["state"] as? String == "portal", "\(wifi)")
            #expect((wifi["signInURL"] as? String)?.contains("/portal?orig=") == true)

            let uplink = try await Self.probe(lab, interface: "up0", dns: NamespaceLab.internetIP)
            #expect(uplink["state"] as? String == "online", "\(uplink)")

            let defaultRoute = try await Self.probe(lab, interface: nil, dns: NamespaceLab.internetIP)
            #expect(defaultRoute["state"] as? String == "online", "the default route says online: \(defaultRoute)")

            let unboundWithWifiDNS = try await Self.probe(lab, interface: nil, dns: NamespaceLab.portalIP)
            #expect(unboundWithWifiDNS["state"] as? String == "online",
                    "without binding, the same names and DNS lead out through the default route: \(unboundWithWifiDNS)")

            let events = try await lab.portalEvents()
            #expect(events.contains("probe-portal"), "the portal saw the bound probes")
        }
    }
}

extension NamespaceTests {
    /// hotspot-portal-sim's `probe` run in the client namespace: its verdict as JSON.
    static func probe(_ lab: NamespaceLab, interface: String?, dns: String) async throws -> [String: Any] {
        let sim = TestKitPaths.product("hotspot-portal-sim").path
        var args = ["probe", "--dns", dns, "--timeout-ms", "3000",
                    "--url", "204@http://connectivitycheck.gstatic.com/generate_204",
                    "--url", "contains:Success@http://captive.apple.com/hotspot-detect.html",
                    "--url", "equals:Microsoft Connect Test@http://www.msftconnecttest.com/connecttest.txt",
                    "--url", "header:X-NetworkManager-Status:online@http://nmcheck.gnome.org/check_network_status.txt"]
        if let interface { args += ["--interface", interface] }
        let command = lab.exec(in: lab.client) + [sim] + args
        let r = try await ManagedProcess.run(command[0], Array(command.dropFirst()), timeout: .seconds(30))
        guard r.status == 0, let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw LabError(message: "probe failed (\(r.status)): \(r.stdout) \(r.stderr)")
        }
        return object
    }
}
