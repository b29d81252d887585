// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Synchronization

/// An end-to-end scenario: ``DaemonScenario`` (a private bus, python-dbusmock's NetworkManager
/// with a Wi-Fi device and access points, the daemon as a subprocess) and helpers written with
/// HotspotHelperKit in this process answering as scripted. State is observed through the daemon's
/// D-Bus properties and NetworkManager's actions through the mock's recorded calls; the
/// operations come from ``DaemonScenarioParts``.
struct Scenario: DaemonScenarioParts {
    static let nmPath = DaemonScenario.nmPath
    let core: DaemonScenario
    /// Helpers registered in this process stay registered while the scenario lives.
    let helpers = HelperHolder()

    typealias AP = MockAccessPoint
    static let defaultAPs = [AP(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01"),
                             AP(name: "ap2", ssid: "CoffeeShop", bssid: "0A:00:00:00:00:02", secure: true),
                             AP(name: "ap3", ssid: "Library", bssid: "0A:00:00:00:00:03")]

    init(settings: [String: String] = [:], connectivity: [String: String]? = nil, accessPoints: [AP] = Scenario.defaultAPs,
         stateDirectory: URL? = nil, prefix: [String] = [], bus existing: PrivateBus? = nil, mode: DaemonMode = .subprocess,
         environment: [String: String] = [:]) async throws {
        // Profiles at a network's first sighting: the mock's scan lists change only when a test changes them.
        var s = ["command-timeout": "2", "filter-interval": "0.2", "maintain-interval": "300", "provision-after": "0"]
        for (k, v) in settings { s[k] = v }
        core = try await DaemonScenario(accessPoints: accessPoints, settings: s, connectivity: connectivity, stateDirectory: stateDirectory,
                                        prefix: prefix, bus: existing, mode: mode, environment: environment)
    }

    /// Registers an in-process helper answering as scripted.
    func helper(_ name: String, identifier: String? = nil, script: HelperScript) async throws -> (HotspotHelper, HelperScript) {
        let c = try bus.connect()
        let h = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: name, identifier: identifier ?? name), connection: c) { command in
            script.answer(command)
        }
        waiter.follow(script.changes)
        helpers.keep(h)
        return (h, script)
    }
}

/// Keeps helpers (and so their connections) alive for a scenario's lifetime.
final class HelperHolder: Sendable {
    private let list = Mutex<[HotspotHelper]>([])
    func keep(_ h: HotspotHelper) { list.withLock { $0.append(h) } }
}
