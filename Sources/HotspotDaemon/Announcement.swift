// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore

/// The manager's properties, as the engine names a change (BusPublisher encodes them).
enum ManagerProperty: Sendable {
    case interfaces, helpers, status, probePolicy
}

/// An interface object's properties, as the engine names a change (BusPublisher encodes them).
enum InterfaceProperty: Sendable, CaseIterable {
    case name, device, state, network, helper, connectivity, portalURL, venueInfoURL, sessionExpires, reason
}

/// What the engine asks the bus server to announce, in the order it happened. Interfaces are
/// named by their number, which stays with an interface name for the daemon's life.
enum Announcement: Sendable {
    /// Manager properties changed: announced by name, their values read through the getters.
    case manager([ManagerProperty])
    /// An interface object to export (then `Interfaces` is announced), or to withdraw.
    case interfaceAdded(number: Int)
    case interfaceRemoved(number: Int)
    /// An interface object's properties changed: named, with the record as it was then, so a
    /// state the engine passes through (authenticating) is announced even when the bus server
    /// gets to it after the next one.
    case interface(InterfaceRecord, [InterfaceProperty])
    case uiRequired(interface: Int, displayName: String, network: Network)
    case commandCompleted(interface: Int, helper: String, command: String, result: String, seconds: Double)
    /// An interface's annotated scan list changed in what a desktop shows (``ScanListSummary``).
    case scanListChanged(interface: Int)
}

/// An interface's connectivity as the daemon publishes it (`Connectivity`): the
/// hysteresis-smoothed state of its checks, unknown until one is made.
enum LinkConnectivity: Sendable, Equatable {
    case unknown, none, portal, limited, full

    init(_ state: ProbeVerdict.State) {
        switch state {
        case .online: self = .full
        case .portal: self = .portal
        case .partial: self = .limited
        case .none: self = .none
        }
    }
}

/// One Wi-Fi interface as the daemon publishes it. Its NetworkManager device is the
/// NetworkManager adapter's fact, read by the bus server when `Device` is asked for.
struct InterfaceRecord: Sendable {
    var number: Int
    var name: InterfaceID
    var status: InterfaceStatus?
    var scanList: [AnnotatedNetwork] = []
    var connectivity = LinkConnectivity.unknown
    var portalURL = ""
    /// The venue's information page (RFC 8908 `venue-info-url`), "" when none.
    var venueInfoURL = ""
    var sessionExpires: UInt64 = 0
    /// The chosen helper's reason for its last answer about the joined network, "" when none.
    var reason = ""
}

/// CheckConnectivity's answer: the published values after a fresh check, and the check's reason.
struct ConnectivityAnswer: Sendable {
    var connectivity: LinkConnectivity
    var portalURL: String
    var sessionExpires: UInt64
    var reason: String
}

/// One entry of the `Helpers` property.
struct HelperSummary: Sendable, Equatable {
    var identifier: String
    var displayName: String
    var purpose: String
    var responsive: Bool
    var route: CommandRoute
}
