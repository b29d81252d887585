// SPDX-License-Identifier: Apache-2.0
import Foundation
import HotspotTesting

/// A ``DaemonScenario`` whose python-dbusmock NetworkManager a desktop's own NetworkManager client
/// (GNOME Shell's, Plasma's) reads, with joins and leaves replayed on it as the real
/// NetworkManager shows them: the properties and methods the template lacks, the held join
/// through the package's pre-up script, the join without the hold. A scene says how a join's
/// profile is made (``activation(_:accessPoint:active:activeState:deviceState:primary:)``) and
/// where the pre-up script runs (``preUpRoot``).
protocol JoinReplayScene: DaemonScenarioParts {
    /// NetworkManager's D-Bus view of one step of a Wi-Fi activation (device state, active
    /// connection state, primary or activating, the access point), through the mock's method
    /// Activation (``activation``).
    func activation(_ ssid: String, accessPoint: String, active: String, activeState: UInt32, deviceState: UInt32, primary: Bool) async throws
    /// The root whose packaged pre-up script runs (nil: the tree's, on this machine).
    var preUpRoot: TestRoot? { get }
}

extension JoinReplayScene {
    var preUpRoot: TestRoot? { nil }

    static var portal: UInt32 { 2 }
    static var full: UInt32 { 4 }
    static var activating: UInt32 { 1 }
    static var activated: UInt32 { 2 }
    static var ipCheck: UInt32 { 80 }
    static var deviceActivated: UInt32 { 100 }

    /// What the desktops' NetworkManager clients read that the template lacks, and the mock's
    /// methods the replays use (Activation, a Disconnect that clears what NetworkManager's does).
    /// The desktops hand ConnectivityCheckUri to a portal window: a closed local port, so the
    /// window loads nothing from anywhere.
    func addJoinReplay() async throws {
        try await mock("AddProperties", [.string("org.freedesktop.NetworkManager"), .varDict([
            "PrimaryConnection": .objectPath("/"), "ActivatingConnection": .objectPath("/"),
            "ConnectivityCheckUri": .string("http://127.0.0.1:9/"), "ConnectivityCheckEnabled": .bool(true),
            "ConnectivityCheckAvailable": .bool(true),
        ])])
        try await mock("AddProperty", [.string("org.freedesktop.NetworkManager.Device.Wireless"), .string("ActiveAccessPoint"),
                                       .variant(.objectPath("/"))], path: device)
        try await nm.addMethod(client, path: DaemonScenario.nmPath, interface: "org.freedesktop.DBus.Mock", name: "Activation",
                               inSignature: "ssssuuub", outSignature: "", code: Self.activation)
        try await nm.addMethod(client, path: device, interface: "org.freedesktop.NetworkManager.Device", name: "Disconnect",
                               inSignature: "", outSignature: "", code: Self.disconnect(device))
    }

    func setConnectivity(_ state: UInt32) async throws { try await mock("SetConnectivity", [.uint32(state)]) }

    /// A join held by the pre-up dispatcher hook, as the real stack shows it: the device waits in
    /// IP_CHECK and its active connection ACTIVATING while NetworkManager's own check, run during
    /// the hold, says PORTAL; NetworkManager runs the package's pre-up script
    /// (packaging/networkmanager/90-hotspot-helper, the real one, calling SettleJoin) and waits for
    /// it; once the daemon signed in, NetworkManager's re-check says FULL; then the connection is
    /// ACTIVATED. A join the daemon did not sign in (needs-user, no helper…) arrives PORTAL, as on
    /// the real stack. Returns the script's outcome as it logs it.
    @discardableResult
    func replayHeldJoin(_ ssid: String, accessPoint: String) async throws -> String {
        let active = "held\(Int.random(in: 0..<1_000_000))"
        try await activation(ssid, accessPoint: accessPoint, active: active, activeState: Self.activating, deviceState: Self.ipCheck, primary: false)
        try await setConnectivity(Self.portal)
        let outcome = try await runPreUpHook()
        if outcome.contains("signed-in") { try await setConnectivity(Self.full) }
        try await activation(ssid, accessPoint: accessPoint, active: active, activeState: Self.activated, deviceState: Self.deviceActivated, primary: true)
        return outcome
    }

