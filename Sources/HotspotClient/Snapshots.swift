// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol

/// The manager object's properties.
public struct ManagerSnapshot: Sendable, Codable, Equatable {
    public var version: String
    public var status: String
    public var interfaces: [ObjectPath]
    public var helpers: [HelperSnapshot]
    /// The connectivity probes' endpoints and why (`ProbePolicy`; empty from an older daemon).
    public var probePolicy: String

    enum CodingKeys: String, CodingKey { case version, status, interfaces, helpers, probePolicy = "probe-policy" }

    public init(version: String, status: String, interfaces: [ObjectPath], helpers: [HelperSnapshot], probePolicy: String = "") {
        self.version = version
        self.status = status
        self.interfaces = interfaces
        self.helpers = helpers
        self.probePolicy = probePolicy
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(status, forKey: .status)
        try c.encode(interfaces.map(\.rawValue), forKey: .interfaces)
        try c.encode(helpers, forKey: .helpers)
        try c.encode(probePolicy, forKey: .probePolicy)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(String.self, forKey: .version)
        status = try c.decode(String.self, forKey: .status)
        interfaces = try c.decode([String].self, forKey: .interfaces).map { try ObjectPath($0) }
        helpers = try c.decode([HelperSnapshot].self, forKey: .helpers)
        probePolicy = try c.decodeIfPresent(String.self, forKey: .probePolicy) ?? ""
    }
}

/// A registered helper, as the manager's `Helpers` property lists it.
public struct HelperSnapshot: Sendable, Codable, Equatable {
    public var identifier: String
    public var displayName: String
    /// Why the helper wants to see Wi-Fi networks, as it said when registering (empty if none).
    public var purpose: String
    public var state: String
    /// How its commands reach it: `bus`, `channel` (its command channel) or `daemon` (built in).
    public var commandsVia: String

    enum CodingKeys: String, CodingKey { case identifier, displayName = "display-name", purpose, state, commandsVia = "commands-via" }

    public init(_ d: [String: DBusValue]) {
        identifier = d["identifier"]?.string ?? ""
        displayName = d["display-name"]?.string ?? ""
        purpose = d["purpose"]?.string ?? ""
        state = d["state"]?.string ?? ""
        commandsVia = d["commands-via"]?.string ?? ""
    }
}

/// The network an interface is on (the `Network` property or a UIRequired argument).
public struct NetworkSummary: Sendable, Codable, Equatable {
    public var ssid: [UInt8]
    public var bssid: String
    public var signalStrength: Double?
    public var secure: Bool?

    enum CodingKeys: String, CodingKey { case ssid, bssid, signalStrength = "signal-strength", secure }

    public init(_ d: [String: DBusValue]) {
        ssid = d["ssid"]?.byteArray ?? []
        bssid = d["bssid"]?.string ?? ""
        signalStrength = d["signal-strength"]?.double
        secure = d["secure"]?.bool
    }

    /// Whether the interface is associated at all (the property is empty otherwise; without the
    /// read-scan-list action an associated network has no SSID or BSSID, but its other keys).
    public var isEmpty: Bool { ssid.isEmpty && bssid.isEmpty && signalStrength == nil && secure == nil }

    /// The SSID for people: UTF-8 when it is, escaped bytes otherwise.
    public var name: String { SSIDText.display(ssid) }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .ssid)
        try c.encode(bssid, forKey: .bssid)
        try c.encodeIfPresent(signalStrength, forKey: .signalStrength)
        try c.encodeIfPresent(secure, forKey: .secure)
    }
}

/// One Wi-Fi interface object's properties.
public struct InterfaceSnapshot: Sendable, Encodable, Equatable {
    public var path: ObjectPath
    public var name: String
    public var device: String
    public var state: String
    public var network: NetworkSummary?
    public var helper: String
    public var connectivity: String
    public var portalURL: String
    /// The venue's information page (RFC 8908), "" when none.
    public var venueInfoURL: String
    /// CLOCK_REALTIME seconds when the portal session ends; 0 when unknown.
    public var sessionExpires: UInt64
    /// Why the chosen helper answered as it did (escaped by the daemon), "" when it said nothing.
    public var reason: String

