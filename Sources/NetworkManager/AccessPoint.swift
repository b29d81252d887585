// SPDX-License-Identifier: Apache-2.0
import DBus

/// NM80211ApFlags: capabilities an access point advertises.
public struct AccessPointFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The privacy bit of the beacon: some encryption (WEP at least) is required.
    public static let privacy = AccessPointFlags(rawValue: 0x1)
    public static let wps = AccessPointFlags(rawValue: 0x2)
    public static let wpsPushButton = AccessPointFlags(rawValue: 0x4)
    public static let wpsPin = AccessPointFlags(rawValue: 0x8)
}

/// NM80211ApSecurityFlags: the ciphers and key management of the WPA or RSN element.
public struct AccessPointSecurityFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let pairWEP40 = AccessPointSecurityFlags(rawValue: 0x1)
    public static let pairWEP104 = AccessPointSecurityFlags(rawValue: 0x2)
    public static let pairTKIP = AccessPointSecurityFlags(rawValue: 0x4)
    public static let pairCCMP = AccessPointSecurityFlags(rawValue: 0x8)
    public static let groupWEP40 = AccessPointSecurityFlags(rawValue: 0x10)
    public static let groupWEP104 = AccessPointSecurityFlags(rawValue: 0x20)
    public static let groupTKIP = AccessPointSecurityFlags(rawValue: 0x40)
    public static let groupCCMP = AccessPointSecurityFlags(rawValue: 0x80)
    public static let keyManagementPSK = AccessPointSecurityFlags(rawValue: 0x100)
    public static let keyManagement8021X = AccessPointSecurityFlags(rawValue: 0x200)
    public static let keyManagementSAE = AccessPointSecurityFlags(rawValue: 0x400)
    public static let keyManagementOWE = AccessPointSecurityFlags(rawValue: 0x800)
    public static let keyManagementOWETransition = AccessPointSecurityFlags(rawValue: 0x1000)
    public static let keyManagementEAPSuiteB192 = AccessPointSecurityFlags(rawValue: 0x2000)

    /// Every key-management bit.
    public static let keyManagement: AccessPointSecurityFlags = [
        .keyManagementPSK, .keyManagement8021X, .keyManagementSAE, .keyManagementOWE,
        .keyManagementOWETransition, .keyManagementEAPSuiteB192,
    ]
}

/// How a Wi-Fi network protects its link, reduced to what a hotspot helper decides on.
public enum NetworkSecurity: String, Sendable, Hashable, CustomStringConvertible {
    /// No encryption and no credentials: the typical captive-portal network.
    case open
    /// OWE ("Enhanced Open"): encrypted, but anyone may join without credentials.
    case enhancedOpen = "enhanced-open"
    /// Static WEP keys.
    case wep
    /// WPA/WPA2/WPA3 with a shared password (PSK or SAE).
    case personal
    /// WPA/WPA2/WPA3 Enterprise (802.1X/EAP, including Suite-B-192).
    case enterprise

    /// Classifies an access point from its flags. The first rule that applies wins:
    /// 1. WPA or RSN key management 802.1X or EAP-Suite-B-192 → `.enterprise`;
    /// 2. key management PSK or SAE → `.personal`;
    /// 3. key management OWE → `.enhancedOpen` (OWE transition mode alone is the open half of a
    ///    transition pair and changes nothing);
    /// 4. the privacy bit with no WPA/RSN key management at all → `.wep`;
    ///    the privacy bit with WPA/RSN ciphers but no key management known to us → `.personal`
    ///    (something protects the link; assume a password);
    /// 5. otherwise `.open`.
    public init(flags: AccessPointFlags, wpaFlags: AccessPointSecurityFlags, rsnFlags: AccessPointSecurityFlags) {
        let both = wpaFlags.union(rsnFlags)
        if !both.isDisjoint(with: [.keyManagement8021X, .keyManagementEAPSuiteB192]) {
            self = .enterprise
        } else if !both.isDisjoint(with: [.keyManagementPSK, .keyManagementSAE]) {
            self = .personal
        } else if both.contains(.keyManagementOWE) {
            self = .enhancedOpen
        } else if flags.contains(.privacy) {
            self = both.subtracting(.keyManagementOWETransition).isEmpty ? .wep : .personal
        } else {
            self = .open
        }
    }

