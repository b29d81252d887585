// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import Testing

/// Local users who try to take over a helper's identity, pass as a
/// built-in helper, register without saying why, or flood polkit. Callers run as `nobody`.
@Suite(.enabled(if: TestEnvironment.hasDBusMock && TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"),
                "needs root (to run callers as nobody), setpriv and python3-dbusmock"))
struct HostileCallerTests {
    static let authority = "/org/freedesktop/PolicyKit1/Authority"

    /// A polkit stand-in whose CheckAuthorization answers `code` (Python; `ret` is the answer).
    static func polkit(_ bus: PrivateBus, code: String) async throws -> DBusMock {
        let mock = try await bus.startMock(name: "org.freedesktop.PolicyKit1", path: authority, interface: "org.freedesktop.PolicyKit1.Authority")
        let c = try bus.connect()
        try await mock.addMethod(c, path: authority, interface: "org.freedesktop.PolicyKit1.Authority", name: "CheckAuthorization",
                                 inSignature: "(sa{sv})sa{ss}us", outSignature: "(bba{ss})", code: code)
        return mock
    }

    func register(_ f: DaemonScenario, _ options: [String], interactive: Bool = true) async throws -> ManagedProcess.Result {
        try await f.runAsNobody(["/usr/bin/busctl", "--address=\(f.bus.address)", "--allow-interactive-authorization=\(interactive ? "yes" : "no")",
                                 "call", HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue,
                                 HotspotContract.managerInterface.rawValue, "RegisterHelper", "oa{sv}", "/h", String(options.count / 3)] + options)
    }

    @Test func builtinIdentifierCannotBeTakenByAnotherProcess() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        await #expect { try await f.manager("RegisterHelper", [.objectPath("/h"), .varDict(["DisplayName": "Known Networks", "Identifier": "builtin.profiles"])]) }
            throws: { ($0.dbusName ?? "").hasSuffix("NotAllowed") && "\($0)".contains("built-in") }
    }

    @Test func helperIdentifierOfOneUserCannotBeRegisteredByAnother() async throws {
        let bus = try await PrivateBus()
        let mock = try await Self.polkit(bus, code: "ret = (True, False, {})")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        // Root registers com.example.cafe, then leaves.
        let owner = try f.bus.connect()
        _ = try await owner.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                 member: "RegisterHelper", body: [.objectPath("/h"), .varDict(["DisplayName": "Cafe", "Identifier": "com.example.cafe"])])
        _ = try await owner.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                 member: "UnregisterHelper")
        // nobody, though polkit allows it to register helpers, cannot take that identifier.
        let stolen = try await register(f, ["DisplayName", "s", "Cafe", "Identifier", "s", "com.example.cafe", "Purpose", "s", "Free coffee Wi-Fi"])
        #expect(stolen.status != 0)
        #expect(stolen.stderr.contains("another user"), "\(stolen.stderr)")
        // Its own identifier is fine.
        let own = try await register(f, ["DisplayName", "s", "Mine", "Identifier", "s", "org.example.nobody", "Purpose", "s", "Signs in at work"])
        #expect(own.status == 0, "\(own.stderr)")
        _ = mock
    }

    @Test func nonRootHelperMustStateItsPurposeAndPolkitShowsIt() async throws {
        let bus = try await PrivateBus()
        let mock = try await Self.polkit(bus, code: "ret = (True, False, {})")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        let silent = try await register(f, ["DisplayName", "s", "Quiet", "Identifier", "s", "org.example.quiet"])
        #expect(silent.status != 0)
        #expect(silent.stderr.contains("Purpose"), "\(silent.stderr)")
        let forged = try await register(f, ["DisplayName", "s", "Evil", "Identifier", "s", "org.example.evil", "Purpose", "s", "ok\nNov 22 root: granted"])
        #expect(forged.status != 0)
        #expect(forged.stderr.contains("control characters"), "\(forged.stderr)")
        let stated = try await register(f, ["DisplayName", "s", "Campus", "Identifier", "s", "org.example.campus", "Purpose", "s", "Signs you in to eduroam guest"],
                                        interactive: false)
        #expect(stated.status == 0, "\(stated.stderr)")
        let c = try f.bus.connect()
        let checks = try await mock.calls(c, path: Self.authority).filter { $0.method == "CheckAuthorization" }
        #expect(checks.count == 1, "polkit is asked only once the options are valid: \(checks)")
        let details = checks.last?.args[2].dictEntries?.reduce(into: [String: String]()) { d, e in d[e.key.string ?? ""] = e.value.string } ?? [:]
        #expect(details["polkit.message"]?.contains("Campus") == true, "\(details)")
        #expect(details["polkit.message"]?.contains("Signs you in to eduroam guest") == true, "\(details)")
        #expect(details["purpose"] == "Signs you in to eduroam guest")
        // busctl said no interactive authorization, so polkit must not prompt (flags 0).
        #expect(checks.last?.args[3].integer == 0, "\(String(describing: checks.last?.args))")
    }

    /// A desktop helper built on HotspotHelperKit lets polkit ask the person (flag 1: the dialog
    /// that shows its display name and purpose) unless it runs unattended (`--no-interaction`).
    @Test func helperKitRegistrationAllowsTheAuthorizationDialogUnlessToldNotTo() async throws {
        let bus = try await PrivateBus()
        let mock = try await Self.polkit(bus, code: "ret = (False, False, {})")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        let c = try f.bus.connect()
        for (extra, flags) in [([String](), Int64(1)), (["--no-interaction"], Int64(0))] {
            let helper = try ManagedProcess.launch("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                                        TestKitPaths.product("hotspot-example-helper").path,
                                                                        "--display-name", "Desk", "--purpose", "Signs in at the library"] + extra,
                                                   environment: f.bus.environment)
            defer { helper.stop() }
            #expect(await helper.waitForExit(timeout: .seconds(30)) != nil, "refused by polkit, the helper exits: \(helper.output)")
            let checks = try await mock.calls(c, path: Self.authority).filter { $0.method == "CheckAuthorization" }
            #expect(checks.last?.args[3].integer == flags, "\(extra): \(String(describing: checks.last?.args))")
            #expect(helper.output.contains("not authorized"), "\(helper.output)")
        }
    }

    @Test func floodOfCallsWaitingOnPolkitIsCappedPerCaller() async throws {
        let bus = try await PrivateBus()
        let mock = try await Self.polkit(bus, code: "import time; time.sleep(0.5); ret = (False, False, {})")
        let f = try await DaemonScenario(accessPoints: [], bus: bus)
        // One connection of nobody's sends ten calls at once.
        let script = """
            import dbus, dbus.mainloop.glib
            from gi.repository import GLib
            dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
            bus = dbus.bus.BusConnection('\(f.bus.address)')
            obj = bus.get_object('\(HotspotContract.busName)', '\(HotspotContract.managerPath)')
            loop = GLib.MainLoop()
            results = []
            def record(r):
                results.append(r)
                if len(results) == 10:
                    print('\\n'.join(results)); loop.quit()
            for i in range(10):
                obj.ForgetNetwork(dbus.ByteArray(b'abc'), dbus_interface='\(HotspotContract.managerInterface)', timeout=60,
                                  reply_handler=lambda *a: record('ok'), error_handler=lambda e: record(e.get_dbus_name()))
            loop.run()
            """
        let r = try await f.runAsNobody(["/usr/bin/python3", "-c", script])
        let names = r.stdout.split(separator: "\n").map(String.init)
        #expect(names.count == 10, "\(r.stdout) \(r.stderr)")
        #expect(names.filter { $0.hasSuffix("NotAllowed") }.count == 10 - 4, "\(names)")
        #expect(names.filter { $0.hasSuffix("NotAuthorized") }.count == 4, "\(names)")
        let c = try f.bus.connect()
        #expect(try await mock.calls(c, path: Self.authority).filter { $0.method == "CheckAuthorization" }.count == 4)
        // The daemon still answers at once.
        #expect(try await f.managerProperty("Version") != nil)
    }
}

