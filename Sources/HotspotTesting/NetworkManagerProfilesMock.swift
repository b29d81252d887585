// SPDX-License-Identifier: Apache-2.0
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
/// - settings are checked with NetworkManager's own library when libnm is installed (see
///   ``libnmChecker``): what NetworkManager would refuse, the mock refuses with
///   `org.freedesktop.NetworkManager.Settings.Connection.InvalidProperty`;
/// - unlike NetworkManager (and the template's `AddConnection`), adding a profile with
///   autoconnect never activates it, so tests stay deterministic.
///
/// Test-only methods on the settings object (interface `org.freedesktop.DBus.Mock`):
/// `ProfileSecret(o) → s` (the stored psk, empty when none) and `ProfileWrites(o) → a(su)`
/// (each AddConnection2/Update2 on that profile with its flags).
extension DBusMock {
    public static let settingsPath = "/org/freedesktop/NetworkManager/Settings"
    static let settingsConnectionInterface = "org.freedesktop.NetworkManager.Settings.Connection"

    /// Python for the mock: `libnm_problem(settings)` says what NetworkManager's own library
    /// (libnm, when installed: it comes with network-manager) finds wrong with `a{sa{sv}}`
    /// settings — unknown settings or properties (NetworkManager parses AddConnection2/Update2
    /// strictly), then `nm_simple_connection_new_from_dbus`, `nm_connection_verify` and
    /// `nm_connection_verify_secrets`, as `nm-settings.c` does — or None.
    static let libnmChecker = #"""
        def libnm_problem(settings):
            import ctypes, dbus
            try:
                glib = ctypes.CDLL('libglib-2.0.so.0'); gobj = ctypes.CDLL('libgobject-2.0.so.0'); nm = ctypes.CDLL('libnm.so.0')
            except OSError:
                return None
            class GError(ctypes.Structure):
                _fields_ = [('domain', ctypes.c_uint32), ('code', ctypes.c_int), ('message', ctypes.c_char_p)]
            perr = ctypes.POINTER(GError)
            def text(v, boxed=False):
                if isinstance(v, dbus.Boolean): s = 'true' if v else 'false'
                elif isinstance(v, dbus.Byte): s = 'byte 0x%02x' % int(v)
                elif isinstance(v, dbus.Int32): s = 'int32 %d' % int(v)
                elif isinstance(v, dbus.UInt32): s = 'uint32 %d' % int(v)
                elif isinstance(v, dbus.Int64): s = 'int64 %d' % int(v)
                elif isinstance(v, dbus.UInt64): s = 'uint64 %d' % int(v)
                elif isinstance(v, str): s = "'" + str(v).replace('\\', '\\\\').replace("'", "\\'") + "'"
                elif isinstance(v, dbus.Dictionary):
                    s = ('@a{%s} ' % v.signature if v.signature else '') + '{' + ', '.join(
                        text(k) + ': ' + text(x, v.signature == 'sv') for k, x in v.items()) + '}'
                elif isinstance(v, dbus.Array):
                    s = ('@a%s ' % v.signature if v.signature else '') + '[' + ', '.join(text(x) for x in v) + ']'
                else:
                    raise ValueError('cannot express %r' % (v,))
                return '<' + s + '>' if boxed else s
            glib.g_variant_type_new.restype = ctypes.c_void_p; glib.g_variant_type_new.argtypes = [ctypes.c_char_p]
            glib.g_variant_parse.restype = ctypes.c_void_p
            glib.g_variant_parse.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(perr)]
            nm.nm_setting_lookup_type.restype = ctypes.c_size_t; nm.nm_setting_lookup_type.argtypes = [ctypes.c_char_p]
            gobj.g_type_class_ref.restype = ctypes.c_void_p; gobj.g_type_class_ref.argtypes = [ctypes.c_size_t]
            gobj.g_object_class_find_property.restype = ctypes.c_void_p
            gobj.g_object_class_find_property.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            nm.nm_simple_connection_new_from_dbus.restype = ctypes.c_void_p
            nm.nm_simple_connection_new_from_dbus.argtypes = [ctypes.c_void_p, ctypes.POINTER(perr)]
            nm.nm_connection_verify.argtypes = [ctypes.c_void_p, ctypes.POINTER(perr)]
            nm.nm_connection_verify_secrets.argtypes = [ctypes.c_void_p, ctypes.POINTER(perr)]
            for name, props in settings.items():
                gtype = nm.nm_setting_lookup_type(str(name).encode())
                if not gtype:
                    return 'unknown setting %s' % name
                klass = gobj.g_type_class_ref(gtype)
                for key in props:
                    if not gobj.g_object_class_find_property(klass, str(key).encode()):
                        return 'unknown property %s.%s' % (name, key)
            body = '{' + ', '.join(text(n) + ': {' + ', '.join(text(k) + ': ' + text(x, True) for k, x in p.items()) + '}'
                                   for n, p in settings.items()) + '}'
            err = perr()
            v = glib.g_variant_parse(glib.g_variant_type_new(b'a{sa{sv}}'), body.encode(), None, None, ctypes.byref(err))
            if not v:
                return 'cannot express the settings as a GVariant: %s' % err.contents.message.decode()
            conn = nm.nm_simple_connection_new_from_dbus(v, ctypes.byref(err))
            if not conn:
                return err.contents.message.decode()
            for check in (nm.nm_connection_verify, nm.nm_connection_verify_secrets):
                err = perr()
                if not check(conn, ctypes.byref(err)):
                    return err.contents.message.decode()
            return None
        self.hh_check = libnm_problem
        """#

    /// Adds `AddConnection2`, per-profile `Update2`, and the test-only readers above.
    public func addProfileMethods(_ c: Connection) async throws {
        let update2 = """
            import dbus
            problem = get_object('\(Self.settingsPath)').hh_check(args[0])
            if problem:
                raise dbus.exceptions.DBusException(problem, name='org.freedesktop.NetworkManager.Settings.Connection.InvalidProperty')
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
            problem = self.hh_check(args[0])
            if problem:
                raise dbus.exceptions.DBusException(problem, name='org.freedesktop.NetworkManager.Settings.Connection.InvalidProperty')

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
        try await addMethod(c, path: Self.settingsPath, interface: "org.freedesktop.DBus.Mock", name: "InstallProfileChecker",
                            inSignature: "", outSignature: "", code: Self.libnmChecker)
        try await mockCall(c, path: Self.settingsPath, "InstallProfileChecker", [])
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