    /// Classifies a saved profile from its `802-11-wireless-security.key-mgmt` value (nil when the
    /// profile has no security setting), for networks whose access point is not visible.
    public init(keyManagement: String?) {
        switch keyManagement {
        case nil: self = .open
        case "none": self = .wep
        case "owe": self = .enhancedOpen
        case "wpa-psk", "sae": self = .personal
        default: self = .enterprise // wpa-eap, wpa-eap-suite-b-192, ieee8021x
        }
    }

    /// Whether the link is encrypted (everything but `.open`). OWE counts as secure: traffic is
    /// encrypted even though no credentials are needed.
    public var isSecure: Bool { self != .open }

    /// Whether joining needs a credential (a password or an 802.1X identity).
    public var requiresCredentials: Bool { self == .wep || self == .personal || self == .enterprise }

    public var description: String { rawValue }
}

/// One access point as NetworkManager sees it.
public struct AccessPoint: Sendable, Hashable, CustomStringConvertible {
    /// Its object path (`/org/freedesktop/NetworkManager/AccessPoint/N`).
    public var path: ObjectPath
    /// The SSID as raw bytes: it may be empty (hidden), non-UTF-8, or contain NUL.
    public var ssid: [UInt8]
    /// The BSSID (`HwAddress`), e.g. `00:11:22:33:44:55`.
    public var bssid: String
    /// Signal quality in percent, 0…100.
    public var strength: UInt8
    /// Frequency in MHz.
    public var frequency: UInt32
    public var flags: AccessPointFlags
    public var wpaFlags: AccessPointSecurityFlags
    public var rsnFlags: AccessPointSecurityFlags
    /// NM80211Mode: 1 ad-hoc, 2 infrastructure, 3 access point, 4 mesh.
    public var mode: UInt32
    /// When it was last seen (CLOCK_BOOTTIME seconds), -1 if never.
    public var lastSeen: Int32

    public init(path: ObjectPath, ssid: [UInt8], bssid: String, strength: UInt8, frequency: UInt32 = 0,
                flags: AccessPointFlags = [], wpaFlags: AccessPointSecurityFlags = [], rsnFlags: AccessPointSecurityFlags = [],
                mode: UInt32 = 2, lastSeen: Int32 = -1) {
        self.path = path
        self.ssid = ssid
        self.bssid = bssid
        self.strength = min(strength, 100)
        self.frequency = frequency
        self.flags = flags
        self.wpaFlags = wpaFlags
        self.rsnFlags = rsnFlags
        self.mode = mode
        self.lastSeen = lastSeen
    }

    /// The security class derived from the flags (see ``NetworkSecurity/init(flags:wpaFlags:rsnFlags:)``).
    public var security: NetworkSecurity { NetworkSecurity(flags: flags, wpaFlags: wpaFlags, rsnFlags: rsnFlags) }

    /// Whether the link is encrypted.
    public var isSecure: Bool { security.isSecure }

    /// The SSID as text when it is valid UTF-8, for display.
    public var ssidText: String? { String(validating: ssid, as: UTF8.self) }

    public var description: String {
        "\(ssidText.map { "'\($0)'" } ?? "<\(ssid.count) bytes>") \(bssid) \(strength)% \(security)"
    }

    /// From the properties of the `AccessPoint` interface (nil when Ssid or HwAddress is missing).
    init?(path: ObjectPath, properties p: [String: DBusValue]) {
        guard let ssid = p["Ssid"]?.byteArray, let bssid = p["HwAddress"]?.string else { return nil }
        self.init(path: path, ssid: ssid, bssid: bssid,
                  strength: UInt8(clamping: p["Strength"]?.integer ?? 0),
                  frequency: UInt32(clamping: p["Frequency"]?.integer ?? 0),
                  flags: AccessPointFlags(rawValue: UInt32(clamping: p["Flags"]?.integer ?? 0)),
                  wpaFlags: AccessPointSecurityFlags(rawValue: UInt32(clamping: p["WpaFlags"]?.integer ?? 0)),
                  rsnFlags: AccessPointSecurityFlags(rawValue: UInt32(clamping: p["RsnFlags"]?.integer ?? 0)),
                  mode: UInt32(clamping: p["Mode"]?.integer ?? 2),
                  lastSeen: Int32(clamping: p["LastSeen"]?.integer ?? -1))
    }
}
