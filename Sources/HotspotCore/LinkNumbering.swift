// SPDX-License-Identifier: Apache-2.0
/// The numbers the daemon gives interfaces and their links. Pure bookkeeping, kept in the core so
/// its rules are tested with the rest.
///
/// - An interface name gets a number the first time it is seen and keeps it for the daemon's life
///   (its object path, and the path `CommandCompleted` names for commands that end as it goes).
/// - Each association (a join, until it is left) is a link with a number of its own: reports made
///   about a link already left are recognised as stale and dropped. Joined again to the same
///   network without a leave (NetworkManager announcing it once more) is the same link.
public struct LinkNumbering: Sendable {
    private var interfaceNumbers: [InterfaceID: Int] = [:]
    private var lastInterfaceNumber = 0
    private var links: [InterfaceID: (id: UInt64, ssid: SSID)] = [:]
    private var lastLink: UInt64 = 0

    public init() {}

    /// The interface's number, given now if it has none.
    public mutating func number(for name: InterfaceID) -> Int {
        if let n = interfaceNumbers[name] { return n }
        lastInterfaceNumber += 1
        interfaceNumbers[name] = lastInterfaceNumber
        return lastInterfaceNumber
    }

    /// The interface's number, if it has been given one.
    public func existingNumber(for name: InterfaceID) -> Int? { interfaceNumbers[name] }

    /// `name` joined `ssid`: its link, a new one unless it is already joined to that network.
    @discardableResult
    public mutating func joined(_ name: InterfaceID, ssid: SSID) -> UInt64 {
        if let current = links[name], current.ssid == ssid { return current.id }
        lastLink += 1
        links[name] = (lastLink, ssid)
        return lastLink
    }

    /// `name` left its network (or went away): reports of its link are stale from here on.
    public mutating func left(_ name: InterfaceID) { links[name] = nil }

    /// The number of the interface's current link, if it is joined.
    public func link(_ name: InterfaceID) -> UInt64? { links[name]?.id }
}
