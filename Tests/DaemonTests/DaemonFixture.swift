// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotHelperKit
import HotspotProtocol

/// A private bus with the daemon running on it, and a client connection.
struct DaemonFixture {
    let bus: PrivateBus
    let daemon: DaemonProcess
    let client: Connection

    init(settings: [String: String] = [:], stateDirectory: URL? = nil, before: ((PrivateBus) async throws -> Void)? = nil) async throws {
        bus = try await PrivateBus()
        try await before?(bus)
        daemon = try await DaemonProcess.start(on: bus, settings: settings, stateDirectory: stateDirectory)
        client = try bus.connect()
    }

    func manager(_ member: MemberName, _ body: [DBusValue] = [], timeout: Duration = .seconds(10)) async throws -> [DBusValue] {
        try await client.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                              interface: HotspotContract.managerInterface, member: member, body: body, timeout: timeout)
    }

    func property(_ name: String, path: ObjectPath = HotspotContract.managerPath,
                  interface: InterfaceName = HotspotContract.managerInterface) async throws -> DBusValue? {
        try await client.call(destination: HotspotContract.busName, path: path, interface: "org.freedesktop.DBus.Properties",
                              member: "Get", body: [.string(interface.rawValue), .string(name)]).first?.unwrapped
    }

    /// Runs a command as an unprivileged user (nobody), for authorisation tests.
    func runAsNobody(_ arguments: [String]) async throws -> ManagedProcess.Result {
        try await bus.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments)
    }
}