/// A process of another user that takes NetworkManager's name (on a bus whose
/// policy lets it) gets no password from the secret agent.
@Suite(.enabled(if: TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv"), "needs root (to run the impostor as nobody) and setpriv"))
struct ImpostorNetworkManagerTests {
    @Test func nonRootOwnerOfNetworkManagersNameGetsNoSecrets() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        // NetworkManager is gone (crashed, say), and another user's process takes its name.
        try await f.stopNetworkManager()
        let script = """
            import dbus
            bus = dbus.bus.BusConnection('\(f.bus.address)')
            bus.request_name('org.freedesktop.NetworkManager')
            agent = bus.get_object('\(HotspotContract.busName)', '/org/freedesktop/NetworkManager/SecretAgent')
            profile = dbus.Dictionary({'802-11-wireless': dbus.Dictionary({'ssid': dbus.ByteArray(b'CoffeeShop')}, signature='sv'),
                                       '802-11-wireless-security': dbus.Dictionary({'key-mgmt': 'wpa-psk'}, signature='sv')}, signature='sa{sv}')
            try:
                agent.GetSecrets(profile, dbus.ObjectPath('/org/freedesktop/NetworkManager/Settings/1'), '802-11-wireless-security',
                                 dbus.Array([], signature='s'), dbus.UInt32(1), dbus_interface='org.freedesktop.NetworkManager.SecretAgent')
                print('answered')
            except dbus.exceptions.DBusException as e:
                print(e.get_dbus_name())
                print(e.get_dbus_message())
            """
        let r = try await f.runAsNobody([TestEnvironment.python, "-c", script])
        #expect(r.stdout.hasPrefix(DBusErrorName.accessDenied), "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("not root"), "\(r.stdout) \(r.stderr)")
    }
}
