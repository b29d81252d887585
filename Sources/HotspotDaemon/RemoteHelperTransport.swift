// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol
import Synchronization

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

    /// Made by ``HelperConnector``, which attaches the watch and the channel.
    init(bus: Connection, uniqueName: String, destination: BusName, path: ObjectPath,
         gone: @escaping @Sendable (RemoteHelperTransport, String) async -> Void,
         rerouted: @escaping @Sendable (RemoteHelperTransport, String) async -> Void) {
        self.bus = bus
        self.uniqueName = uniqueName
        self.destination = destination
        self.path = path
        self.gone = gone
        self.rerouted = rerouted
    }

    func attach(watch: Task<Void, Never>) { state.withLock { $0.watch = watch } }
    /// Called on the bus thread as the link is made, before it can open or close.
    func attach(link: String, release: @escaping @Sendable () -> Void) {
        state.withLock { $0.link = link; $0.release = release }
    }
    /// Called on the bus thread when the channel's authentication exchange has ended.
    func channelOpened() { state.withLock { $0.opened = true } }

    /// Called on the bus thread when the channel closed, for any reason, this transport's own
    /// closing included. Decided there, under the lock, before a task hops off it to tell the
    /// engine: a command sent from then on takes the bus.
    func channelClosed(_ link: String, reason: String) {
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
    func departed(_ why: String) async {
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
