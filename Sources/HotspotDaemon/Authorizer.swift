// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol
import Synchronization

/// Decides whether a caller may perform an action: root always may; everyone else asks polkit
/// (org.freedesktop.PolicyKit1 on the system bus). With no polkit on the bus, only root may.
///
/// Bounded: at most ``maximumChecksPerCaller`` checks per caller wait on polkit
/// at once, so a flood of calls cannot pile up pending replies in the daemon; polkit may prompt
/// the user only when the caller's message allows interactive authorization.
public struct Authorizer: Sendable {
    public enum Answer: String, Sendable { case yes, no, challenge }

    /// Checks one caller may have waiting on polkit at once; more are refused at once.
    public static let maximumChecksPerCaller = 4
    /// Checks all callers together may have waiting: well below the system bus's limit of
    /// pending replies per connection (dbus-daemon's max_replies_per_connection, 128 in
    /// Debian's system.conf), so many callers cannot use up the daemon's own calls either.
    public static let maximumChecksInFlight = 64

    let connection: Connection
    private let inFlight = InFlightChecks()
    static let polkit: BusName = "org.freedesktop.PolicyKit1"
    static let authorityPath: ObjectPath = "/org/freedesktop/PolicyKit1/Authority"
    static let authority: InterfaceName = "org.freedesktop.PolicyKit1.Authority"

    public init(connection: Connection) { self.connection = connection }

    /// Asks without prompting (for CheckPermission).
    public func check(_ action: HotspotContract.Action, sender: String) async throws -> Answer {
        try await ask(action, sender: sender, interactive: false, details: [:]).answer
    }

    /// Throws NotAuthorized, naming the action, unless the caller of `call` may perform it.
    /// polkit may prompt the user only if the call allows interactive authorization; `details`
    /// go to polkit (`polkit.message` replaces the dialog's text).
    public func require(_ action: HotspotContract.Action, for call: MethodCall, details: [String: String] = [:]) async throws {
        let (answer, why) = try await ask(action, sender: call.sender, interactive: call.allowsInteractiveAuthorization, details: details)
        guard answer == .yes else {
            throw HotspotError(.notAuthorized, "not authorized to \(action.purpose) (polkit action \(action.id)): \(why)")
        }
    }

    private func ask(_ action: HotspotContract.Action, sender: String, interactive: Bool,
                     details: [String: String]) async throws -> (answer: Answer, why: String) {
        if let creds = try? await connection.credentials(of: sender), creds.uid == 0 { return (.yes, "root") }
        switch inFlight.enter(sender, limit: Self.maximumChecksPerCaller, total: Self.maximumChecksInFlight) {
        case .entered: break
        case .callerFull:
            throw HotspotError(.notAllowed, "too many authorization checks from this caller are waiting for polkit "
                               + "(at most \(Self.maximumChecksPerCaller)); wait for their answers and try again")
        case .daemonFull:
            throw HotspotError(.notAllowed, "the daemon has \(Self.maximumChecksInFlight) authorization checks waiting for polkit "
                               + "already; try again in a moment")
        }
        defer { inFlight.leave(sender) }
        let subject: DBusValue = .structure([.string("system-bus-name"), .varDict(["name": .string(sender)])])
        let detailEntries = details.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .string($0.value)) }
        do {
            let reply = try await connection.call(
                destination: Self.polkit, path: Self.authorityPath, interface: Self.authority, member: "CheckAuthorization",
                body: [subject, .string(action.id), .dictionary(key: .string, value: .string, detailEntries), .uint32(interactive ? 1 : 0), .string("")],
                timeout: interactive ? .seconds(120) : .seconds(10))
            guard let fields = reply.first?.structFields, fields.count >= 2, let authorized = fields[0].bool, let challenge = fields[1].bool else {
                return (.no, "polkit gave an unexpected answer")
            }
            if authorized { return (.yes, "") }
            if challenge && !interactive {
                return (.challenge, "authentication is required; call again allowing interactive authorization "
                        + "(busctl --allow-interactive-authorization=yes) so polkit can ask")
            }
            return challenge ? (.challenge, "authentication is required and none was given") : (.no, "polkit denied it")
        } catch let error as DBusError where [DBusErrorName.serviceUnknown, DBusErrorName.nameHasNoOwner].contains(error.name) {
            return (.no, "polkit is not running, so only root may do this")
        } catch {
            return (.no, "polkit could not be asked: \(error)")
        }
    }
}

/// How many polkit checks each caller, and all of them, have waiting.
final class InFlightChecks: Sendable {
    enum Entry { case entered, callerFull, daemonFull }
    private struct Counts { var byCaller: [String: Int] = [:]; var total = 0 }
    private let counts = Mutex(Counts())

    /// Counts one more check for `caller` unless it has `limit` waiting or all have `total`.
    func enter(_ caller: String, limit: Int, total: Int) -> Entry {
        counts.withLock { c in
            guard c.byCaller[caller, default: 0] < limit else { return .callerFull }
            guard c.total < total else { return .daemonFull }
            c.byCaller[caller, default: 0] += 1
            c.total += 1
            return .entered
        }
    }

    func leave(_ caller: String) {
        counts.withLock { c in
            let n = c.byCaller[caller, default: 1] - 1
            c.byCaller[caller] = n > 0 ? n : nil
            c.total -= 1
        }
    }
}
