// SPDX-License-Identifier: Apache-2.0
import DBus

/// org.freedesktop.Notifications on the session bus (the Desktop Notifications Specification).
struct Notifications: Sendable {
    static let name: BusName = "org.freedesktop.Notifications"
    static let path: ObjectPath = "/org/freedesktop/Notifications"
    static let interface: InterfaceName = "org.freedesktop.Notifications"

    let session: Connection

    /// A notification with actions (key, label pairs); returns its id. `replacing` updates an
    /// existing notification in place instead of adding another. `body` is plain text: it is
    /// escaped here, since servers read the body as markup (the specification's body-markup, which
    /// GNOME Shell and Plasma announce) and it carries names and reasons from helpers and networks.
    func notify(replacing: UInt32, summary: String, body: String, actions: [(String, String)], hints: [String: DBusValue]) async throws -> UInt32 {
        let reply = try await session.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "Notify", body: [
            .string("Hotspot Helper"), .uint32(replacing), .string("network-wireless"), .string(summary), .string(Self.markupEscaped(body)),
            .strings(actions.flatMap { [$0.0, $0.1] }), .varDict(hints), .int32(0),
        ])
        guard let id = reply.first?.uint32 else { throw DBusError.unexpectedReply("Notify answered \(reply)") }
        return id
    }

    /// Plain text as the body markup reads it: the three characters markup gives a meaning to.
    static func markupEscaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }

    func close(_ id: UInt32) async throws {
        _ = try await session.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "CloseNotification", body: [.uint32(id)])
    }

    /// ActionInvoked(u id, s action_key) and NotificationClosed(u id, u reason).
    func signals(_ member: MemberName) async throws -> AsyncStream<Signal> {
        try await session.signals(matching: MatchRule(sender: Self.name, path: Self.path, interface: Self.interface, member: member))
    }
}

/// Whether a notification server is on the session bus, as far as the agent's log is concerned:
/// a session without one (a bare Wayland compositor) must not fill the journal with a failure
/// per join. The agent says once that it cannot post, and says it again only after a server came
/// back (it is then logged) and went again.
actor NotificationServerWatch {
    let session: Connection
    /// Whether the log already said that no server is there, since the last one left.
    private var missingSaid = false
    private var watch: Task<Void, Never>?

    init(session: Connection) { self.session = session }

    /// What the user reads in the journal when nothing shows the agent's notifications.
    static let missing = """
        no notification server on the session bus (nothing owns or can start \(Notifications.name.rawValue)): \
        the agent cannot show sign-in prompts or say how a sign-in ended. `hotspotctl status` says when a \
        network needs you to sign in, and how; or start a notification server with the session (mako, dunst, \
        swaync, fnott). Said once, until a server has come and gone again
        """

    /// Follows the server's name from now on, and says at once when there is none and none can
    /// be started by D-Bus activation.
    func start() async {
        guard watch == nil, let owners = try? await session.watchNameOwner(Notifications.name) else { return }
        if await !present(), await !activatable() { say() }
        watch = Task { [weak self] in
            for await owner in owners {
                if let owner { await self?.cameBack(owner) }
            }
        }
    }

    deinit { watch?.cancel() }

    /// A Notify or CloseNotification failed with `error`: logged once while no server is there,
    /// each time otherwise (a server that is there but fails is worth every line).
    func failed(_ what: String, _ error: any Error) async {
        if await !present() {
            if !missingSaid { AgentLog.write("\(what): \(error)") }
            say()
        } else {
            AgentLog.write("\(what): \(error)")
        }
    }

    private func say() {
        guard !missingSaid else { return }
        missingSaid = true
        AgentLog.write(Self.missing)
    }

    private func cameBack(_ owner: String) {
        guard missingSaid else { return }
        missingSaid = false
        AgentLog.write("a notification server is on the session bus again (\(owner)): sign-in prompts are shown again")
    }

    private func present() async -> Bool {
        let owner = try? await session.nameOwner(Notifications.name)
        return (owner ?? nil) != nil
    }

    private func activatable() async -> Bool {
        guard let reply = try? await session.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                  member: "ListActivatableNames", body: []),
              let names = reply.first?.strings else { return false }
        return names.contains(Notifications.name.rawValue)
    }
}