    enum CodingKeys: String, CodingKey {
        case path, name, device, state, network, helper, connectivity, portalURL = "portal-url", venueInfoURL = "venue-info-url"
        case sessionExpires = "session-expires", reason
    }

    public init(path: ObjectPath, properties p: [String: DBusValue]) {
        self.path = path
        typealias I = HotspotContract.InterfaceProperty
        name = p[I.name]?.string ?? ""
        device = p[I.device]?.objectPath?.rawValue ?? ""
        state = p[I.state]?.string ?? ""
        let n = NetworkSummary(p[I.network]?.varDict ?? [:])
        network = n.isEmpty ? nil : n
        helper = p[I.helper]?.string ?? ""
        connectivity = p[I.connectivity]?.string ?? ""
        portalURL = p[I.portalUrl]?.string ?? ""
        venueInfoURL = p[I.venueInfoUrl]?.string ?? ""
        sessionExpires = p[I.sessionExpires].flatMap { v -> UInt64? in if case .uint64(let t) = v { return t }; return nil } ?? 0
        reason = p[I.reason]?.string ?? ""
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path.rawValue, forKey: .path)
        try c.encode(name, forKey: .name)
        try c.encode(device, forKey: .device)
        try c.encode(state, forKey: .state)
        try c.encode(network, forKey: .network)
        try c.encode(helper, forKey: .helper)
        try c.encode(connectivity, forKey: .connectivity)
        try c.encode(portalURL, forKey: .portalURL)
        try c.encode(venueInfoURL, forKey: .venueInfoURL)
        try c.encode(sessionExpires, forKey: .sessionExpires)
        try c.encode(reason, forKey: .reason)
    }
}

/// One entry of the annotated scan list (GetScanList).
public struct ScanEntry: Sendable, Encodable, Equatable {
    public var ssid: [UInt8]
    public var bssid: String
    public var strength: Double
    public var secure: Bool
    /// The claiming helper's display name ("" when no helper claimed the network).
    public var displayName: String
    public var hasPassword: Bool

    enum CodingKeys: String, CodingKey { case ssid, bssid, strength, secure, displayName = "display-name", hasPassword = "has-password" }

    public init(_ d: [String: DBusValue]) {
        ssid = d["ssid"]?.byteArray ?? []
        bssid = d["bssid"]?.string ?? ""
        strength = d["strength"]?.double ?? 0
        secure = d["secure"]?.bool ?? false
        displayName = d["display-name"]?.string ?? ""
        hasPassword = d["has-password"]?.bool ?? false
    }

    public var name: String { SSIDText.display(ssid) }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .ssid)
        try c.encode(bssid, forKey: .bssid)
        try c.encode(strength, forKey: .strength)
        try c.encode(secure, forKey: .secure)
        try c.encode(displayName, forKey: .displayName)
        try c.encode(hasPassword, forKey: .hasPassword)
    }
}

/// The answer of CheckConnectivity.
public struct ConnectivityReport: Sendable, Encodable, Equatable {
    public var connectivity: String
    public var portalURL: String
    public var reason: String
    public var sessionExpires: UInt64

    enum CodingKeys: String, CodingKey { case connectivity, portalURL = "portal-url", reason, sessionExpires = "session-expires" }

    public init(_ d: [String: DBusValue]) {
        connectivity = d["connectivity"]?.string ?? "unknown"
        portalURL = d["portal-url"]?.string ?? ""
        reason = d["reason"]?.string ?? ""
        sessionExpires = d["session-expires"].flatMap { v -> UInt64? in if case .uint64(let t) = v.unwrapped { return t }; return nil } ?? 0
    }
}

/// SSIDs are bytes; people read text.
public enum SSIDText {
    /// UTF-8 when the bytes are valid UTF-8, escaped by `UntrustedText` (control and format
    /// characters such as U+202E, long combining runs), otherwise printable ASCII with other bytes
    /// written `\xNN`: the daemon's own display form (`SSID.displayForm`).
    public static func display(_ bytes: [UInt8]) -> String { SSID(bytes: bytes).displayForm }
}
