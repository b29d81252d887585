// SPDX-License-Identifier: Apache-2.0
/// Calls to the message bus itself (`org.freedesktop.DBus`), sent asynchronously: libdbus's own
/// `dbus_bus_*` helpers block the calling thread and are never used.
extension Connection {
    static let busName: BusName = "org.freedesktop.DBus"
    static let busPath: ObjectPath = "/org/freedesktop/DBus"
    static let busInterface: InterfaceName = "org.freedesktop.DBus"

    func callBus(_ member: MemberName, _ body: [DBusValue]) async throws -> [DBusValue] {
        try await call(destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: member, body: body)
    }

    /// How ``requestName(_:replaceExisting:allowReplacement:)`` behaves.
    public struct NameFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let allowReplacement = NameFlags(rawValue: 1)
        public static let replaceExisting = NameFlags(rawValue: 2)
        public static let doNotQueue = NameFlags(rawValue: 4)
    }

    /// Takes a well-known name, never queueing: throws ``DBusError/nameTaken(_:)`` when another
    /// connection owns it. Export objects first, then take the name, so no call finds them missing.
    public func requestName(_ name: BusName, flags: NameFlags = [.doNotQueue]) async throws {
        let reply = try await callBus("RequestName", [.string(name.rawValue), .uint32(flags.union(.doNotQueue).rawValue)])
        switch reply.first?.uint32 {
        case 1, 4: return // primary owner, or already owner
        case 3, 2: throw DBusError.nameTaken(name.rawValue)
        default: throw DBusError.unexpectedReply("RequestName answered \(reply)")
        }
    }

    /// Gives a name back.
    public func releaseName(_ name: BusName) async throws {
        _ = try await callBus("ReleaseName", [.string(name.rawValue)])
    }

    /// The unique name owning `name`, or nil when nobody does.
    public func nameOwner(_ name: BusName) async throws -> String? {
        do {
            return try await callBus("GetNameOwner", [.string(name.rawValue)]).first?.string
        } catch let error as DBusError where error.name == DBusErrorName.nameHasNoOwner {
            return nil
        }
    }

    /// The owner of `name` now and after every change (nil while unowned): subscribes to
    /// `NameOwnerChanged` first, then asks `GetNameOwner`, so no change can fall in between.
    /// Consecutive duplicates are dropped. The stream ends with the connection.
    public func watchNameOwner(_ name: BusName) async throws -> AsyncStream<String?> {
        let changes = try await signals(matching: Self.nameOwnerRule(name))
        let initial = try await nameOwner(name)
        return AsyncStream { continuation in
            let task = Task {
                var last: String?? = .none
                func send(_ owner: String?) {
                    if last != .some(owner) { continuation.yield(owner); last = .some(owner) }
                }
                send(initial)
                for await signal in changes {
                    guard signal.body.count == 3, let new = signal.body[2].string else { continue }
                    send(new.isEmpty ? nil : new)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// What the bus knows about a peer connection.
    public struct Credentials: Sendable, Equatable {
        public var uid: UInt32?
        public var pid: UInt32?
        public var groups: [UInt32]
    }

    /// The uid and pid of the connection `sender` (from `GetConnectionCredentials`, never from
    /// the socket, which describes the bus and not the caller).
    public func credentials(of sender: String) async throws -> Credentials {
        let reply = try await callBus("GetConnectionCredentials", [.string(try BusName(sender).rawValue)])
        guard let dict = reply.first?.varDict else { throw DBusError.unexpectedReply("GetConnectionCredentials answered \(reply)") }
        return Credentials(uid: dict["UnixUserID"]?.uint32, pid: dict["ProcessID"]?.uint32,
                           groups: dict["UnixGroupIDs"]?.arrayItems?.compactMap(\.uint32) ?? [])
    }

    /// Names currently on the bus.
    public func listNames() async throws -> [String] {
        try await callBus("ListNames", []).first?.strings ?? []
    }
}
