// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import NetworkManager

/// The manager's `Status` property: one pure function of what NetworkManager says (its primary
/// connection and global connectivity) and the daemon's own verdict for Wi-Fi links, which
/// replaces NetworkManager's when the primary connection is Wi-Fi (it was
/// computed in two places, the NetworkManager bridge and the engine).
enum ManagerStatus {
    /// NetworkManager's primary connection as the client reports it.
    struct Primary: Sendable, Equatable {
        var type: String?
        /// Its device's interface name, when that is a Wi-Fi interface.
        var interface: InterfaceID?
        var connectivity: Connectivity
    }

    /// - Parameters:
    ///   - primary: nil while NetworkManager is not on the bus or has not said yet.
    ///   - wifiConnectivity: the daemon's published `Connectivity` of a Wi-Fi interface ("full",
    ///     "portal", "limited", "none"; "unknown" or nil when not checked).
    static func compute(primary: Primary?, wifiConnectivity: (InterfaceID) -> String?) -> String {
        guard let primary else { return "determining" }
        if primary.type == wifiType, let name = primary.interface, let verdict = wifiConnectivity(name), verdict != "unknown" {
            return verdict == "full" ? "connected-via-wifi" : "connected-via-wifi-without-internet"
        }
        guard let type = primary.type else { return "not-connected" }
        if primary.connectivity == .unknown { return "determining" }
        let online = primary.connectivity == .full
        let medium: String?
        switch type {
        case wifiType: medium = "wifi"
        case "802-3-ethernet": medium = "ethernet"
        case "gsm", "cdma": medium = "cellular"
        default: medium = nil
        }
        guard let medium else { return online ? "connected" : "not-connected" }
        return online ? "connected-via-\(medium)" : "connected-via-\(medium)-without-internet"
    }

    static let wifiType = "802-11-wireless"
}
