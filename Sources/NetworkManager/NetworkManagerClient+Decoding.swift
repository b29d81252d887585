// SPDX-License-Identifier: Apache-2.0
import DBus

/// How the client turns NetworkManager's replies into its model and its errors into text: pure
/// functions, apart from the actor.
extension NetworkManagerClient {
    static func decodeManagedObjects(_ value: DBusValue) -> [ObjectPath: [String: [String: DBusValue]]]? {
        guard let entries = value.dictEntries else { return nil }
        var out: [ObjectPath: [String: [String: DBusValue]]] = [:]
        for entry in entries {
            guard let path = entry.key.objectPath, let interfaces = decodeInterfaces(entry.value) else { continue }
            out[path] = interfaces
        }
        return out
    }

    /// One object's interfaces and their properties (`a{sa{sv}}`, as in `InterfacesAdded`).
    static func decodeInterfaces(_ value: DBusValue) -> [String: [String: DBusValue]]? {
        guard let interfaces = value.dictEntries else { return nil }
        var byInterface: [String: [String: DBusValue]] = [:]
        for i in interfaces {
            if let name = i.key.string, let props = i.value.varDict { byInterface[name] = props }
        }
        return byInterface
    }

    static func makeDevice(_ path: ObjectPath, _ device: [String: DBusValue], _ wireless: [String: DBusValue]) -> WifiDevice {
        WifiDevice(path: path,
                   interfaceName: device["Interface"]?.string ?? "",
                   hwAddress: device["HwAddress"]?.string ?? wireless["HwAddress"]?.string ?? "",
                   state: DeviceState(rawValue: UInt32(clamping: device["State"]?.integer ?? 0)),
                   activeAccessPoint: wireless["ActiveAccessPoint"]?.nonRootPath,
                   activeConnection: device["ActiveConnection"]?.nonRootPath)
    }

    /// Whether a failure only means NetworkManager left (the owner change that follows handles it).
    static func peerGone(_ error: any Error) -> Bool {
        guard let error = error as? DBusError else { return false }
        switch error {
        case .disconnected, .cancelled: return true
        default:
            return [DBusErrorName.serviceUnknown, DBusErrorName.noReply, DBusErrorName.nameHasNoOwner].contains(error.name)
        }
    }

    static func text(_ error: any Error) -> String {
        (error as? DBusError)?.description ?? "\(error)"
    }
}
