// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
import HotspotProtocol
import HotspotTesting
import Testing

/// One rule for location data (docs/ARCHITECTURE.md, "Location data"): SSIDs and BSSIDs go only to
/// root and callers polkit allows read-scan-list. GetScanList held to it; the `Network` property
/// and its PropertiesChanged gave any uid the current SSID and BSSID.
@Suite(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"),
                "needs root (to run callers as nobody), setpriv and python3-dbusmock"))
struct LocationDataTests {
    static let ssid = "OfficeHQ"
    static let bssid = "0A:00:00:00:00:09"

    func asNobody(_ f: DaemonScenario, _ arguments: [String]) async throws -> ManagedProcess.Result {
        try await f.runAsNobody(["/usr/bin/busctl", "--address=\(f.bus.address)", "--json=short"] + arguments)
    }

    @Test func anyUserSeesTheStateButNotWhereTheMachineIs() async throws {
        let f = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: Self.ssid, bssid: Self.bssid)])
        // nobody listens to every PropertiesChanged while the machine joins.
        let monitor = try ManagedProcess.launch("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/dbus-monitor",
                                                                     "--address", f.bus.address, "type='signal',sender='\(HotspotContract.busName)'"])
        defer { monitor.stop() }
        #expect(await monitor.waitForOutput(containing: "NameAcquired"), "\(monitor.output)")
        _ = try await f.join(Self.ssid)
        try await f.waitUntil("the Network property is set") { !((try await f.property("Network"))?.varDict ?? [:]).isEmpty }
        let path = f.interfacePath.rawValue, iface = HotspotContract.interfaceInterface.rawValue
        let got = try await asNobody(f, ["get-property", HotspotContract.busName.rawValue, path, iface, "Network", "State", "Helper", "Connectivity", "Reason"])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout.contains("signal-strength"), "the property is still there: \(got.stdout)")
        let hex = Self.ssid.utf8.map { String($0) }.joined(separator: ",")
        for secret in [Self.bssid, hex, "\"ssid\"", "\"bssid\""] {
            #expect(!got.stdout.contains(secret), "nobody read \(secret): \(got.stdout)")
        }
        // Its changes as broadcast: no SSID or BSSID either (dbus-monitor prints ay as bytes).
        #expect(await monitor.waitForOutput(containing: "Network"), "nobody saw no announcement: \(monitor.output)")
        let ssidBytes = Self.ssid.utf8.prefix(3).map { String(format: "%02x", $0) }.joined(separator: " ")
        #expect(!monitor.output.contains(Self.bssid) && !monitor.output.contains(ssidBytes) && !monitor.output.contains(Self.ssid),
                "a signal carried the network's identity: \(monitor.output.suffix(4000))")
        // GetNetwork has them, behind read-scan-list: refused without polkit, given to root.
        let refused = try await asNobody(f, ["call", HotspotContract.busName.rawValue, path, iface, "GetNetwork"])
        #expect(refused.status != 0 && refused.stderr.contains("read-scan-list"), "\(refused.stdout) \(refused.stderr)")
        let network = try #require(try await f.network())
        #expect(network["ssid"]?.byteArray == Array(Self.ssid.utf8))
        #expect(network["bssid"]?.string == Self.bssid)
    }
}
