// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation
import HotspotProtocol
import HotspotTesting
import Testing

/// The caps on command channels (64 open) and on helpers per user (8 for each uid but root) hold
/// when the calls come all at once: each is taken without a suspension between the count and the
/// record, so calls racing each other cannot all pass it.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct HelperCapTests {
    @Test func aHundredHelpersRegisteringWithChannelsAtOnceGetSixtyFour() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        let connections = try (0..<100).map { _ in try f.bus.connect() }
        // The channels' ends are kept (a channel whose other end closes is a helper leaving).
        let replies = await withTaskGroup(of: [DBusValue]?.self) { group in
            for (i, c) in connections.enumerated() {
                group.addTask {
                    try? await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                      member: "RegisterHelper", body: [.objectPath("/h"), .varDict(["DisplayName": .string("H\(i)"), "Identifier": .string("test.h\(i)"),
                                                                                                    "CommandChannel": .bool(true)])])
                }
            }
            return await group.reduce(into: [[DBusValue]]()) { if let r = $1 { $0.append(r) } }
        }
        #expect(replies.count == 100, "every helper registers, with or without a channel")
        let ends = replies.filter { if case .unixFD? = $0.first?.varDict?["command-channel"] { true } else { false } }
        #expect(ends.count == 64, "\(ends.count) channels handed out, the cap is 64")
        let via = try await f.managerProperty("Helpers")?.arrayItems?.compactMap { $0.varDict?["commands-via"]?.string } ?? []
        #expect(via.filter { $0 == "channel" }.count == 64, "\(via)")
        #expect(via.filter { $0 == "bus" }.count == 36, "\(via)")
        withExtendedLifetime(replies) {}
    }
}

@Suite(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"),
                "needs root (to run callers as nobody), setpriv and python3-dbusmock"))
struct HelpersPerUserTests {
    @Test func oneUserRegisteringTwelveHelpersAtOnceGetsEight() async throws {
        let bus = try await PrivateBus()
        let mock = try await HostileCallerTests.polkit(bus, code: "ret = (True, False, {})")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        let script = """
            import dbus, dbus.mainloop.glib
            from gi.repository import GLib
            dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
            loop = GLib.MainLoop()
            results = []
            buses = [dbus.bus.BusConnection('\(f.bus.address)') for i in range(12)]
            def record(r):
                results.append(r)
                if len(results) == 12:
                    print('\\n'.join(results)); loop.quit()
            for i, bus in enumerate(buses):
                obj = bus.get_object('\(HotspotContract.busName)', '\(HotspotContract.managerPath)')
                obj.RegisterHelper('/h', {'DisplayName': 'Mine %d' % i, 'Identifier': 'org.example.mine%d' % i, 'Purpose': 'Signs in'},
                                   dbus_interface='\(HotspotContract.managerInterface)', timeout=60,
                                   reply_handler=lambda *a: record('ok'), error_handler=lambda e: record(e.get_dbus_name() + ' ' + e.get_dbus_message()))
            loop.run()
            """
        let r = try await f.runAsNobody(["/usr/bin/python3", "-c", script])
        let answers = r.stdout.split(separator: "\n").map(String.init)
        #expect(answers.count == 12, "\(r.stdout) \(r.stderr)")
        #expect(answers.filter { $0 == "ok" }.count == 8, "\(answers)")
        #expect(answers.filter { $0.hasSuffix("unregister one (or end its process) first") && $0.contains("NotAllowed") }.count == 4, "\(answers)")
        _ = mock
    }
}
