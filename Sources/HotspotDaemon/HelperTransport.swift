// SPDX-License-Identifier: Apache-2.0
import HotspotProtocol

/// How a helper's answer to one command came back.
enum CommandOutcome: Sendable {
    case answered(WireResponse)
    case malformed(String)
    case timedOut
    case vanished
}

/// Which way a helper's commands go, as the `Helpers` property says (`commands-via`).
enum CommandRoute: String, Sendable {
    /// A built-in helper, called in the daemon.
    case daemon
    /// `HandleCommand` through the bus.
    case bus
    /// `HandleCommand` on the helper's command channel, with no bus in between.
    case channel
}

/// How the engine reaches one registered helper: the only part of a helper that knows whether
/// it runs in the daemon, on the bus or behind a command channel. The engine sends commands and
/// is told when the helper is gone; it never sees a bus name, an object path or a D-Bus error.
protocol HelperTransport: AnyObject, Sendable {
    var route: CommandRoute { get }
    /// The bus connection (unique name) that registered the helper; nil for built-in helpers.
    /// Requests from that connection (UnregisterHelper, Logoff) are the helper's own.
    var peer: String? { get }
    /// Why the helper is gone, when it left before the engine could hear of it.
    var left: String? { get }
    /// Sends `command` now and returns the wait for its outcome; the wait returns nil when there
    /// is none to report (the wait was cancelled, or the daemon is closing its connection).
    /// `timeout` only backs up the core's own deadline.
    func send(_ command: WireCommand, timeout: Duration) -> @Sendable () async -> CommandOutcome?
    /// Stops watching the helper and closes what reaches it. Called once the engine has let go of
    /// it; calling it again does nothing.
    func close(reason: String) async
}
