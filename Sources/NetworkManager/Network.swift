// SPDX-License-Identifier: Apache-2.0
import DBus

/// A Wi-Fi device (DeviceType 2) managed by NetworkManager.
public struct WifiDevice: Sendable, Hashable, CustomStringConvertible {
    /// Its object path (`/org/freedesktop/NetworkManager/Devices/N`).
    public var path: ObjectPath
    /// The kernel interface name, e.g. `wlan0`.
    public var interfaceName: String
    /// Its hardware address (`Device.HwAddress`, or `Device.Wireless.HwAddress` before NM 1.24).
    public var hwAddress: String
    public var state: DeviceState
    /// The access point it is associated with (`Device.Wireless.ActiveAccessPoint`), if any.
    public var activeAccessPoint: ObjectPath?
    /// Its active connection (`Device.ActiveConnection`), if any.
    public var activeConnection: ObjectPath?

    public init(path: ObjectPath, interfaceName: String, hwAddress: String, state: DeviceState,
                activeAccessPoint: ObjectPath? = nil, activeConnection: ObjectPath? = nil) {
        self.path = path
        self.interfaceName = interfaceName
        self.hwAddress = hwAddress
        self.state = state
        self.activeAccessPoint = activeAccessPoint
        self.activeConnection = activeConnection
    }

    public var description: String { "\(interfaceName) (\(path), \(state))" }
}

/// The network a device has joined: what a hotspot helper is asked to evaluate.
public struct JoinedNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The SSID bytes (from the access point, or from the profile when the AP is not visible).
    public var ssid: [UInt8]
    /// The BSSID of the associated access point, when known.
    public var bssid: String?
    /// Signal quality in percent, when the access point is known.
    public var strength: UInt8?
    public var security: NetworkSecurity
    /// The associated access point, when known.
    public var accessPoint: ObjectPath?
    /// The active connection object.
    public var activeConnection: ObjectPath?
    /// The saved profile (`Settings.Connection`) in use, when known.
    public var settingsConnection: ObjectPath?
    /// The profile's `connection.id` and `connection.uuid`.
    public var connectionID: String?
    public var connectionUUID: ConnectionUUID?
    /// The profile's `connection.autoconnect` (NetworkManager's default, true, when absent).
    public var autoconnect: Bool
    /// Best effort: whether NetworkManager joined on its own rather than at a user's request.
    /// True when the profile has autoconnect on and already existed before the activation (a
    /// profile created for this join, as `nmcli dev wifi connect` does, means a person asked).
    /// NetworkManager does not publish the activation reason, so a person choosing an existing
    /// profile by hand also reads as an auto-join. See docs/NETWORKMANAGER.md.
    public var didAutoJoin: Bool

    public init(ssid: [UInt8], bssid: String?, strength: UInt8?, security: NetworkSecurity, accessPoint: ObjectPath?,
                activeConnection: ObjectPath?, settingsConnection: ObjectPath?, connectionID: String?, connectionUUID: ConnectionUUID?,
                autoconnect: Bool, didAutoJoin: Bool) {
        self.ssid = ssid
        self.bssid = bssid
        self.strength = strength
        self.security = security
        self.accessPoint = accessPoint
        self.activeConnection = activeConnection
        self.settingsConnection = settingsConnection
        self.connectionID = connectionID
        self.connectionUUID = connectionUUID
        self.autoconnect = autoconnect
        self.didAutoJoin = didAutoJoin
    }

    /// The SSID as text when it is valid UTF-8.
    public var ssidText: String? { String(validating: ssid, as: UTF8.self) }

    public var description: String {
        "\(ssidText.map { "'\($0)'" } ?? "<\(ssid.count) bytes>") \(bssid ?? "no BSSID") \(security)"
            + (didAutoJoin ? " auto-joined" : "")
    }
}

/// A saved Wi-Fi profile (`Settings.Connection`).
public struct SavedConnection: Sendable, Hashable {
    public var path: ObjectPath
    public var id: String
    public var uuid: String
    public var ssid: [UInt8]
    /// `connection.autoconnect` (true when absent, NetworkManager's default).
    public var autoconnect: Bool
    /// `802-11-wireless-security.key-mgmt`, nil for an open network.
    public var keyManagement: String?

    public init(path: ObjectPath, id: String, uuid: String, ssid: [UInt8], autoconnect: Bool, keyManagement: String?) {
        self.path = path
        self.id = id
        self.uuid = uuid
        self.ssid = ssid
        self.autoconnect = autoconnect
        self.keyManagement = keyManagement
    }
}

