// SPDX-License-Identifier: Apache-2.0
import DBus

/// How a provisioned profile authenticates: the `802-11-wireless-security.key-mgmt` it carries.
public enum ProfileKeyManagement: String, Sendable, Hashable, CaseIterable {
    /// WPA/WPA2-Personal, also valid for WPA3 transition networks (they advertise PSK too).
    case wpaPSK = "wpa-psk"
    /// WPA3-Personal only (SAE without PSK): a `wpa-psk` profile would not match such an AP.
    case sae

    /// The key management a profile needs to join an access point, or nil when the access point
    /// is not WPA/WPA3-Personal (open, OWE, WEP, enterprise: nothing to provision).
    ///
    /// NetworkManager's `nm_access_point_connection_valid` accepts a `wpa-psk` profile for any
    /// access point advertising PSK and a `sae` profile only for SAE, so PSK wins when both are
    /// advertised (transition mode).
    public init?(accessPoint: AccessPoint) {
        guard accessPoint.security == .personal else { return nil }
        let k = accessPoint.wpaFlags.union(accessPoint.rsnFlags)
        if k.contains(.keyManagementPSK) { self = .wpaPSK } else if k.contains(.keyManagementSAE) { self = .sae } else { self = .wpaPSK }
    }
}

/// The Wi-Fi profile the daemon provisions in NetworkManager so that a password a helper supplied
/// reaches NetworkManager however the join starts: the PSK is a system-owned secret
/// (`psk-flags` 0), so NetworkManager asks no secret agent at all.
///
/// The profile is marked as the daemon's with the `user` setting (``markKey``), whatever its
/// name; only marked profiles are ever modified or deleted. Its `connection.id` is the helper's
/// display name for the network, so the desktop's settings show "City Wi-Fi (SSID: CityFree)"
/// where people manage known networks. Its `permissions` are empty (system-wide): see
/// docs/NETWORKMANAGER.md.
public struct ProvisionedProfileSpec: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `user.data` key whose presence marks a profile as the daemon's.
    public static let markKey = "org.freedesktop.NetworkManager.HotspotHelper.provisioned"
    /// `user.data` key naming the helper that supplied the password (informational).
    public static let helperKey = "org.freedesktop.NetworkManager.HotspotHelper.helper"
    /// The value of ``markKey``: the version of this profile layout.
    public static let markValue = "1"
    /// `connection.autoconnect-priority`: below NetworkManager's default 0, so profiles the user
    /// made are preferred when several networks are in range.
    public static let autoconnectPriority: Int32 = -1

    /// The network's SSID bytes.
    public var ssid: [UInt8]
    public var keyManagement: ProfileKeyManagement
    /// The PSK (8–63 characters) or 64 hex digits. Never shown by `description`.
    public var password: String
    /// The identifier of the helper whose claim supplied the password (bounded to 255 characters
    /// at registration).
    public var helper: String
    /// `connection.id`: the helper's display name for the network (the SSID when it gave none),
    /// control characters shown as `?`.
    public var name: String

    public init(ssid: [UInt8], keyManagement: ProfileKeyManagement, password: String, helper: String, name: String? = nil) {
        self.ssid = ssid
        self.keyManagement = keyManagement
        self.password = password
        self.helper = helper
        let shown = name.map(Self.visible) ?? ""
        self.name = shown.isEmpty ? Self.ssidText(ssid) : shown
    }

    /// The same specs with names unique among them: where two networks would share a name, each
    /// adds its SSID ("City Wi-Fi (CityFree)"), as the desktop's settings tell them apart.
    public static func uniquelyNamed(_ specs: [ProvisionedProfileSpec]) -> [ProvisionedProfileSpec] {
        var uses: [String: Int] = [:]
        for s in specs { uses[s.name, default: 0] += 1 }
        return specs.map { s in
            guard uses[s.name, default: 0] > 1 else { return s }
            var renamed = s
            renamed.name = "\(s.name) (\(ssidText(s.ssid)))"
            return renamed
        }
    }

    public var description: String {
        "profile '\(name)' for \(ProvisionedProfileSpec.ssidText(ssid)) (\(keyManagement.rawValue), helper \(helper))"
    }
    public var debugDescription: String { description }
    /// Without the password: `dump` and debuggers never show it.
    public var customMirror: Mirror { Mirror(self, children: ["ssid": ssid, "keyManagement": keyManagement, "helper": helper, "name": name]) }

    /// Whether NetworkManager would accept `password` as a PSK: 8 to 63 printable ASCII characters
    /// or 64 hexadecimal digits (IEEE 802.11 Annex M; NetworkManager's `nm_utils_wpa_psk_valid`).
    /// Anything else would be refused by AddConnection2, so the daemon does not provision it (the
    /// secret agent still offers it).
    public var hasValidPassword: Bool {
        let b = Array(password.utf8)
        if b.count == 64 { return b.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) } }
        return b.count >= 8 && b.count <= 63 && b.allSatisfy { $0 >= 0x20 && $0 < 0x7f }
    }

    /// The SSID as text for ids and messages: invalid UTF-8 is replaced, control characters are
    /// shown as `?`, so the result is safe for D-Bus and logs.
    public static func ssidText(_ ssid: [UInt8]) -> String {
        visible(String(decoding: ssid, as: UTF8.self))
    }

    static func visible(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) ? "?" : Character($0) })
    }

    /// The whole profile, secret included, for `AddConnection2` / `Update2`. `autoconnect` is
    /// false only when rewriting a profile whose autoconnect was switched off (after a failed
    /// sign-in), which a new password must not undo.
    public func settings(uuid: String, autoconnect: Bool = true) -> ConnectionSettings {
        [
            "connection": [
                "id": .string(name), "uuid": .string(uuid), "type": .string("802-11-wireless"),
                "autoconnect": .bool(autoconnect), "autoconnect-priority": .int32(Self.autoconnectPriority),
            ],
            "802-11-wireless": ["ssid": .bytes(ssid), "mode": .string("infrastructure")],
            "802-11-wireless-security": [
                "key-mgmt": .string(keyManagement.rawValue), "psk": .string(password), "psk-flags": .uint32(0),
            ],
            "ipv4": ["method": .string("auto")],
            "ipv6": ["method": .string("auto")],
            "user": ["data": .dictionary(key: .string, value: .string, [
                DictEntry(.string(Self.helperKey), .string(helper)), DictEntry(.string(Self.markKey), .string(Self.markValue)),
            ])],
        ]
    }
}

