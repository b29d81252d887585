// SPDX-License-Identifier: Apache-2.0
/// A device's state (NMDeviceState). Unknown values are kept as they are.
public struct DeviceState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let unknown = DeviceState(rawValue: 0)
    public static let unmanaged = DeviceState(rawValue: 10)
    public static let unavailable = DeviceState(rawValue: 20)
    public static let disconnected = DeviceState(rawValue: 30)
    public static let prepare = DeviceState(rawValue: 40)
    public static let config = DeviceState(rawValue: 50)
    public static let needAuth = DeviceState(rawValue: 60)
    public static let ipConfig = DeviceState(rawValue: 70)
    public static let ipCheck = DeviceState(rawValue: 80)
    public static let secondaries = DeviceState(rawValue: 90)
    /// The device has IP connectivity: the only state that counts as "joined".
    public static let activated = DeviceState(rawValue: 100)
    public static let deactivating = DeviceState(rawValue: 110)
    public static let failed = DeviceState(rawValue: 120)

    /// Whether the device has IP connectivity (ACTIVATED, and nothing else).
    public var isActivated: Bool { self == .activated }

    /// Whether the device holds a join the daemon may already act on: ACTIVATED, or the states
    /// between its addresses and ACTIVATED (IP_CHECK, where NetworkManager runs its pre-up
    /// dispatcher scripts and waits for them, and SECONDARIES).
    public var holdsJoin: Bool { self == .ipCheck || self == .secondaries || self == .activated }

    public var description: String {
        switch rawValue {
        case 0: return "unknown"
        case 10: return "unmanaged"
        case 20: return "unavailable"
        case 30: return "disconnected"
        case 40: return "prepare"
        case 50: return "config"
        case 60: return "need-auth"
        case 70: return "ip-config"
        case 80: return "ip-check"
        case 90: return "secondaries"
        case 100: return "activated"
        case 110: return "deactivating"
        case 120: return "failed"
        default: return "state \(rawValue)"
        }
    }
}

/// Why a device changed state (NMDeviceStateReason); only the values this project acts on are named.
public struct DeviceStateReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let none = DeviceStateReason(rawValue: 0)
    public static let unknown = DeviceStateReason(rawValue: 1)
    public static let noSecrets = DeviceStateReason(rawValue: 7)
    public static let supplicantDisconnect = DeviceStateReason(rawValue: 8)
    public static let supplicantFailed = DeviceStateReason(rawValue: 10)
    public static let supplicantTimeout = DeviceStateReason(rawValue: 11)
    public static let dhcpFailed = DeviceStateReason(rawValue: 17)
    /// The device went away.
    public static let removed = DeviceStateReason(rawValue: 36)
    public static let sleeping = DeviceStateReason(rawValue: 37)
    public static let connectionRemoved = DeviceStateReason(rawValue: 38)
    public static let userRequested = DeviceStateReason(rawValue: 39)
    public static let carrier = DeviceStateReason(rawValue: 40)
    public static let ssidNotFound = DeviceStateReason(rawValue: 53)
    public static let newActivation = DeviceStateReason(rawValue: 60)

    public var description: String {
        switch rawValue {
        case 0: return "none"
        case 1: return "unknown"
        case 7: return "no-secrets"
        case 8: return "supplicant-disconnect"
        case 10: return "supplicant-failed"
        case 11: return "supplicant-timeout"
        case 17: return "dhcp-failed"
        case 36: return "removed"
        case 37: return "sleeping"
        case 38: return "connection-removed"
        case 39: return "user-requested"
        case 40: return "carrier"
        case 53: return "ssid-not-found"
        case 60: return "new-activation"
        default: return "reason \(rawValue)"
        }
    }
}

/// NetworkManager's connectivity verdict (NMConnectivityState).
///
/// Careful when aggregating: NetworkManager ranks the states unknown < none < limited < portal <
/// full (`nm_connectivity_state_cmp`), which is not the numeric order; use ``rank``.
public enum Connectivity: UInt32, Sendable, Hashable, CustomStringConvertible {
    case unknown = 0, none = 1, portal = 2, limited = 3, full = 4

    /// Unknown values read as `.unknown`.
    public init(nmValue: UInt32) { self = Connectivity(rawValue: nmValue) ?? .unknown }

    /// NetworkManager's ordering: higher is better.
    public var rank: Int {
        switch self {
        case .unknown: return 0
        case .none: return 1
        case .limited: return 2
        case .portal: return 3
        case .full: return 4
        }
    }

    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .none: return "none"
        case .portal: return "portal"
        case .limited: return "limited"
        case .full: return "full"
        }
    }
}
