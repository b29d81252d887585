// SPDX-License-Identifier: Apache-2.0
/// A Wi-Fi network name: up to 32 arbitrary bytes, with a display form for people.
///
/// SSIDs are bytes, not text: two SSIDs are the same network only if their bytes are equal, however
/// they display.
public struct SSID: Hashable, Sendable, CustomStringConvertible {
    /// The SSID exactly as broadcast.
    public let bytes: [UInt8]

    /// Creates an SSID from its bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Creates the SSID whose bytes are the UTF-8 encoding of `text`.
    public init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// A form fit to show a person: the UTF-8 text when the bytes are valid UTF-8, escaped as
    /// `UntrustedText` escapes (control and format characters such as U+202E, long combining runs,
    /// backslashes), else printable ASCII with the other bytes written as `\xNN` escapes.
    public var displayForm: String {
        if let text = String(validating: bytes, as: UTF8.self) {
            return UntrustedText.forLog(text, limit: bytes.count)
        }
        var shown = ""
        for byte in bytes {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") {
                shown.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                shown += Self.escape(byte)
            }
        }
        return shown
    }

    public var description: String { displayForm }

    private static func escape(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }
}

/// The security class of a network, the second half of the network cache key. Raw values are the
/// strings used on D-Bus and in the state store.
public enum SecurityClass: String, CaseIterable, Sendable {
    /// No link-layer security.
    case open
    /// WEP.
    case wep
    /// WPA/WPA2/WPA3 with a pre-shared key.
    case personal
    /// WPA/WPA2/WPA3 with 802.1X.
    case enterprise
}

/// What identifies a network for the cache: the SSID bytes and the security class. Roaming between
/// access points (BSSIDs) of one network keeps the key, and so keeps the helper.
public struct NetworkKey: Hashable, Sendable, CustomStringConvertible {
    /// The network's SSID.
    public let ssid: SSID
    /// The network's security class.
    public let securityClass: SecurityClass

    /// Creates the key for an SSID and a security class.
    public init(ssid: SSID, securityClass: SecurityClass) {
        self.ssid = ssid
        self.securityClass = securityClass
    }

    public var description: String { "\(ssid.displayForm) (\(securityClass.rawValue))" }
}

/// A Wi-Fi network as helpers see it: the one an interface is associated with, or one entry of a
/// scan list.
public struct Network: Hashable, Sendable {
    /// The network's name.
    public var ssid: SSID
    /// The access point's hardware address, as NetworkManager writes it ("aa:bb:cc:dd:ee:ff").
    public var bssid: String
    /// Signal strength from 0 (weakest) to 1 (strongest).
    public var signalStrength: Double
    /// Whether the network uses any link-layer security.
    public var isSecure: Bool
    /// The network's security class.
    public var securityClass: SecurityClass
    /// Whether the system joined the network on its own rather than at the user's request.
    public var didAutoJoin: Bool
    /// Whether the command is part of the join sequence (true until the association first reaches
    /// authenticated; false for the periodic maintain). Set by the core on every command it sends.
    public var didJustJoin: Bool

    /// Creates a network; the signal strength is clamped to 0…1 and `isSecure` defaults to
    /// "not open".
    public init(
        ssid: SSID,
        bssid: String = "",
        signalStrength: Double = 0,
        securityClass: SecurityClass = .open,
        isSecure: Bool? = nil,
        didAutoJoin: Bool = false,
        didJustJoin: Bool = false
    ) {
        self.ssid = ssid
        self.bssid = bssid
        self.signalStrength = signalStrength.isNaN ? 0 : min(max(signalStrength, 0), 1)
        self.securityClass = securityClass
        self.isSecure = isSecure ?? (securityClass != .open)
        self.didAutoJoin = didAutoJoin
        self.didJustJoin = didJustJoin
    }

    /// The network's cache key.
    public var key: NetworkKey { NetworkKey(ssid: ssid, securityClass: securityClass) }
}
