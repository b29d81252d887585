// SPDX-License-Identifier: Apache-2.0
/// The manager's `Status` property: one pure function of what NetworkManager says (its primary
/// connection and global connectivity) and the daemon's own verdict for Wi-Fi links, which
/// replaces NetworkManager's when the primary connection is Wi-Fi.
public enum ManagerStatus {
    /// A connectivity as NetworkManager orders it, for its primary connection and for the
    /// daemon's published verdict of a Wi-Fi link alike.
    public enum Connectivity: Sendable, Hashable {
        case unknown, none, portal, limited, full
    }

    /// NetworkManager's primary connection as the client reports it.
    public struct Primary: Sendable, Equatable {
        /// Its NetworkManager connection type (`802-11-wireless`, `802-3-ethernet`, `gsm`, ...).
        public var type: String?
        /// Its device's interface name, when that is a Wi-Fi interface.
        public var interface: InterfaceID?
        /// NetworkManager's connectivity.
        public var connectivity: Connectivity

        public init(type: String?, interface: InterfaceID?, connectivity: Connectivity) {
            self.type = type
            self.interface = interface
            self.connectivity = connectivity
        }
    }

    /// What the manager's `Status` says.
    public enum Value: Sendable, Equatable {
        /// NetworkManager is away, or has not checked yet.
        case determining
        case notConnected
        /// Online through a connection of a type without a medium of its own (a VPN, say).
        case connected
        case connectedVia(Medium, internet: Bool)
    }

    public enum Medium: String, Sendable {
        case wifi, ethernet, cellular
    }

    /// - Parameters:
    ///   - primary: nil while NetworkManager is not on the bus or has not said yet.
    ///   - wifiConnectivity: the daemon's published connectivity of a Wi-Fi interface (nil when
    ///     the daemon does not follow it).
    public static func compute(primary: Primary?, wifiConnectivity: (InterfaceID) -> Connectivity?) -> Value {
        guard let primary else { return .determining }
        if primary.type == wifiType, let name = primary.interface, let verdict = wifiConnectivity(name), verdict != .unknown {
            return .connectedVia(.wifi, internet: verdict == .full)
        }
        guard let type = primary.type else { return .notConnected }
        if primary.connectivity == .unknown { return .determining }
        let online = primary.connectivity == .full
        let medium: Medium?
        switch type {
        case wifiType: medium = .wifi
        case "802-3-ethernet": medium = .ethernet
        case "gsm", "cdma": medium = .cellular
        default: medium = nil
        }
        guard let medium else { return online ? .connected : .notConnected }
        return .connectedVia(medium, internet: online)
    }

    /// NetworkManager's connection type for Wi-Fi.
    public static let wifiType = "802-11-wireless"
}
