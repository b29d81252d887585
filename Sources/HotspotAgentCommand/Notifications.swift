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
