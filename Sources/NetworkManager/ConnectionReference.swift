// SPDX-License-Identifier: Apache-2.0
import DBus

/// A connection profile's `connection.uuid`: stable across NetworkManager and daemon restarts,
/// unlike the profile's settings object path.
public struct ConnectionUUID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ text: String) { rawValue = text }
    public var description: String { rawValue }
}

/// How the daemon names a connection profile: by UUID when NetworkManager gives one, else by its
/// settings object path. One owner of the text form the core keeps (an object path starts with
/// `/`, a UUID never does), so no caller tells them apart by hand.
public enum ConnectionReference: Hashable, Sendable, CustomStringConvertible {
    case uuid(ConnectionUUID)
    case settings(ObjectPath)

    /// From the text form (``text``); nil for text that is neither.
    public init?(text: String) {
        if text.hasPrefix("/") {
            guard let path = try? ObjectPath(text) else { return nil }
            self = .settings(path)
        } else {
            guard !text.isEmpty else { return nil }
            self = .uuid(ConnectionUUID(text))
        }
    }

    /// The profile a join used: its UUID, else its settings path.
    public init?(_ joined: JoinedNetwork) {
        if let uuid = joined.connectionUUID { self = .uuid(uuid) } else if let path = joined.settingsConnection { self = .settings(path) } else { return nil }
    }

    public var text: String {
        switch self {
        case .uuid(let uuid): return uuid.rawValue
        case .settings(let path): return path.rawValue
        }
    }

    public var description: String { text }
}
