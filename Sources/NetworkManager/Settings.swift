// SPDX-License-Identifier: Apache-2.0
import DBus

/// A connection profile as NetworkManager sends it (`a{sa{sv}}`): setting name → key → value,
/// variants unwrapped.
public typealias ConnectionSettings = [String: [String: DBusValue]]

/// Errors of the NetworkManager client. Messages name the object and the cause; none ever
/// contains a secret.
public enum NetworkManagerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A call to NetworkManager failed.
    case callFailed(member: String, path: ObjectPath, DBusError)
    /// NetworkManager answered with something of the wrong shape.
    case malformedReply(String)
    /// The object has no such setting or property (e.g. a device without an IPv4 configuration).
    case missing(String)

    public var description: String {
        switch self {
        case .callFailed(let member, let path, let error):
            return "NetworkManager \(member) on \(path) failed: \(error.message) (\(error.name))"
        case .malformedReply(let why):
            return "NetworkManager answered unexpectedly: \(why)"
        case .missing(let what):
            return what
        }
    }
}

enum SettingsCoding {
    static let innerType = DBusType.dictionary(key: .string, value: .variant)

    /// Decodes `a{sa{sv}}` (nil when the value has another shape).
    static func decode(_ value: DBusValue) -> ConnectionSettings? {
        guard let entries = value.dictEntries else { return nil }
        var out: ConnectionSettings = [:]
        for entry in entries {
            guard let name = entry.key.string, let inner = entry.value.varDict else { return nil }
            out[name] = inner
        }
        return out
    }

    /// Encodes `a{sa{sv}}`, sorted by name so the wire form is deterministic.
    static func encode(_ settings: ConnectionSettings) -> DBusValue {
        .dictionary(key: .string, value: innerType,
                    settings.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .varDict($0.value)) })
    }

    /// The `802-11-wireless.ssid` bytes of a profile.
    static func ssid(_ settings: ConnectionSettings) -> [UInt8]? {
        settings["802-11-wireless"]?["ssid"]?.byteArray
    }

    /// `connection.autoconnect`, defaulting to true as NetworkManager does.
    static func autoconnect(_ settings: ConnectionSettings) -> Bool {
        settings["connection"]?["autoconnect"]?.bool ?? true
    }

    static func keyManagement(_ settings: ConnectionSettings) -> String? {
        guard settings["802-11-wireless-security"] != nil else { return nil }
        return settings["802-11-wireless-security"]?["key-mgmt"]?.string ?? "wpa-psk"
    }
}

extension DBusValue {
    /// An object path other than `/` (NetworkManager's "none").
    var nonRootPath: ObjectPath? {
        guard let p = objectPath, p != .root else { return nil }
        return p
    }
}

/// Entry points for the fuzzers (`hotspot-fuzz`); not API. Runs every decoder the client applies
/// to values NetworkManager sends.
@_spi(Fuzzing) public enum NetworkManagerFuzzEntry {
    public static func decode(_ value: DBusValue) {
        _ = NetworkManagerClient.decodeManagedObjects(value)
        if let props = value.varDict {
            let path: ObjectPath = "/org/freedesktop/NetworkManager/Fuzz"
            _ = NetworkManagerClient.makeDevice(path, props, props)
            _ = AccessPoint(path: path, properties: props).map { ($0.security, $0.isSecure, $0.ssidText) }
            _ = NetworkManagerClient.ipv4Configuration(props)
        }
        if let settings = SettingsCoding.decode(value) {
            _ = SettingsCoding.ssid(settings)
            _ = SettingsCoding.autoconnect(settings)
            _ = SettingsCoding.keyManagement(settings)
            _ = SettingsCoding.encode(settings)
            _ = HeldProfile(path: "/org/freedesktop/NetworkManager/Settings/Fuzz", settings: settings)
        }
    }
}
