// SPDX-License-Identifier: Apache-2.0
import CDBus

/// `DBusError` (the C struct), initialised and freed in Swift.
final class DBusErrorStruct {
    var raw = CDBus.DBusError()
    init() { dbus_error_init(&raw) }
    deinit { dbus_error_free(&raw) }
    func takeMessage() -> String? {
        guard dbus_error_is_set(&raw) != 0 else { return nil }
        let name = raw.name.map { String(cString: $0) } ?? ""
        let text = raw.message.map { String(cString: $0) } ?? ""
        return name.isEmpty ? text : "\(text) (\(name))"
    }
}
