// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol
import Synchronization

/// Decides whether a caller may perform an action: root always may; everyone else asks polkit
/// (org.freedesktop.PolicyKit1 on the system bus). With no polkit on the bus, only root may.
///
/// Bounded, so that no caller and no user can take the checks everyone else needs: checks that
/// may prompt (interactive) can wait up to 120 s on an authentication agent that never answers,
/// while the others take polkit milliseconds; they are counted apart (``Slots``), each kind with a
/// limit per connection, per user and in all. A user's checks fill at most a quarter of a
/// kind's slots, so one user (whatever number of connections they open) never makes the daemon
/// refuse another, and a non-interactive check (`CheckPermission`, a call made without
/// interactive authorization) never waits behind interactive ones.
public struct Authorizer: Sendable {
    public enum Answer: String, Sendable { case yes, no, challenge }

    /// Checks one caller (connection) may have waiting on polkit at once; more are refused at once.
    public static let maximumChecksPerCaller = 4
    /// Interactive checks one user (uid) may have waiting, over all their connections: twice a
    /// caller's, so a user with a few clients open is not refused, and a quarter of
    /// ``maximumInteractiveChecks``, so one user cannot fill them.
    public static let maximumInteractiveChecksPerUser = 8
    /// Interactive checks all callers together may have waiting.
    public static let maximumInteractiveChecks = 32
    /// Other checks one user may have waiting: polkit answers them in milliseconds, so only a burst
    /// counts (a user registering their 8 helpers at once, with a few `CheckPermission` calls); a
    /// quarter of ``maximumOtherChecks``.
    public static let maximumOtherChecksPerUser = 12
    /// Other checks all callers together may have waiting.
    public static let maximumOtherChecks = 48
    /// Checks all callers together may have waiting, of both kinds: well below the system bus's
    /// limit of pending replies per connection (dbus-daemon's max_replies_per_connection, 128 in
    /// Debian's system.conf), so many callers cannot use up the daemon's own calls either.
    public static let maximumChecksInFlight = maximumInteractiveChecks + maximumOtherChecks

    /// A check's kind, each with its own slots.
    public enum Kind: Sendable, Hashable { case interactive, nonInteractive }

    /// Limits for one kind of check.
    public struct Slots: Sendable, Equatable {
        public var perCaller: Int
        public var perUser: Int
        public var total: Int
    }

    /// The limits of each kind.
    public static func slots(_ kind: Kind) -> Slots {
        switch kind {
        case .interactive: Slots(perCaller: maximumChecksPerCaller, perUser: maximumInteractiveChecksPerUser, total: maximumInteractiveChecks)
        case .nonInteractive: Slots(perCaller: maximumChecksPerCaller, perUser: maximumOtherChecksPerUser, total: maximumOtherChecks)
        }
    }

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
        let creds = try? await connection.credentials(of: sender)
        if creds?.uid == 0 { return (.yes, "root") }
        let kind: Kind = interactive ? .interactive : .nonInteractive
        let user = creds?.uid.map { "uid \($0)" } ?? sender
        let slots = Self.slots(kind)
        let kindName = interactive ? "interactive" : "non-interactive"
        switch inFlight.enter(caller: sender, user: user, kind: kind, slots: slots) {
        case .entered: break
        case .callerFull:
            throw HotspotError(.notAllowed, "too many authorization checks from this caller are waiting for polkit "
                               + "(at most \(slots.perCaller)); wait for their answers and try again")
        case .userFull:
            throw HotspotError(.notAllowed, "\(user) has \(slots.perUser) \(kindName) authorization checks waiting for polkit already "
                               + "(the most one user may have); answer or cancel the authentication dialogs and try again")
        case .daemonFull:
            throw HotspotError(.notAllowed, "the daemon has \(slots.total) \(kindName) authorization checks waiting for polkit "
                               + "already; try again in a moment")
        }
        defer { inFlight.leave(caller: sender, user: user, kind: kind) }
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
