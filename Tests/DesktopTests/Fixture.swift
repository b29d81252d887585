// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Synchronization
import Testing

/// ``DaemonScenario`` (a private bus, python-dbusmock's NetworkManager with one Wi-Fi device and
/// three access points, the daemon as a subprocess) and helpers in this process answering as
/// scripted, for driving hotspotctl and the agent. Waits come from ``DaemonScenarioParts``:
/// woken by the daemon's signals, not polled.
struct Desktop: DaemonScenarioParts {
    static let nmPath = DaemonScenario.nmPath
    let core: DaemonScenario
    let helpers = Kept<HotspotHelper>()

    init() async throws {
        core = try await DaemonScenario(accessPoints: [
            MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01"),
            MockAccessPoint(name: "ap2", ssid: "CoffeeShop", bssid: "0A:00:00:00:00:02", secure: true),
            MockAccessPoint(name: "ap3", ssid: "Library", bssid: "0A:00:00:00:00:03"),
        ], settings: ["command-timeout": "2", "filter-interval": "0.2", "maintain-interval": "300"])
    }

    /// Registers an in-process helper: `confidence` to evaluate, `results` per command, claims
    /// for filter-scan-list (SSID → password or nil).
    @discardableResult
    func helper(_ name: String, confidence: Confidence, results: [CommandType: CommandResult] = [:], claims: [String: String?] = [:],
                received: Kept<CommandType>? = nil) async throws -> HotspotHelper {
        let c = try bus.connect()
        let script = HelperScript(confidence: confidence, results: results, claims: claims)
        let h = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: name, identifier: "test.\(name)", purpose: "Signs in at \(name)"), connection: c) { command in
            received?.keep(command.commandType)
            script.answer(command)  // bumps its changes: `received` wakes waits
        }
        waiter.follow(script.changes)
        helpers.keep(h)
        return h
    }

    /// Runs hotspotctl against this bus.
    func ctl(_ arguments: [String]) async throws -> ManagedProcess.Result {
        try await bus.run(TestKitPaths.product("hotspotctl").path, arguments)
    }

    /// Runs hotspotctl as nobody (needs root and setpriv).
    func ctlAsNobody(_ arguments: [String]) async throws -> ManagedProcess.Result {
        try await bus.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", TestKitPaths.product("hotspotctl").path] + arguments)
    }
}

/// Keeps values (helpers, received commands) for a test's lifetime, across tasks.
final class Kept<T: Sendable>: Sendable {
    private let list = Mutex<[T]>([])
    func keep(_ v: T) { list.withLock { $0.append(v) } }
    var all: [T] { list.withLock { $0 } }
}

/// Parses JSON output.
func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}
