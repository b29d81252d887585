// SPDX-License-Identifier: Apache-2.0
import Connectivity
import DBus
import Foundation
import HotspotCore
@testable import HotspotDaemon
import HotspotTesting
import Logging
import NetworkManager
import Testing

/// The daemon's parts as services: following NetworkManager is a service whose
/// failure is not just a log line.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ServiceTests {
    func parts(_ bus: PrivateBus, state: ScratchDirectory) throws -> (Connection, NetworkManagerWatcher, Engine, AsyncQueue<Announcement>) {
        let connection = try bus.connect()
        var configuration = DaemonConfiguration()
        configuration.stateDirectory = state.path
        let log = Logger(label: "test")
        let client = NetworkManagerClient(connection: connection)
        let provisioner = ProfileProvisioner(client: client, log: log)
        let announcements = AsyncQueue<Announcement>()
        let engine = Engine(configuration: configuration, log: log, network: NetworkManagerActions(client: client),
                            monitor: nil, provisioner: provisioner, announcements: { announcements.yield($0) })
        return (connection, NetworkManagerWatcher(bus: connection, client: client, engine: engine, provisioner: provisioner, log: log), engine,
                announcements)
    }

    @Test func theWatcherFollowsNetworkManagerAndFailsWhenTheBusConnectionEnds() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        defer { nm.stop() }
        let control = try bus.connect()
        _ = try await nm.setUpWiFi(control, accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")])
        let state = try ScratchDirectory("svc")
        let (connection, watcher, engine, announcements) = try parts(bus, state: state)
        let run = Task { try await watcher.run() }
        // It follows: the Wi-Fi device becomes an interface of the engine, which announces it.
        let added = await firstElement(of: announcements, within: SafetyNet.wait) { if case .interfaceAdded = $0 { true } else { false } }
        #expect(added != nil, "the engine announced no interface within \(SafetyNet.wait)")
        #expect(await engine.interfaces.keys.map(\.rawValue) == ["wlan0"])
        // The bus connection ends: the service fails (the daemon then exits and systemd restarts it).
        await connection.close()
        let outcome = await Task { () -> String in
            do { try await run.value; return "returned" } catch { return "\(error)" }
        }.value
        #expect(outcome.contains("bus connection ended"), "\(outcome)")
    }

    /// A connectivity report still queued between the monitor and the engine when the link was
    /// left must not publish `Connectivity` for the network that is gone (the soak under
    /// callgrind, slow enough to lose this race, left wlan0 inactive with Connectivity "full").
    @Test func aCheckOfALinkAlreadyLeftIsDropped() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        defer { nm.stop() }
        _ = try await nm.setUpWiFi(try bus.connect(), accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")])
        let state = try ScratchDirectory("svc-link")
        let (connection, watcher, engine, announcements) = try parts(bus, state: state)
        let run = Task { try await watcher.run() }
        defer { run.cancel(); Task { await connection.close() } }
        _ = await firstElement(of: announcements, within: SafetyNet.wait) { if case .interfaceAdded = $0 { true } else { false } }
        let wlan0 = InterfaceID("wlan0")
        let online = ProbeVerdict(state: .online, reason: .expected)

        await engine.joined(wlan0, network: Network(ssid: SSID("CityFree")), connection: ConnectionID("c1"))
        let first = try #require(await engine.link(wlan0))
        await engine.connectivityChecked(wlan0, link: first, verdict: online, published: .online)
        #expect(await engine.interfaces[wlan0]?.connectivity == .full, "a check of the current link is published")

        // NetworkManager announcing the same network again is the same link: its checks still count.
        await engine.joined(wlan0, network: Network(ssid: SSID("CityFree")), connection: ConnectionID("c1"))
        #expect(await engine.link(wlan0) == first)

        await engine.left(wlan0)
        #expect(await engine.interfaces[wlan0]?.connectivity == .unknown)
        await engine.connectivityChecked(wlan0, link: first, verdict: online, published: .online)
        #expect(await engine.interfaces[wlan0]?.connectivity == .unknown, "a check of the link left was published")

        await engine.joined(wlan0, network: Network(ssid: SSID("CityFree")), connection: ConnectionID("c1"))
        let second = try #require(await engine.link(wlan0))
        #expect(second != first)
        await engine.connectivityChecked(wlan0, link: first, verdict: online, published: .online)
        #expect(await engine.interfaces[wlan0]?.connectivity == .unknown, "a check of the earlier join was published on the new one")
        await engine.connectivityChecked(wlan0, link: second, verdict: online, published: .online)
        #expect(await engine.interfaces[wlan0]?.connectivity == .full)
    }
}