/// An IPv4 address with its prefix length.
public struct IPv4Address: Sendable, Hashable, CustomStringConvertible {
    /// Dotted quad, e.g. `192.168.1.23`.
    public var address: String
    public var prefix: UInt32
    public init(address: String, prefix: UInt32) { self.address = address; self.prefix = prefix }
    public var description: String { "\(address)/\(prefix)" }
}

/// A device's IPv4 configuration (`IP4Config`), for the captive-portal probes.
public struct IPv4Configuration: Sendable, Hashable {
    public var addresses: [IPv4Address]
    /// DNS servers, dotted quads, in NetworkManager's order.
    public var nameservers: [String]
    public var gateway: String?
    public init(addresses: [IPv4Address], nameservers: [String], gateway: String?) {
        self.addresses = addresses
        self.nameservers = nameservers
        self.gateway = gateway
    }
}

/// What the client reports, in order. After `.managerAvailable(false)` a consumer drops every
/// device, access point and joined network it holds; after `.managerAvailable(true)` a fresh
/// snapshot follows (devices, their access points, activated devices, the primary connection),
/// ended by `.snapshotComplete`, and then live changes.
public enum NetworkManagerEvent: Sendable {
    /// NetworkManager appeared on the bus (true) or left it (false). Either way: drop all state.
    case managerAvailable(Bool)
    /// The snapshot that follows `.managerAvailable(true)` is complete.
    case snapshotComplete
    /// A Wi-Fi device appeared (or is part of the snapshot).
    case wifiDeviceAdded(WifiDevice)
    /// A Wi-Fi device went away (as it was last known). When it was activated,
    /// `.deviceDeactivated` with reason `.removed` comes first.
    case wifiDeviceRemoved(WifiDevice)
    /// A Wi-Fi device's kernel interface was renamed (`Device.Interface` changed): `device` has
    /// the new name. Linux renames only an interface that is down, so no join is under way.
    case wifiDeviceRenamed(WifiDevice, from: String)
    /// Every state change of a Wi-Fi device, including failed joins that never activated.
    case deviceStateChanged(device: ObjectPath, state: DeviceState, previous: DeviceState, reason: DeviceStateReason)
    /// The device reached ACTIVATED (100): it gained IP connectivity on `network`.
    case deviceActivated(device: WifiDevice, network: JoinedNetwork)
    /// The device left ACTIVATED (any state below 100, DEACTIVATING, FAILED, or removal). Each
    /// `.deviceActivated` is followed by at most one of these.
    case deviceDeactivated(device: WifiDevice, state: DeviceState, reason: DeviceStateReason)
    /// The device's full current scan list, after an access point was added or removed, a scan
    /// finished (`LastScan`), or any access point property (such as Strength) changed.
    case accessPointsChanged(device: WifiDevice, [AccessPoint])
    /// The primary connection's type (`802-11-wireless`, `802-3-ethernet`…, nil when there is
    /// none), its first device, that device's interface name when it is a Wi-Fi device the
    /// client follows, and NetworkManager's global connectivity.
    case primaryConnectionChanged(type: String?, device: ObjectPath?, wifiInterface: String?, connectivity: Connectivity)
    /// Reading NetworkManager's state failed; the message says what and why. The client keeps
    /// going with what it has, and rebuilds everything when NetworkManager restarts.
    case readFailed(String)
    /// Signals came faster than the client handles them: past
    /// ``NetworkManagerClient/signalCapacity`` waiting, `droppedSignals` were dropped. The
    /// client rebuilds at once as after a restart (`.managerAvailable(false)`, then `true` and a
    /// fresh snapshot), so nothing the dropped signals announced is lost.
    case overloaded(droppedSignals: Int)
    /// A profile (`Settings.Connection`) appeared on or left the bus: someone added one, or
    /// deleted one (the desktop's "Forget"). Not reported for the snapshot's own profiles.
    case profilesChanged
    /// NetworkManager's own connectivity-check setting (`ConnectivityCheckEnabled`,
    /// `ConnectivityCheckUri`) after the snapshot and whenever it changes; nil while NetworkManager
    /// is away or does not say. Reported only when it differs from the last report.
    case connectivityCheckChanged(ConnectivityCheckSettings?)
    /// The answer to ``NetworkManagerClient/reportJoinEarly(interface:token:)``: whether the join
    /// on `interface` was reported (a `.deviceActivated` before this event, or earlier when
    /// ACTIVATED had already come). Every event before it reflects what NetworkManager announced
    /// before the request.
    case joinReportedEarly(interface: String, token: UInt64, reported: Bool)
}