/// A Wi-Fi profile NetworkManager holds, as far as provisioning needs to know it (no secrets:
/// `GetSettings` never returns them).
public struct HeldProfile: Sendable, Hashable {
    /// The settings object.
    public var path: ObjectPath
    public var uuid: String
    public var id: String
    public var ssid: [UInt8]
    /// Whether it carries the daemon's mark (``ProvisionedProfileSpec/markKey``): only such
    /// profiles are ever modified or deleted by provisioning.
    public var isProvisioned: Bool
    /// The helper named in the mark, if any.
    public var helper: String?
    /// `802-11-wireless-security.key-mgmt`, nil without that setting.
    public var keyManagement: String?
    /// `connection.autoconnect` (absent means on).
    public var autoconnect: Bool

    public init(path: ObjectPath, uuid: String, id: String, ssid: [UInt8], isProvisioned: Bool, helper: String? = nil,
                keyManagement: String? = nil, autoconnect: Bool = true) {
        self.path = path
        self.uuid = uuid
        self.id = id
        self.ssid = ssid
        self.isProvisioned = isProvisioned
        self.helper = helper
        self.keyManagement = keyManagement
        self.autoconnect = autoconnect
    }

    /// Reads a profile from its settings; nil for profiles that are not Wi-Fi (no SSID).
    public init?(path: ObjectPath, settings: ConnectionSettings) {
        guard let ssid = SettingsCoding.ssid(settings) else { return nil }
        var data: [String: String] = [:]
        for entry in settings["user"]?["data"]?.dictEntries ?? [] {
            if let k = entry.key.string, let v = entry.value.string { data[k] = v }
        }
        self.init(path: path, uuid: settings["connection"]?["uuid"]?.string ?? "", id: settings["connection"]?["id"]?.string ?? "",
                  ssid: ssid, isProvisioned: data[ProvisionedProfileSpec.markKey] != nil, helper: data[ProvisionedProfileSpec.helperKey],
                  keyManagement: SettingsCoding.keyManagement(settings), autoconnect: SettingsCoding.autoconnect(settings))
    }
}
