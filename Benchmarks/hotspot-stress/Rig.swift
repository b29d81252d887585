// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol

/// A stress run's world: the test kit's ``DaemonScenario`` (a private bus, python-dbusmock's
/// NetworkManager with wlan0 and its access points, the daemon, logging warnings only, and a
/// client connection), and reading the daemon's side of it.
struct Rig: DaemonScenarioParts {
    static let nmPath = DaemonScenario.nmPath
    let core: DaemonScenario

    /// Starts the world, runs `body` in it and stops it (the daemon waited for) before returning.
    /// `beforeDaemon` adds what the daemon must find at its start (more devices, the mock's
    /// methods); wlan0 is made after it.
    static func run<Result>(accessPoints: [MockAccessPoint], settings: [String: String], connectivity: [String: String]? = nil,
                            logLevel: String = "warning", beforeDaemon: (DBusMock, Connection) async throws -> Void = { _, _ in },
                            _ body: (Rig) async throws -> Result) async throws -> Result {
        try await DaemonScenario.run(accessPoints: accessPoints, settings: settings, connectivity: connectivity, logLevel: logLevel,
                                     beforeDaemon: beforeDaemon) { core in
            try await body(Rig(core: core))
        }
    }

    /// The client connection.
    var c: Connection { core.client }

    /// Adds a saved profile for `ssid` on wlan0 (named `name`) and returns its path.
    func addProfile(_ name: String, ssid: String) async throws -> String {
        try await mock("AddWiFiConnection", [.string(device), .string(name), .string(ssid), ""]).first?.string ?? ""
    }

    // MARK: - The daemon

    func interfaces() async throws -> [ObjectPath] { try await c.daemonInterfaces() }

    func property(_ path: ObjectPath, _ name: String) async throws -> DBusValue? { try await c.daemonProperty(path, name) }

    /// The daemon's interface objects by interface name.
    func interfacesByName() async throws -> [String: ObjectPath] {
        var out: [String: ObjectPath] = [:]
        for path in try await interfaces() {
            if let name = try await property(path, "Name")?.string { out[name] = path }
        }
        return out
    }

    func scanList(_ path: ObjectPath) async throws -> [[String: DBusValue]] {
        let reply = try await c.call(destination: HotspotContract.busName, path: path, interface: HotspotContract.interfaceInterface,
                                     member: "GetScanList", body: [])
        return reply.first?.arrayItems?.compactMap(\.varDict) ?? []
    }

    /// Waits until `condition` holds, checking every `every`; false after `timeout`.
    func waitUntil(timeout: Duration, every: Duration = .milliseconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
        try await pollUntil(timeout: timeout, every: every, condition)
    }
}

struct StressError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
