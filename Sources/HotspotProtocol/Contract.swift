// SPDX-License-Identifier: Apache-2.0
import DBus

/// The daemon's D-Bus contract (dbus/org.freedesktop.NetworkManager.HotspotHelper.xml): names
/// here, the three interfaces in ContractInterfaces.swift, the errors below.
public enum HotspotContract {
    public static let busName: BusName = "org.freedesktop.NetworkManager.HotspotHelper"
    public static let managerPath: ObjectPath = "/org/freedesktop/NetworkManager/HotspotHelper"
    public static let managerInterface: InterfaceName = "org.freedesktop.NetworkManager.HotspotHelper"
    public static let interfaceInterface: InterfaceName = "org.freedesktop.NetworkManager.HotspotHelper.Interface"
    public static let handlerInterface: InterfaceName = "org.freedesktop.NetworkManager.HotspotHelper.Handler"
    public static let errorPrefix = "org.freedesktop.NetworkManager.HotspotHelper.Error."

    /// Every error name the daemon's methods can return besides the standard D-Bus ones.
    public static var errors: [String] { HotspotError.Kind.allCases.map { errorPrefix + $0.rawValue } }

    /// The object path of the interface numbered `n`.
    public static func interfacePath(_ n: Int) -> ObjectPath {
        (try? ObjectPath("/org/freedesktop/NetworkManager/HotspotHelper/Interface/\(n)")) ?? managerPath
    }

    /// The polkit actions, by short name.
    public enum Action: String, CaseIterable, Sendable {
        case registerHelper = "register-helper"
        case readScanList = "read-scan-list"
        case control = "control"
        case signIn = "sign-in"

        /// The full polkit action id.
        public var id: String { "org.freedesktop.NetworkManager.HotspotHelper.\(rawValue)" }

        /// What the action allows, for error messages.
        public var purpose: String {
            switch self {
            case .registerHelper: return "register a hotspot helper"
            case .readScanList: return "read the Wi-Fi scan list (network names and access point addresses)"
            case .control: return "log off, present a sign-in page, check connectivity, or forget a network"
            case .signIn: return "sign in to a Wi-Fi hotspot's portal with what you typed"
            }
        }

        /// Accepts the short name or the full id.
        public init?(named name: String) {
            if let a = Action(rawValue: name) { self = a; return }
            guard let a = Action.allCases.first(where: { $0.id == name }) else { return nil }
            self = a
        }
    }
}

/// The daemon's errors, each with a message a person can act on.
public struct HotspotError: Error, DBusErrorConvertible, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case notAuthorized = "NotAuthorized"
        case alreadyRegistered = "AlreadyRegistered"
        case notRegistered = "NotRegistered"
        case invalidArgs = "InvalidArgs"
        case notAllowed = "NotAllowed"
        case noSuchNetwork = "NoSuchNetwork"
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var dbusErrorName: String { HotspotContract.errorPrefix + kind.rawValue }
    public var dbusErrorMessage: String { message }
    public var description: String { "\(dbusErrorName): \(message)" }
}
