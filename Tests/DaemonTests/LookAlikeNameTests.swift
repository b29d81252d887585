// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotHelperKit
import HotspotProtocol
import Testing

/// A helper may not name a network after another network in range, or after a look-alike of
/// its SSID: the daemon shows that network by its SSID and logs why.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct LookAlikeNameTests {
    @Test func aDisplayNameReadingAsAnotherNetworkInRangeIsReplacedByTheSSID() async throws {
        // In range: CityFree, CoffeeShop, Library. The helper names Library "CoffeeShoр" (a
        // Cyrillic er) and CityFree "City Wi-Fi".
        let s = try await Scenario()
        let names = ["Library": "CoffeeSho\u{440}", "CityFree": "City Wi-Fi"]
        let helper = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "Namer", identifier: "com.example.namer"),
                                                      connection: try s.bus.connect()) { command in
            guard command.commandType == .filterScanList else { command.createResponse(.success).deliver(); return }
            let claimed = (command.networkList ?? []).filter { names[$0.ssid] != nil }
            for n in claimed {
                n.setConfidence(.low)
                n.setDisplayName(names[n.ssid]!)
            }
            let r = command.createResponse(.success)
            r.setNetworkList(claimed)
            r.deliver()
        }
        func shown() async throws -> [String: String] {
            let list = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath, interface: HotspotContract.interfaceInterface,
                                               member: "GetScanList").first?.arrayItems?.compactMap(\.varDict) ?? []
            var out: [String: String] = [:]
            for entry in list {
                guard let ssid = entry["ssid"]?.byteArray, let name = entry["display-name"]?.string, !name.isEmpty else { continue }
                out[String(decoding: ssid, as: UTF8.self)] = name
            }
            return out
        }
        try await s.waiter.until("both claims in GetScanList", context: { s.daemon.log.suffix(3000).description }) {
            try await shown().count == 2
        }
        let labels = try await shown()
        #expect(labels["Library"] == "Library", "\(labels)")
        #expect(labels["CityFree"] == "City Wi-Fi", "\(labels)")
        #expect(s.daemon.log.contains("for Library reads as CoffeeShop, another network in range"), "\(s.daemon.log.suffix(3000))")
        withExtendedLifetime(helper) {}
    }
}
