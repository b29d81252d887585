// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import HotspotProtocol

/// The manager's and an interface object's properties, as the engine names a change: the
/// contract's rows (``HotspotContract/ManagerProperty``, ``HotspotContract/InterfaceProperty``),
/// each declared once there with its spec; BusPublisher encodes every one (a `switch` with no
/// `default`).
typealias ManagerProperty = HotspotContract.ManagerProperty
typealias InterfaceProperty = HotspotContract.InterfaceProperty

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
    case commandCompleted(interface: Int, helper: HelperID, command: CommandType, completion: CommandCompletion, seconds: Double)
    /// An interface's annotated scan list changed in what a desktop shows (``ScanListSummary``).
    case scanListChanged(interface: Int)
}
