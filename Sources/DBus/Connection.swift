// SPDX-License-Identifier: Apache-2.0
import CDBus
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A private connection to a message bus, owned by one thread that is this actor's executor.
///
/// Every libdbus call happens on that thread; only Sendable values cross. Replies are matched by
/// serial in Swift with Swift-side deadlines, signals are routed to subscribers by their match
/// rules, and incoming method calls are dispatched to exported interface tables. The connection
/// is opened privately, so the process never exits when the bus goes away: pending calls fail
/// with ``DBusError/disconnected(_:)``, signal streams finish, and ``disconnection()`` returns.
public actor Connection {
    nonisolated let thread: BusThread
    /// The connection's thread, as a serial executor. The thread is there for routing messages;
    /// code that wants to run where replies and signals are read (a benchmark timing round trips,
    /// say) may isolate an actor to it by returning this from its own `unownedExecutor`, and must
    /// then never block. Everything else runs on the program's executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    /// This connection's unique name on the bus (`:1.42`).
    public nonisolated let uniqueName: String
    /// The address it connected to.
    public nonisolated let address: String
    /// How much of a received message is decoded (see ``DecodingLimits``).
    public nonisolated let limits: DecodingLimits

    /// What this connection refused without decoding, for tests and benchmarks.
    public struct IntakeCounts: Sendable, Equatable {
        /// Signals no match rule of ours could match, dropped before their body was decoded.
        public var unsolicitedSignals = 0
        /// Messages over ``DecodingLimits``.
        public var overLimit = 0
        /// Replies from a connection other than the one called.
        public var forgedReplies = 0
    }
    /// Counts of refused messages since the connection opened.
    public internal(set) var intake = IntakeCounts()

    /// `DBusConnection*`; nil once closed. Only touched on the bus thread (actor-isolated), except
    /// in deinit when nothing else can reach it.
    var raw: OpaquePointer? {
        didSet { rawForDeinit = raw }
    }
    /// A copy of `raw` that deinit may read: deinit is nonisolated, and when it runs no other
    /// reference to the actor exists, so no job can touch the connection concurrently.
    private nonisolated(unsafe) var rawForDeinit: OpaquePointer?
    private var fd: Int32 = -1
    var disconnectReason: String?
    private var disconnectWaiters: [CheckedContinuation<String, Never>] = []

    enum ReplyHandler {
        case continuation(CheckedContinuation<Message, any Error>)
        case callback((isolated Connection, Result<Message, DBusError>) -> Void)
    }

    struct Pending {
        var handler: ReplyHandler
        var deadline: ContinuousClock.Instant
        var timeout: Duration
        var member: String
        var destination: String
    }

    var pending: [UInt32: Pending] = [:]
    private var deadlines = DeadlineHeap()

    /// The subscribers of one match rule. A class: every signal read is matched against every
    /// rule, and iterating values of a struct copied each rule and handler table.
    final class Subscription {
        let rule: MatchRule
        var streams: [UInt64: AsyncStream<Signal>.Continuation] = [:]
        var internalHandlers: [UInt64: (isolated Connection, Signal) -> Void] = [:]
        var count: Int { streams.count + internalHandlers.count }
        init(rule: MatchRule) { self.rule = rule }
    }

    var subscriptions: [String: Subscription] = [:]
    var nextSubscriberID: UInt64 = 0
    /// Owners of well-known names used as `sender=` in active rules, with a use count.
    var trackedOwners: [BusName: (owner: String?, uses: Int)] = [:]
    /// The NameOwnerChanged subscription kept for each tracked name.
    var trackedOwnerSubscriptions: [BusName: (key: String, id: UInt64)] = [:]

    var objects: [ObjectPath: [DBusInterface]] = [:]

    /// Peer links by name (`Connection+PeerLinks.swift`), and the number the next one gets.
    var links: [String: PeerLink] = [:]
    var linksOpened = 0
    /// Serials of messages sent on links, from the upper half of the range (libdbus numbers the
    /// bus's from 1), so a call on a link and one on the bus never share an entry in `pending`.
    var nextLinkSerial: UInt32 = PeerLink.firstSerial
    /// Where links' bytes are read to (empty until a link is read).
    var linkReadBuffer: [UInt8] = []
    /// What every link together may hold in buffers (``limitPeerLinks(memory:partialFrameDeadline:)``).
    var peerLinkMemory = PeerLink.defaultMemoryBudget
    /// How long a link may hold a partial message, or take to end the authentication exchange.
    var peerLinkPartialDeadline = PeerLink.defaultPartialDeadline
    /// Link messages still to be handled in this turn of the thread's loop (all links together),
    /// and where the next turn starts among links with messages waiting.
    var linkTurnBudget = 0
    var linkRotation = 0

    // MARK: - Opening and closing

    /// Connects to the bus at `address` and registers (`Hello`). This blocks the caller for the
    /// socket connect and one round trip; do it at start-up.
    public init(address: String, limits: DecodingLimits = .standard) throws {
        dbus_threads_init_default()
        let err = DBusErrorStruct()
        let conn = address.withCString { dbus_connection_open_private($0, &err.raw) }
        guard let conn else {
            throw DBusError.connectionFailed(address: address, reason: err.takeMessage() ?? "unknown error")
        }
        // A daemon must survive the bus going away; libdbus would call _exit() otherwise.
        dbus_connection_set_exit_on_disconnect(conn, 0)
        guard dbus_bus_register(conn, &err.raw) != 0 else {
            let why = err.takeMessage() ?? "Hello failed"
            dbus_connection_close(conn)
            dbus_connection_unref(conn)
            throw DBusError.connectionFailed(address: address, reason: why)
        }
        var fd: Int32 = -1
        _ = dbus_connection_get_unix_fd(conn, &fd)
        self.raw = conn
        self.rawForDeinit = conn
        self.fd = fd
        self.address = address
        self.limits = limits
        self.uniqueName = dbus_bus_get_unique_name(conn).map { String(cString: $0) } ?? ""
        self.thread = BusThread()
        thread.start(serving: IOClient(self))
    }

    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket).
    public static func system() throws -> Connection {
        try Connection(address: environment("DBUS_SYSTEM_BUS_ADDRESS") ?? "unix:path=/run/dbus/system_bus_socket")
    }

    /// The session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public static func session() throws -> Connection {
        guard let address = environment("DBUS_SESSION_BUS_ADDRESS") else {
            throw DBusError.connectionFailed(address: "(none)", reason: "DBUS_SESSION_BUS_ADDRESS is not set: is there a user session bus?")
        }
        return try Connection(address: address)
    }

    deinit {
        // Nothing else can reach the connection any more; libdbus locks it internally, so
        // closing it from whichever thread drops the last reference is safe.
        if let raw = rawForDeinit {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
        }
        thread.stop()
    }

    /// Closes the connection: pending calls fail, signal streams finish.
    public func close() {
        markDisconnected("the connection was closed by this process")
    }

    /// Whether the connection is still open.
    public var isConnected: Bool { raw != nil }

    /// True when called on the connection's thread (where its handlers run).
    public nonisolated var isOnConnectionThread: Bool { thread.isCurrent }

    /// Returns when the connection is gone, with the reason (for example the bus exiting).
    public func disconnection() async -> String {
        if let disconnectReason { return disconnectReason }
        return await withCheckedContinuation { disconnectWaiters.append($0) }
    }

    func markDisconnected(_ reason: String) {
        guard let conn = raw else { return }
        raw = nil
        fd = -1
        disconnectReason = reason
        dbus_connection_close(conn)
        dbus_connection_unref(conn)
        let failed = pending
        pending.removeAll()
        deadlines = DeadlineHeap()
        for (_, p) in failed { complete(p.handler, .failure(.disconnected(reason))) }
        for (_, sub) in subscriptions { for (_, c) in sub.streams { c.finish() } }
        subscriptions.removeAll()
        for name in Array(links.keys) { closePeerLink(name, reason: "this process's bus connection ended") }
        trackedOwners.removeAll()
        for w in disconnectWaiters { w.resume(returning: reason) }
        disconnectWaiters.removeAll()
    }

    // MARK: - I/O on the bus thread

    /// Bridges the bus thread to the actor; holds the actor weakly so the connection can go away.
    private final class IOClient: BusThreadClient, Sendable {
        weak let connection: Connection?
        init(_ connection: Connection) { self.connection = connection }
        func pollPlan() -> BusThread.PollPlan {
            connection?.assumeIsolated { $0.pollPlan() } ?? .init(fd: -1, events: 0, timeout: -1)
        }
        func ioReady(revents: Int16, extra: [pollfd]) {
            connection?.assumeIsolated { $0.ioReady(revents: revents, extra: extra) }
        }
    }

    private func pollPlan() -> BusThread.PollPlan {
        var timeout: Int32 = -1
        // Answered calls leave their deadlines behind; the thread sleeps until the first one
        // still waiting, and with none, without a timeout (an idle daemon is never woken).
        deadlines.dropStale { deadline, serial in pending[serial]?.deadline != deadline }
        if let next = [deadlines.peekDeadline, links.isEmpty ? nil : nextLinkDeadline()].compactMap({ $0 }).min() {
            let left = ContinuousClock.now.duration(to: next)
            let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            timeout = Int32(clamping: max(0, ms))
        }
        guard let conn = raw else { return .init(fd: -1, events: 0, timeout: timeout) }
        var events = Int16(POLLIN)
        if dbus_connection_has_messages_to_send(conn) != 0 { events |= Int16(POLLOUT) }
        // Messages waiting in a link's inbox are handled next turn, without sleeping.
        if links.values.contains(where: \.backlog) { timeout = 0 }
        return .init(fd: fd, events: events, timeout: timeout, extra: links.isEmpty ? [] : linkPollEntries())
    }

    private func ioReady(revents: Int16, extra: [pollfd]) {
        // At most this many link messages are handled before the bus gets its turn, whatever
        // the links send (8 links sending refused calls made a Get on the bus wait 8 s).
        linkTurnBudget = PeerLink.messagesPerTurn
        for entry in extra where entry.revents != 0 { serviceLink(fd: entry.fd, revents: entry.revents) }
        if !links.isEmpty { serviceLinkBacklogs(); expireLinks() }
        if let conn = raw {
            if revents != 0 { readAvailable(conn) }
            while let conn = raw, let m = dbus_connection_pop_message(conn) {
                route(RawMessage(owning: m))
            }
            if let conn = raw, dbus_connection_get_is_connected(conn) == 0 {
                markDisconnected("the bus closed the connection")
            } else if revents & Int16(POLLHUP | POLLERR) != 0, let conn = raw {
                // Let libdbus notice the hang-up and queue Disconnected; read it next turn.
                _ = dbus_connection_read_write(conn, 0)
                if dbus_connection_get_is_connected(conn) == 0 { markDisconnected("the bus hung up") }
            }
        }
        expireDeadlines()
    }

    /// libdbus reads at most 2 KiB per iteration, so a 30 MB message (a hostile one, say) takes
    /// 15,000 of them. Reading on while bytes are waiting and no whole message is queued does
    /// those iterations here instead of through the thread's poll loop, so the calls queued
    /// behind a huge message wait milliseconds, not a quarter second; the bound keeps deadlines
    /// and replies moving.
    private func readAvailable(_ conn: OpaquePointer) {
        var rounds = 0
        repeat {
            _ = dbus_connection_read_write(conn, 0)
            rounds += 1
            guard dbus_connection_get_dispatch_status(conn) != DBUS_DISPATCH_DATA_REMAINS else { return }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) > 0, p.revents & Int16(POLLIN) != 0 else { return }
        } while rounds < 16_384
    }

    private func expireDeadlines() {
        guard !deadlines.isEmpty else { return }
        let now = ContinuousClock.now
        while let (deadline, serial) = deadlines.popExpired(now: now) {
            guard let p = pending[serial], p.deadline == deadline else { continue }
            pending[serial] = nil
            complete(p.handler, .failure(.timedOut(member: p.member, destination: p.destination, after: p.timeout)))
        }
    }

    func complete(_ handler: ReplyHandler, _ result: Result<Message, DBusError>) {
        switch handler {
        case .continuation(let c): c.resume(with: result.mapError { $0 as any Error })
        case .callback(let f): f(self, result)
        }
    }

    /// Handles one message read from the bus, or from a peer link (`link`; its sender is then
    /// the link's name, set as it was read).
    func route(_ raw: RawMessage, link: PeerLink? = nil) {
        WireTrace.note("in", raw.pointer, on: uniqueName)
        let type = dbus_message_get_type(raw.pointer)
        let sender = dbus_message_get_sender(raw.pointer).map { String(cString: $0) } ?? ""
        if type == DBUS_MESSAGE_TYPE_SIGNAL {
            if link != nil || !routeSignal(raw, sender: sender) { intake.unsolicitedSignals += 1 }
            return
        }
        if let link, type == DBUS_MESSAGE_TYPE_METHOD_CALL, !link.acceptsCalls {
            if dbus_message_get_no_reply(raw.pointer) == 0 {
                replyError(serial: dbus_message_get_serial(raw.pointer), to: sender, name: DBusErrorName.accessDenied,
                           text: "this link carries no method calls to this process")
            }
            return
        }
        let isReply = type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR
        if isReply {
            let replySerial = dbus_message_get_reply_serial(raw.pointer)
            guard let p = pending[replySerial] else { return }
            // A reply read from a link answers only a call made on that link, and a call made on
            // a link is answered only there: a peer on a link cannot answer a call to the bus
            // (polkit's, say) by guessing its serial.
            let fromCallee = link.map { p.destination == $0.name }
                ?? (!PeerLink.isLinkName(p.destination) && replyIsFromCallee(sender, destination: p.destination))
            guard fromCallee else {
                // Someone guessed a serial: the real reply may still come.
                intake.forgedReplies += 1
                return
            }
        }
        let message: Message
        do {
            message = try raw.decoded(limits: limits)
        } catch {
            // Over a decoding limit (or out of memory). Answer calls so the peer is not left
            // waiting, and fail the call a reply belongs to rather than let it time out.
            intake.overLimit += 1
            if type == DBUS_MESSAGE_TYPE_METHOD_CALL, !sender.isEmpty {
                replyError(serial: dbus_message_get_serial(raw.pointer), to: sender, name: DBusErrorName.limitsExceeded, text: error.message)
            } else if isReply, let p = pending.removeValue(forKey: dbus_message_get_reply_serial(raw.pointer)) {
                complete(p.handler, .failure(error))
            }
            return
        }
        switch message.kind {
        case .methodReturn, .error:
            guard let p = pending.removeValue(forKey: message.replySerial) else { return }
            if message.kind == .error {
                complete(p.handler, .failure(.remote(name: message.errorName ?? DBusErrorName.failed, message: message.errorText)))
            } else {
                complete(p.handler, .success(message))
            }
        case .signal:
            break  // routed above, without this decoding of the header
        case .methodCall:
            dispatch(message)
        }
    }

    // MARK: - Outgoing calls

    /// Calls a method and returns the reply's body. Throws ``DBusError`` for invalid arguments
    /// (before anything is sent), remote errors (name and message kept), timeouts, cancellation
    /// and disconnection.
    /// With `interactive`, the call allows interactive authorization: the service may have
    /// polkit ask the user while the call waits.
    public func call(destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                     body: [DBusValue] = [], timeout: Duration = .seconds(25), autoStart: Bool = true,
                     interactive: Bool = false) async throws -> [DBusValue] {
        try await callMessage(destination: destination, path: path, interface: interface, member: member,
                              body: body, timeout: timeout, autoStart: autoStart, interactive: interactive).body
    }

    /// Like ``call(destination:path:interface:member:body:timeout:autoStart:)`` with names given
    /// as strings from outside, validated first (an invalid one throws, naming it).
    public func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
                     _ body: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        try await call(destination: BusName(destination), path: ObjectPath(path), interface: InterfaceName(interface),
                       member: MemberName(member), body: body, timeout: timeout)
    }

    /// The full reply message (with its sender and signature).
    public func callMessage(destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                            body: [DBusValue] = [], timeout: Duration = .seconds(25), autoStart: Bool = true,
                            interactive: Bool = false) async throws -> Message {
        try Marshal.validateBody(body)
        if Task.isCancelled { throw DBusError.cancelled }
        let serial = try send(destination: destination, path: path, interface: interface, member: member, body: body,
                              autoStart: autoStart, interactive: interactive)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Message, any Error>) in
                pending[serial] = Pending(handler: .continuation(c), deadline: deadline, timeout: timeout,
                                          member: member.rawValue, destination: destination?.rawValue ?? "(none)")
                insertDeadline(deadline, serial)
            }
        } onCancel: {
            Task { await self.cancelCall(serial) }
        }
    }

    /// Sends a method call at once when called on the connection's thread (code isolated to an
    /// actor that shares the connection's executor, `unownedExecutor`) and returns its reply to
    /// await. Elsewhere the call is handed to the thread at once (``BusThread/perform(_:)``) and
    /// sent there, in order with what is queued on it: no task is made for the send, so it costs
    /// one wake-up of the connection's thread, not a worker's and then the thread's, and it does
    /// not wait for the reply to be awaited. Sending before a task is made for the reply keeps the
    /// message ahead of the jobs already queued on the thread.
    public nonisolated func callNow(destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                                    body: [DBusValue] = [], timeout: Duration = .seconds(25)) -> PendingReply {
        let reply = PendingReply(connection: self, destination: destination, path: path, interface: interface, member: member,
                                 body: body, timeout: timeout)
        startSoon(reply)
        return reply
    }

    /// Like ``callNow(destination:path:interface:member:body:timeout:)``, over the peer link
    /// named `link` (``adoptPeerLink(_:role:acceptsCalls:maximumMessageSize:named:opened:onClose:)``) instead of
    /// the bus. When the link closes first, the call fails with ``DBusError/disconnected(_:)``.
    public nonisolated func callNow(link: String, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                                    body: [DBusValue] = [], timeout: Duration = .seconds(25)) -> PendingReply {
        let reply = PendingReply(connection: self, destination: nil, path: path, interface: interface, member: member,
                                 body: body, timeout: timeout, link: link)
        startSoon(reply)
        return reply
    }

    /// Runs `work` on the connection's thread, in order with the jobs queued there, and returns
    /// at once: for a send whose caller has nothing to wait for (a signal, a property change).
    /// Where `await` on the connection would wake this thread and then, once the send is made,
    /// a worker of the programs' pool to resume the caller, this wakes the thread alone, and the
    /// caller goes on. Work handed over this way runs in the order it was handed over.
    public nonisolated func perform(_ work: @escaping @Sendable (isolated Connection) -> Void) {
        if isOnConnectionThread { return assumeIsolated { work($0) } }
        thread.perform { [self] in assumeIsolated { work($0) } }
    }

    /// Sends `reply`'s call now on the connection's thread, or hands it to that thread.
    private nonisolated func startSoon(_ reply: PendingReply) {
        if isOnConnectionThread { return assumeIsolated { $0.start(reply) } }
        reply.handOver()
        thread.perform { [self] in assumeIsolated { $0.start(reply) } }
    }

    func start(_ reply: PendingReply) {
        guard let call = reply.take() else { return }
        do { try Marshal.validateBody(call.body) } catch { return reply.fulfill(.failure(error)) }
        if let serial = callWithCallback(destination: call.destination, path: call.path, interface: call.interface, member: call.member,
                                         body: call.body, timeout: call.timeout, link: call.link, { _, result in reply.fulfill(result) }) {
            reply.sent(serial)
        }
    }

    func cancel(_ reply: PendingReply) {
        if let serial = reply.serial { cancelCall(serial) } else { _ = reply.take(); reply.fulfill(.failure(.cancelled)) }
    }

    /// Records a deadline. Answered calls leave their entries behind (lazy deletion); when
    /// those outnumber the pending calls the heap is rebuilt, so it stays proportional to the
    /// calls actually in flight however many calls per second go through.
    private func insertDeadline(_ deadline: ContinuousClock.Instant, _ serial: UInt32) {
        if deadlines.count > 64 && deadlines.count > 2 * pending.count {
            var fresh = DeadlineHeap()
            for (s, p) in pending { fresh.insert(p.deadline, s) }
            deadlines = fresh
        }
        deadlines.insert(deadline, serial)
    }

    private func cancelCall(_ serial: UInt32) {
        guard let p = pending.removeValue(forKey: serial) else { return }
        complete(p.handler, .failure(.cancelled))
    }

    /// Sends a call whose reply is handled synchronously on the bus thread, in arrival order;
    /// returns its serial, or nil when it could not be sent (the callback has the error).
    @discardableResult
    func callWithCallback(destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                                  body: [DBusValue], timeout: Duration = .seconds(25), link: String? = nil,
                                  _ callback: @escaping (isolated Connection, Result<Message, DBusError>) -> Void) -> UInt32? {
        do {
            let serial = try send(destination: destination, path: path, interface: interface, member: member, body: body,
                                  autoStart: true, link: link)
            let deadline = ContinuousClock.now.advanced(by: timeout)
            pending[serial] = Pending(handler: .callback(callback), deadline: deadline, timeout: timeout,
                                      member: member.rawValue, destination: link ?? destination?.rawValue ?? "(none)")
            insertDeadline(deadline, serial)
            return serial
        } catch let error as DBusError {
            callback(self, .failure(error))
        } catch {
            callback(self, .failure(.invalidValue("\(error)")))
        }
        return nil
    }

    private func send(destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                      body: [DBusValue], autoStart: Bool, interactive: Bool = false, link: String? = nil) throws -> UInt32 {
        if let link {
            guard let peer = links[link] else { throw DBusError.disconnected("the peer link \(link) is closed") }
            let msg = try RawMessage.methodCall(destination: nil, path: path, interface: interface, member: member)
            try Marshal.append(body, to: msg.pointer)
            return try sendOnLink(peer, msg)
        }
        guard let conn = raw else { throw DBusError.disconnected(disconnectReason ?? "closed") }
        let msg = try RawMessage.methodCall(destination: destination, path: path, interface: interface, member: member)
        if !autoStart { dbus_message_set_auto_start(msg.pointer, 0) }
        if interactive { dbus_message_set_allow_interactive_authorization(msg.pointer, 1) }
        try Marshal.append(body, to: msg.pointer)
        var serial: UInt32 = 0
        WireTrace.note("out", msg.pointer, on: uniqueName)
        guard dbus_connection_send(conn, msg.pointer, &serial) != 0 else {
            throw DBusError.disconnected("out of memory while sending")
        }
        return serial
    }

    /// Emits a signal. When the object at `path` exports `interface` and declares the signal,
    /// the body must match the declared signature.
    public func emit(path: ObjectPath, interface: InterfaceName, member: MemberName, body: [DBusValue] = [], destination: BusName? = nil) throws {
        try Marshal.validateBody(body)
        if let iface = objects[path]?.first(where: { $0.name == interface }), let decl = iface.signal(member.rawValue), !decl.matches(body) {
            throw DBusError.invalidValue("signal \(interface).\(member) is declared with signature '\(decl.signature)' but was emitted with '\(body.map(\.signature).joined())'")
        }
        guard let conn = raw else { throw DBusError.disconnected(disconnectReason ?? "closed") }
        let msg = try RawMessage.signal(path: path, interface: interface, member: member)
        if let destination { _ = destination.rawValue.withCString { dbus_message_set_destination(msg.pointer, $0) } }
        try Marshal.append(body, to: msg.pointer)
        WireTrace.note("out", msg.pointer, on: uniqueName)
        _ = dbus_connection_send(conn, msg.pointer, nil)
    }
}

func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
}
