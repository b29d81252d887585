// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol
import Synchronization

/// A registered hotspot helper (NEHotspotHelper). Register once with a handler; the daemon sends
/// commands to it. The helper re-registers by itself when the daemon restarts.
public actor HotspotHelper {
    /// Receives every command; answer with `command.createResponse(…).deliver()`, now or later.
    /// It is called on the bus connection's thread: answer at once, or keep the command and
    /// answer it from a task, but do not block in it (nothing else reaches the helper meanwhile).
    public typealias Handler = @Sendable (HotspotHelperCommand) -> Void

    public nonisolated let connection: Connection
    public nonisolated let options: HotspotHelperOptions
    /// The object path at which this helper receives commands.
    public nonisolated let handlerPath: ObjectPath
    private let daemonOwner = OwnerBox()
    private var watch: Task<Void, Never>?

    /// Registers with the daemon on `connection` (the system bus by default). Throws the
    /// daemon's error (NotAuthorized, AlreadyRegistered, InvalidArgs) or a bus error.
    public static func register(options: HotspotHelperOptions, connection: Connection? = nil,
                                handlerPath: ObjectPath = "/org/freedesktop/NetworkManager/HotspotHelper/Handler",
                                handler: @escaping Handler) async throws -> HotspotHelper {
        let conn = try connection ?? Connection.system()
        let helper = HotspotHelper(connection: conn, options: options, handlerPath: handlerPath)
        try await helper.start(handler)
        return helper
    }

    private init(connection: Connection, options: HotspotHelperOptions, handlerPath: ObjectPath) {
        self.connection = connection
        self.options = options
        self.handlerPath = handlerPath
    }

    /// The handler interface table: only the daemon's unique name may send commands. The handler
    /// runs on the connection's thread as the command is read, so a helper that answers at once
    /// answers from there, with no task in between (two of a join's hops); a command it
    /// keeps is answered when it delivers.
    static func handlerInterface(owner: OwnerBox, handler: @escaping Handler) -> DBusInterface {
        HotspotContract.handler.implement(methods: [:], immediate: [
            HotspotContract.Handler.handleCommand: { call in
                // From the daemon over the bus, or over the command channel it handed us.
                guard owner.isDaemon(call.sender) else {
                    return .failure(DBusError.remote(name: DBusErrorName.accessDenied,
                                                     message: "only \(HotspotContract.busName) may send commands to a hotspot helper"))
                }
                let wire: WireCommand
                do { wire = try WireCommand.decode(call.body[0]) } catch {
                    return .failure(DBusError.remote(name: DBusErrorName.invalidArgs, message: "malformed command: \(error)"))
                }
                let slot = ReplySlot()
                handler(HotspotHelperCommand(wire, slot: slot))
                if let answered = slot.takeIfAnswered() { return .reply([answered.encode()]) }
                return .later { [await slot.answer().encode()] }
            },
        ])
    }

    private func start(_ handler: @escaping Handler) async throws {
        // Track the daemon first, so a command can never arrive before its sender is known.
        let owners = try await connection.watchNameOwner(HotspotContract.busName)
        var iterator = owners.makeAsyncIterator()
        let initial = await iterator.next() ?? nil
        daemonOwner.set(initial)
        try await connection.export([Self.handlerInterface(owner: daemonOwner, handler: handler)], at: handlerPath)
        try await registerNow()
        watch = Task { [weak self, daemonOwner] in
            var it = iterator
            while let owner = await it.next() {
                daemonOwner.set(owner)
                // The daemon restarted: register again so commands keep coming.
                if owner != nil { _ = try? await self?.registerNow() }
            }
        }
    }

    /// The peer link commands come over, when the daemon gave one (``HotspotHelperOptions/usesCommandChannel``).
    public var commandChannel: String? { daemonOwner.link() }

    private func registerNow() async throws {
        var dict: [String: DBusValue] = ["DisplayName": .string(options.displayName)]
        if let id = options.identifier { dict["Identifier"] = .string(id) }
        if let purpose = options.purpose { dict["Purpose"] = .string(purpose) }
        if let commands = options.commands { dict["Commands"] = .strings(commands.map(\.rawValue).sorted()) }
        if options.usesCommandChannel { dict["CommandChannel"] = .bool(true) }
        // Interactive: the daemon lets polkit ask the person (a dialog with the display name and
        // purpose) instead of refusing, and the call waits for their answer.
        let interactive = options.allowsInteractiveAuthorization
        let reply = try await connection.call(HotspotContract.Manager.registerHelper, of: HotspotContract.manager, at: HotspotContract.managerPath,
                                              body: [.objectPath(handlerPath), .varDict(dict)],
                                              timeout: interactive ? HotspotHelperOptions.interactiveRegistrationTimeout : .seconds(25),
                                              interactive: interactive)
        if let old = daemonOwner.link() { await connection.closePeerLink(old, reason: "registered again") }
        // The daemon hands out the command channel with the registration (when asked and one is
        // free): every command then comes there, from the first. Without one, over the bus.
        guard case .unixFD(let fd)? = reply.first?.varDict?["command-channel"] else { return }
        let box = daemonOwner
        // The handler must know the channel before its first command, which the daemon may send
        // (and this connection's thread read) before this task resumes: `named` runs first.
        // Commands on the scan list of a crowded place stay far below the size limit.
        _ = try? await connection.adoptPeerLink(fd, role: .client, acceptsCalls: true, maximumMessageSize: 16 << 20,
                                                named: { box.setLink($0) }, onClose: { link, _ in box.linkClosed(link) })
    }

    /// Logs off the network (NEHotspotHelper.logoff): the daemon sends logoff to this helper and
    /// then disconnects. Only the interface's chosen helper may do this.
    public func logoff(_ network: HotspotNetwork) async throws {
        let path = try await interfacePath(named: network.interface)
        _ = try await connection.call(HotspotContract.Interface.logoff, of: HotspotContract.interface, at: path)
    }

    /// Stops being a helper.
    public func unregister() async throws {
        watch?.cancel()
        _ = try await connection.call(HotspotContract.Manager.unregisterHelper, of: HotspotContract.manager, at: HotspotContract.managerPath)
        if let link = daemonOwner.link() { await connection.closePeerLink(link, reason: "unregistered") }
        await connection.unexport(handlerPath)
    }

    private func interfacePath(named name: String) async throws -> ObjectPath {
        let props: InterfaceName = "org.freedesktop.DBus.Properties"
        let reply = try await connection.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: props,
                                              member: "Get", body: [.string(HotspotContract.managerInterface.rawValue),
                                                                                    .string(HotspotContract.ManagerProperty.interfaces.key)])
        for path in reply.first?.objectPaths ?? [] {
            let n = try await connection.call(destination: HotspotContract.busName, path: path, interface: props, member: "Get",
                                              body: [.string(HotspotContract.interfaceInterface.rawValue), .string(HotspotContract.InterfaceProperty.name.key)])
            if n.first?.string == name { return path }
        }
        throw HotspotError(.noSuchNetwork, "the daemon has no interface named \(name)")
    }
}

/// The daemon's current unique name and the command channel it gave, shared between the watch
/// task and the command handler.
final class OwnerBox: Sendable {
    private struct State {
        var owner: String?
        var link: String?
    }
    private let value = Mutex(State())
    func get() -> String? { value.withLock { $0.owner } }
    func set(_ owner: String?) { value.withLock { $0.owner = owner } }
    func link() -> String? { value.withLock { $0.link } }
    func setLink(_ link: String?) { value.withLock { $0.link = link } }
    func linkClosed(_ link: String) { value.withLock { if $0.link == link { $0.link = nil } } }
    /// Whether a command from `sender` comes from the daemon: its connection on the bus, or the
    /// channel it handed over (a link's name, which no bus peer can have).
    func isDaemon(_ sender: String) -> Bool {
        value.withLock { s in (s.owner != nil && sender == s.owner) || (s.link != nil && sender == s.link) }
    }
}
