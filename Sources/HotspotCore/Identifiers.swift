// SPDX-License-Identifier: Apache-2.0
/// A string-backed identifier from the domain: an interface, a helper or a NetworkManager connection.
public protocol DomainIdentifier: RawRepresentable<String>, Hashable, Comparable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    /// Creates the identifier from its string form.
    init(rawValue: String)
}

extension DomainIdentifier {
    /// Creates the identifier from its string form.
    public init(_ rawValue: String) {
        self.init(rawValue: rawValue)
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { rawValue }
}

/// A Wi-Fi interface the daemon manages, named as the daemon likes (for example "wlan0").
public struct InterfaceID: DomainIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A helper's stable identifier (the `Identifier` registration option, defaulting to the display
/// name). It survives helper and daemon restarts, so the network cache can name helpers by it.
public struct HelperID: DomainIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A NetworkManager connection profile (its UUID or object path, as the daemon chooses), the unit
/// whose autoconnect the core switches off after a failure.
public struct ConnectionID: DomainIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// Identifies one command sent to one helper. A helper's answer carries the token of the command it
/// answers, so answers are matched exactly even when several commands are in flight.
public struct CommandToken: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The token's number; tokens are issued in increasing order and never reused.
    public let rawValue: UInt64

    /// Creates a token from its number (the daemon normally only copies tokens it was given).
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: CommandToken, rhs: CommandToken) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { "#\(rawValue)" }
}
