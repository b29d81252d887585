// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol

/// Why a client request failed, in the categories a script can act on, each with its exit code
/// (documented in hotspotctl(1)) and a message a person can act on.
public enum ClientFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request was wrong (exit 2).
    case usage(String)
    /// The daemon is not on the bus and could not be started (exit 3).
    case daemonNotRunning(String)
    /// The system bus itself is unreachable (exit 3: nothing can talk to the daemon).
    case busUnavailable(String)
    /// polkit refused; names the action (exit 4).
    case notAuthorized(action: String?, message: String)
    /// Anything else the daemon refused or that went wrong (exit 1).
    case failed(String)

    /// The process exit status for this failure.
    public var exitCode: Int32 {
        switch self {
        case .failed: return ExitStatus.failure
        case .usage: return ExitStatus.usage
        case .daemonNotRunning, .busUnavailable: return ExitStatus.daemonNotRunning
        case .notAuthorized: return ExitStatus.notAuthorized
        }
    }

    public var description: String {
        switch self {
        case .usage(let m), .failed(let m): return m
        case .daemonNotRunning(let why):
            return "hotspot-helperd is not running: sudo systemctl start hotspot-helperd (\(why))"
        case .busUnavailable(let why):
            return "cannot reach the system bus, so hotspot-helperd cannot be asked: \(why). Is dbus running (systemctl status dbus)?"
        case .notAuthorized(let action, let message):
            guard let action else { return "not authorized: \(message)" }
            return "not authorized (polkit action \(action)): \(message)"
        }
    }

    /// Classifies any error from the D-Bus layer or the daemon.
    public static func classify(_ error: any Error) -> ClientFailure {
        if let failure = error as? ClientFailure { return failure }
        guard let e = error as? DBusError else { return .failed("\(error)") }
        switch e {
        case .connectionFailed(_, let reason): return .busUnavailable(reason)
        case .disconnected(let why): return .daemonNotRunning("the bus connection closed: \(why)")
        case .timedOut: return .failed("hotspot-helperd did not answer in time: \(e.message)")
        default: break
        }
        let name = e.name
        if name == DBusErrorName.serviceUnknown || name == DBusErrorName.nameHasNoOwner || name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
            || name.hasPrefix("org.freedesktop.systemd1.") {
            return .daemonNotRunning(e.message)
        }
        if name == HotspotContract.errorPrefix + HotspotError.Kind.notAuthorized.rawValue {
            return .notAuthorized(action: actionID(in: e.message), message: e.message)
        }
        if name == DBusErrorName.accessDenied {
            return .notAuthorized(action: nil, message: "the bus policy refused the call: \(e.message)")
        }
        if name.hasPrefix(HotspotContract.errorPrefix) { return .failed(e.message) }
        return .failed(e.description)
    }

    /// The polkit action id named in a daemon message, if any.
    static func actionID(in message: String) -> String? {
        HotspotContract.Action.allCases.map(\.id).first { message.contains($0) }
    }
}

/// The exit statuses of hotspotctl (and hotspot-helper-agent's start-up failures).
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    public static let daemonNotRunning: Int32 = 3
    public static let notAuthorized: Int32 = 4
}
