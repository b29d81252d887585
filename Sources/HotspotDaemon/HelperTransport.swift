// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Synchronization

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

/// A built-in helper, called in the daemon: what it answers (a profile's password included)
/// leaves the daemon only through NetworkManager's secret-agent call.
final class InProcessTransport: HelperTransport {
    let helper: InProcessHelper
    init(_ helper: InProcessHelper) { self.helper = helper }

    var route: CommandRoute { .daemon }
    var peer: String? { nil }
    var left: String? { nil }

    func send(_ command: WireCommand, timeout: Duration) -> @Sendable () async -> CommandOutcome? {
        { [helper] in
            let response = await helper.answer(command)
            // The same checks as an answer from the bus (caps, claims only for networks asked about).
            do { return .answered(try WireResponse.decode(response.encode(), answering: command)) } catch let error as WireError {
                return .malformed(error.problem)
            } catch {
                return .malformed("\(error)")
            }
        }
    }

    func close(reason: String) async {}
}

/// A helper process on the bus: `HandleCommand` to the object it registered, on its connection
/// or on the command channel handed out with its registration. Either way it is watched on the
/// bus until it leaves. A channel that closes once open counts as leaving; one that closes before
/// its authentication exchange ended (the helper never took it, or took longer than the link's
/// deadline) carried nothing, and the helper's commands go over the bus from then on.
final class RemoteHelperTransport: HelperTransport {
    let bus: Connection
    let uniqueName: String
    let destination: BusName
    let path: ObjectPath
    private struct State {
        var watch: Task<Void, Never>?
        /// The command channel's peer link, nil when commands go through the bus.
        var link: String?
        /// Whether the channel's authentication exchange has ended (messages may have crossed it).
        var opened = false
        /// Why the helper is gone, once it is (it left the bus, or its channel closed).
        var left: String?
        var closed = false
        /// Given back when the transport closes (the channel's place under the cap).
        var release: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())
    /// Told, once, that the helper is gone.
    private let gone: @Sendable (RemoteHelperTransport, String) async -> Void
    /// Told, at most once, that the channel closed before it opened: commands now take the bus.
    private let rerouted: @Sendable (RemoteHelperTransport, String) async -> Void

    var peer: String? { uniqueName }
    var link: String? { state.withLock { $0.link } }
    var route: CommandRoute { link == nil ? .bus : .channel }
    /// Why the helper is gone, if it left before the engine could hear of it.
    var left: String? { state.withLock { $0.left } }

    fileprivate init(bus: Connection, uniqueName: String, destination: BusName, path: ObjectPath,
                     gone: @escaping @Sendable (RemoteHelperTransport, String) async -> Void,
                     rerouted: @escaping @Sendable (RemoteHelperTransport, String) async -> Void) {
        self.bus = bus
        self.uniqueName = uniqueName
        self.destination = destination
        self.path = path
        self.gone = gone
        self.rerouted = rerouted
    }

    fileprivate func attach(watch: Task<Void, Never>) { state.withLock { $0.watch = watch } }
    /// Called on the bus thread as the link is made, before it can open or close.
    fileprivate func attach(link: String, release: @escaping @Sendable () -> Void) {
        state.withLock { $0.link = link; $0.release = release }
    }
    /// Called on the bus thread when the channel's authentication exchange has ended.
    fileprivate func channelOpened() { state.withLock { $0.opened = true } }

    /// Called on the bus thread when the channel closed, for any reason, this transport's own
    /// closing included. Decided there, under the lock, before a task hops off it to tell the
    /// engine: a command sent from then on takes the bus.
    fileprivate func channelClosed(_ link: String, reason: String) {
        enum Next { case nothing, left, bus((@Sendable () -> Void)?) }
        let next = state.withLock { s -> Next in
            guard !s.closed, s.left == nil, s.link == link else { return .nothing }
            guard !s.opened else { return .left }
            s.link = nil
            defer { s.release = nil }
            return .bus(s.release)
        }
        let why = UntrustedText.forLog(reason)
        // Both tasks outlive this call on purpose: the bus thread must not wait on the engine;
        // each tells it once and ends (the engine ignores a transport it has let go of).
        switch next {
        case .nothing: return
        case .left: Task { await departed("its command channel closed (\(why))") }
        case .bus(let release):
            release?()
            Task { await rerouted(self, "its command channel closed before it opened (\(why)); its commands go over the bus") }
        }
    }

    /// Whether the channel never opened while the helper is still this transport's: a call that
    /// waited on it never reached the helper. (Its call fails before `channelClosed` runs.)
    private var channelNeverOpened: Bool {
        state.withLock { !$0.opened && !$0.closed }
    }

    /// The helper left the bus or its channel closed: the first reason is kept and told.
    fileprivate func departed(_ why: String) async {
        let first = state.withLock { s in
            guard s.left == nil, !s.closed else { return false }
            s.left = why
            return true
        }
        if first { await gone(self, why) }
    }