    /// Runs the package's pre-up dispatcher script as nm-dispatcher would (root, the interface and
    /// "pre-up" as arguments, DEVICE_IFACE set) on this bus; returns the line it logs (a `logger`
    /// stand-in prints it). In ``preUpRoot``, the script the package installed there; else the
    /// tree's.
    func runPreUpHook() async throws -> String {
        let scratch = try ScratchDirectory("pre-up")
        let logger = scratch.appendingPathComponent("logger")
        try "#!/bin/sh\necho \"$*\"\n".write(to: logger, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: logger.path)
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "DEVICE_IFACE": "wlan0", "PATH": "\(scratch.path):/usr/bin:/bin"]
        let r: ManagedProcess.Result
        if let root = preUpRoot {
            // The script the package installed in the root, run there (its busctl is the root's).
            r = try await root.run(["/usr/lib/NetworkManager/dispatcher.d/pre-up.d/90-hotspot-helper", "wlan0", "pre-up"], environment: environment, timeout: .seconds(90))
        } else {
            let script = TestKitPaths.repositoryRoot.appendingPathComponent("packaging/networkmanager/90-hotspot-helper").path
            r = try await ManagedProcess.run(script, ["wlan0", "pre-up"], environment: environment, timeout: .seconds(90))
        }
        guard r.status == 0 else { throw TestKitError.startFailed("the pre-up script failed (\(r.status)): \(r.stdout)\(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The join without the hold: ACTIVATED while NetworkManager's check says PORTAL, FULL 1 s later.
    func replayUnheldJoin(_ ssid: String, accessPoint: String) async throws {
        let active = "unheld\(Int.random(in: 0..<1_000_000))"
        try await setConnectivity(Self.portal)
        try await activation(ssid, accessPoint: accessPoint, active: active, activeState: Self.activated, deviceState: Self.deviceActivated, primary: true)
        try await Task.sleep(for: .seconds(1))
        try await setConnectivity(Self.full)
    }

    /// The device leaves its network (Device.Disconnect, as the daemon or a user asks).
    func replayLeave() async throws {
        _ = try await client.call("org.freedesktop.NetworkManager", device, "org.freedesktop.NetworkManager.Device", "Disconnect")
    }

    /// Device.Disconnect as NetworkManager does it, for the desktops too: no access point, no primary or
    /// activating connection, the active connection gone (the scenario's Disconnect keeps them).
    static func disconnect(_ device: String) -> String {
        """
        dev = '\(device)'
        nm = get_object('/org/freedesktop/NetworkManager')
        d = get_object(dev)
        ac = d.Get('org.freedesktop.NetworkManager.Device', 'ActiveConnection')
        d.Set('org.freedesktop.NetworkManager.Device.Wireless', 'ActiveAccessPoint', dbus.ObjectPath('/'))
        nm.Set('org.freedesktop.NetworkManager', 'PrimaryConnection', dbus.ObjectPath('/'))
        nm.Set('org.freedesktop.NetworkManager', 'ActivatingConnection', dbus.ObjectPath('/'))
        nm.SetDeviceDisconnected(dev)
        if ac != '/':
            acs = dbus.Array([], signature='o')
            for p in nm.Get('org.freedesktop.NetworkManager', 'ActiveConnections'):
                if p != ac:
                    acs.append(p)
            nm.Set('org.freedesktop.NetworkManager', 'ActiveConnections', acs)
            if ac in objects:
                nm.object_manager_emit_removed(ac)
                nm.RemoveObject(ac)
        """
    }

    /// args: device, profile, access point, active connection name, its State, the device's State,
    /// (unused), whether it is the primary connection (else the activating one).
    static var activation: String {
        """
        dev_path, conn_path, ap_path, name, ac_state, dev_state, _, primary = args
        def update(obj, iface, changes):
            # One PropertiesChanged for all (the mock's UpdateProperties cannot wrap object paths).
            for k, v in changes.items():
                obj.props[iface][k] = v
            obj.EmitSignal('org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as',
                           [iface, dbus.Dictionary(changes, signature='sv'), dbus.Array([], signature='s')])
        nm = get_object('/org/freedesktop/NetworkManager')
        ac = '/org/freedesktop/NetworkManager/ActiveConnection/' + name
        AC = 'org.freedesktop.NetworkManager.Connection.Active'
        DEV = 'org.freedesktop.NetworkManager.Device'
        if ac not in objects:
            s = get_object(conn_path).settings
            nm.AddObject(ac, AC, {
                'Devices': dbus.Array([dbus.ObjectPath(dev_path)], signature='o'), 'Default6': False, 'Default': bool(primary),
                'Type': s['connection']['type'], 'Vpn': False, 'Connection': dbus.ObjectPath(conn_path),
                'Master': dbus.ObjectPath('/'), 'SpecificObject': dbus.ObjectPath(ap_path), 'Uuid': s['connection']['uuid'],
                'State': dbus.UInt32(ac_state), 'StateFlags': dbus.UInt32(0), 'Id': s['connection']['id']}, [])
            nm.object_manager_emit_added(ac)
            acs = nm.Get('org.freedesktop.NetworkManager', 'ActiveConnections')
            acs.append(dbus.ObjectPath(ac))
            update(nm, 'org.freedesktop.NetworkManager', {'ActiveConnections': acs})
        else:
            a = get_object(ac)
            update(a, AC, {'State': dbus.UInt32(ac_state), 'Default': dbus.Boolean(primary)})
            a.EmitSignal(AC, 'StateChanged', 'uu', [dbus.UInt32(ac_state), dbus.UInt32(0)])
        d = get_object(dev_path)
        old = d.Get(DEV, 'State')
        update(d, 'org.freedesktop.NetworkManager.Device.Wireless', {'ActiveAccessPoint': dbus.ObjectPath(ap_path)})
        update(d, DEV, {'ActiveConnection': dbus.ObjectPath(ac), 'State': dbus.UInt32(dev_state),
                        'StateReason': dbus.Struct((dbus.UInt32(dev_state), dbus.UInt32(0)), signature='uu')})
        d.EmitSignal(DEV, 'StateChanged', 'uuu', [dbus.UInt32(dev_state), old, dbus.UInt32(0)])
        update(nm, 'org.freedesktop.NetworkManager', {
            'PrimaryConnection': dbus.ObjectPath(ac if primary else '/'),
            'ActivatingConnection': dbus.ObjectPath('/' if primary else ac),
            'State': dbus.UInt32(70 if primary else 40)})
        """
    }
}
