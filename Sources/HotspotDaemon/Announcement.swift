// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity
import HotspotCore
import HotspotProtocol

/// The manager's and an interface object's properties, as the engine names a change: the
/// contract's own declarations (``HotspotContract/Manager``, ``HotspotContract/Interface``), each
/// declared once there; BusPublisher encodes them.
typealias ManagerProperty = HotspotContract.Manager
typealias InterfaceProperty = HotspotContract.Interface

/// What the engine asks the bus server to announce, in the order it happened. Interfaces are
/// named by their number, which stays with an interface name for the daemon's life.
enum Announcement: Sendable {
    /// Manager properties changed: announced by name, their values read through the getters.
    case manager([PropertySpec])
    /// An interface object to export (then `Interfaces` is announced), or to withdraw.
    case interfaceAdded(number: Int)
    case interfaceRemoved(number: Int)
    /// An interface object's properties changed: named, with the record as it was then, so a
    /// state the engine passes through (authenticating) is announced even when the bus server
    /// gets to it after the next one.
    case interface(InterfaceRecord, [PropertySpec])
    case uiRequired(interface: Int, displayName: String, network: Network)
    case commandCompleted(interface: Int, helper: HelperID, command: CommandType, completion: CommandCompletion, seconds: Double)
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
    /// Why the joined network is as it is: the chosen helper's reason for its last answer, or the
    /// core's explanation.
    var reason = InterfaceReason.none
    /// The sign-in form waiting for the user (`SignInForm`), nil when none.
    var signInForm: SignInFormDescription?
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