    func send(_ command: WireCommand, timeout: Duration) -> @Sendable () async -> CommandOutcome? {
        let member = HotspotContract.Handler.handleCommand.name, interface = HotspotContract.handlerInterface
        let body = [command.encode()], link = link
        let overTheBus: @Sendable () -> PendingReply = { [bus, destination, path] in
            bus.callNow(destination: destination, path: path, interface: interface, member: member, body: body, timeout: timeout)
        }
        let call = link.map { bus.callNow(link: $0, path: path, interface: interface, member: member, body: body, timeout: timeout) } ?? overTheBus()
        return { [self] in
            do {
                let reply: [DBusValue]
                do {
                    reply = try await call.body()
                } catch DBusError.disconnected where link != nil && channelNeverOpened {
                    // It waited for a channel that closed before it opened: it never reached the
                    // helper, whose commands now take the bus.
                    reply = try await overTheBus().body()
                }
                guard reply.count == 1 else { throw WireError("HandleCommand returned \(reply.count) values") }
                return .answered(try WireResponse.decode(reply[0], answering: command))
            } catch let error as WireError {
                return .malformed(error.problem)
            } catch let error as DBusError {
                switch error {
                case .cancelled, .disconnected: return nil
                case .timedOut: return .timedOut
                case .remote(let name, _) where name == DBusErrorName.noReply || name == DBusErrorName.serviceUnknown: return .vanished
                default: return .malformed("the helper answered with an error: \(error)")
                }
            } catch {
                return .malformed("\(error)")
            }
        }
    }

    func close(reason: String) async {
        let taken = state.withLock { s -> State? in
            guard !s.closed else { return nil }
            s.closed = true
            return s
        }
        guard let taken else { return }
        taken.watch?.cancel()
        if let link = taken.link { await bus.closePeerLink(link, reason: reason) }
        taken.release?()
    }
}

/// Makes the transports of helpers on the bus, and keeps the cap on command channels: each holds
/// a socket and up to a message's worth of the daemon's memory.
final class HelperConnector: Sendable {
    let bus: Connection
    /// The most command channels open at once (far more helpers than any machine runs).
    let maximumChannels: Int
    /// The most a helper's answer on its command channel may hold (claims for every network of a
    /// long scan list, with passwords, are far less).
    static let channelMaximumMessage = 4 << 20
    static let defaultMaximumChannels = 64
    private let channels = Mutex(0)

    init(bus: Connection, maximumChannels: Int = HelperConnector.defaultMaximumChannels) {
        self.bus = bus
        self.maximumChannels = maximumChannels
    }

    /// How many command channels are open.
    var openChannels: Int { channels.withLock { $0 } }

    /// The transport to the helper whose connection `sender` registered the object at `path`, and
    /// the helper's end of its command channel when it asked for one and one is free (past the
    /// cap its commands go through the bus). `gone` is called, at most once, when the helper
    /// leaves the bus or its channel closes under it, with the transport and why; a helper gone
    /// before the engine took the transport says so in ``RemoteHelperTransport/left``.
    func connect(sender: String, path: ObjectPath, wantsChannel: Bool,
                 gone: @escaping @Sendable (_ transport: RemoteHelperTransport, _ why: String) async -> Void,
                 rerouted: @escaping @Sendable (_ transport: RemoteHelperTransport, _ why: String) async -> Void)
        async throws -> (transport: RemoteHelperTransport, channel: FileDescriptor?) {
        guard let destination = try? BusName(sender) else {
            throw HotspotError(.invalidArgs, "the caller has no valid bus name")
        }
        let transport = RemoteHelperTransport(bus: bus, uniqueName: sender, destination: destination, path: path, gone: gone, rerouted: rerouted)
        // Watch the caller first: if it vanishes right after registering, it is still noticed.
        let rule = MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             member: "NameOwnerChanged", arguments: [0: sender])
        let changes = try await bus.signals(matching: rule)
        // Outlives register: the helper's departure watch, owned by its transport, which cancels it on close.
        transport.attach(watch: Task {
            for await signal in changes where signal.body.count == 3 && signal.body[2].string == "" {
                await transport.departed("it left the bus")
                return
            }
        })
        guard try await bus.nameOwner(destination) != nil else {
            await transport.close(reason: "the caller left the bus while registering")
            throw HotspotError(.invalidArgs, "the caller left the bus while registering")
        }
        guard wantsChannel else { return (transport, nil) }
        let hasSlot = channels.withLock { open in
            guard open < maximumChannels else { return false }
            open += 1
            return true
        }
        guard hasSlot else { return (transport, nil) }
        let release: @Sendable () -> Void = { [self] in channels.withLock { $0 -= 1 } }
        do {
            let (mine, theirs) = try Connection.socketPair()
            // The callbacks run on the bus thread, which must not wait on the engine: the transport
            // decides under its lock and hops off it to tell the engine.
            _ = try await bus.adoptPeerLink(mine, role: .server, acceptsCalls: false, maximumMessageSize: Self.channelMaximumMessage,
                                            named: { transport.attach(link: $0, release: release) },
                                            opened: { _ in transport.channelOpened() },
                                            onClose: { link, reason in transport.channelClosed(link, reason: reason) })
            return (transport, theirs)
        } catch {
            release()
            await transport.close(reason: "no command channel")
            throw error
        }
    }
}
