import DBus
import Foundation

/// python-dbusmock's `networkmanager` template has `AddConnection`, `Update` and `Delete` but not
/// `Settings.AddConnection2` or `Settings.Connection.Update2`, and its `GetSettings` returns
/// whatever was stored, secrets included (NetworkManager never does). This adds both methods the
/// way NetworkManager behaves for what provisioning relies on:
///
/// - secrets (`802-11-wireless-security.psk`) are kept apart and never returned by `GetSettings`;
///   `Update2` without a psk keeps the stored one, with one replaces it;
/// - `Update2` replaces the whole profile (the template's `Update` merges);
/// - IN_MEMORY (0x2) gives the profile `Flags` UNSAVED (0x1) and `Unsaved` true;
/// - unlike NetworkManager (and the template's `AddConnection`), adding a profile with
///   autoconnect never activates it, so tests stay deterministic.
///
/// Test-only methods on the settings object (interface `org.freedesktop.DBus.Mock`):
/// `ProfileSecret(o) → s` (the stored psk, empty when none) and `ProfileWrites(o) → a(su)`
/// (each AddConnection2/Update2 on that profile with its flags).
extension DBusMock {
    public static let settingsPath = "/org/freedesktop/NetworkManager/Settings"
    static let settingsConnectionInterface = "org.freedesktop.NetworkManager.Settings.Connection"

    /// Adds `AddConnection2`, per-profile `Update2`, and the test-only readers above.
    public func addProfileMethods(_ c: Connection) async throws {
        let update2 = """
            import dbus
            new = dict((k, dict(v)) for k, v in args[0].items())
            sec = new.get('802-11-wireless-security')
            if sec is not None and 'psk' in sec:
                self.hh_psk = str(sec.pop('psk'))
            new.setdefault('connection', {})['uuid'] = self.settings['connection']['uuid']
            self.settings = new
            settings_obj = get_object('\(Self.settingsPath)')
            settings_obj.hh_writes.setdefault(self.connection_path, []).append(('Update2', int(args[1])))
            if int(args[1]) & 0x2:
                self.Set('\(Self.settingsConnectionInterface)', 'Flags', dbus.UInt32(1))
                self.Set('\(Self.settingsConnectionInterface)', 'Unsaved', True)
            self.EmitSignal('\(Self.settingsConnectionInterface)', 'Updated', '', [])
            ret = dbus.Dictionary({}, signature='sv')
            """
        let add2 = """
            import dbus
            if not hasattr(self, 'hh_writes'):
                self.hh_writes = {}
            s = dict((k, dict(v)) for k, v in args[0].items())
            sec = s.get('802-11-wireless-security')
            psk = str(sec.pop('psk')) if sec is not None and 'psk' in sec else None
            autoconnect = s.get('connection', {}).pop('autoconnect', None)
            path = self.SettingsAddConnection(s)
            conn = get_object(path)
            if autoconnect is not None:
                conn.settings['connection']['autoconnect'] = autoconnect
            conn.hh_psk = psk
            conn.AddProperty('\(Self.settingsConnectionInterface)', 'Flags', dbus.UInt32(1 if int(args[1]) & 0x2 else 0))
            if int(args[1]) & 0x2:
                conn.Set('\(Self.settingsConnectionInterface)', 'Unsaved', True)
            conn.AddMethod('\(Self.settingsConnectionInterface)', 'Update2', 'a{sa{sv}}ua{sv}', 'a{sv}', \(pythonString(update2)))
            self.hh_writes.setdefault(path, []).append(('AddConnection2', int(args[1])))
            ret = (dbus.ObjectPath(path), dbus.Dictionary({}, signature='sv'))
            """
        try await addMethod(c, path: Self.settingsPath, interface: "org.freedesktop.NetworkManager.Settings", name: "AddConnection2",
                            inSignature: "a{sa{sv}}ua{sv}", outSignature: "oa{sv}", code: add2)
        try await addMethod(c, path: Self.settingsPath, interface: "org.freedesktop.DBus.Mock", name: "ProfileSecret",
                            inSignature: "o", outSignature: "s",
                            code: "o = get_object(args[0])\nret = getattr(o, 'hh_psk', None) or ''")
        try await addMethod(c, path: Self.settingsPath, interface: "org.freedesktop.DBus.Mock", name: "ProfileWrites",
                            inSignature: "o", outSignature: "a(su)",
                            code: "ret = [(m, f) for m, f in getattr(self, 'hh_writes', {}).get(str(args[0]), [])]")
    }

    /// The psk NetworkManager (the mock) stores for a profile added or updated with
    /// AddConnection2/Update2; empty when none.
    public func profileSecret(_ c: Connection, profile: ObjectPath) async throws -> String {
        try await mockCall(c, path: Self.settingsPath, "ProfileSecret", [.objectPath(profile)]).first?.string ?? ""
    }

    /// The AddConnection2/Update2 calls on a profile, with their flags, in order.
    public func profileWrites(_ c: Connection, profile: ObjectPath) async throws -> [(method: String, flags: UInt32)] {
        let reply = try await mockCall(c, path: Self.settingsPath, "ProfileWrites", [.objectPath(profile)])
        return (reply.first?.arrayItems ?? []).compactMap { item in
            guard let f = item.structFields, f.count == 2, let m = f[0].string, let flags = f[1].uint32 else { return nil }
            return (m, flags)
        }
    }
}

/// `text` as a Python string literal (triple-quoted, for code passed to AddMethod).
private func pythonString(_ text: String) -> String {
    "'''" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'''", with: "\\'\\'\\'") + "'''"
}
