// SPDX-License-Identifier: Apache-2.0
/// Errors raised by the D-Bus layer.
///
/// Every case names the bad value or the remote error, so the program above can say what went
/// wrong and what to do. Library code never logs; it throws.
public enum DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value was refused before it reached libdbus (invalid UTF-8, an embedded NUL, an invalid
    /// object path, name or signature, a container whose items do not match its element type…).
    case invalidValue(String)
    /// The peer answered with a D-Bus error.
    case remote(name: String, message: String)
    /// No reply arrived before the deadline.
    case timedOut(member: String, destination: String, after: Duration)
    /// The connection to the bus is gone (the bus exited, or the connection was closed).
    case disconnected(String)
    /// The bus address could not be connected to.
    case connectionFailed(address: String, reason: String)
    /// Another connection owns the name already.
    case nameTaken(String)
    /// The reply did not have the shape the caller expected.
    case unexpectedReply(String)
    /// The task waiting for the reply was cancelled.
    case cancelled

    /// The D-Bus error name, for remote errors; a `org.freedesktop.DBus.Error.*` equivalent otherwise.
    public var name: String {
        switch self {
        case .remote(let name, _): return name
        case .invalidValue: return DBusErrorName.invalidArgs
        case .timedOut: return DBusErrorName.timeout
        case .disconnected: return DBusErrorName.disconnected
        case .connectionFailed: return DBusErrorName.noServer
        case .nameTaken: return "org.freedesktop.DBus.Error.AddressInUse"
        case .unexpectedReply: return DBusErrorName.invalidSignature
        case .cancelled: return DBusErrorName.failed
        }
    }

    /// A message a person can act on.
    public var message: String {
        switch self {
        case .invalidValue(let why): return why
        case .remote(_, let message): return message
        case .timedOut(let member, let destination, let after):
            return "no reply to \(member) from \(destination) within \(after)"
        case .disconnected(let why): return "the D-Bus connection is closed: \(why)"
        case .connectionFailed(let address, let reason):
            return "cannot connect to the bus at \(address): \(reason)"
        case .nameTaken(let name):
            return "the bus name \(name) is already owned by another process; stop it first (busctl status \(name))"
        case .unexpectedReply(let why): return "unexpected reply: \(why)"
        case .cancelled: return "the call was cancelled"
        }
    }

    public var description: String { "\(name): \(message)" }
}

/// The standard error names of the D-Bus specification.
public enum DBusErrorName {
    public static let failed = "org.freedesktop.DBus.Error.Failed"
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let timeout = "org.freedesktop.DBus.Error.Timeout"
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    public static let noServer = "org.freedesktop.DBus.Error.NoServer"
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
}
