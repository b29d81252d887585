// SPDX-License-Identifier: Apache-2.0
import CDBus
#if canImport(Glibc)
import Glibc
#endif

/// One end of a peer-to-peer D-Bus link: a connected stream socket carrying D-Bus messages with
/// no bus between the two processes (the specification's peer-to-peer mode), served by the
/// connection's own thread, so a message read from it is handled as a bus message is, with no
/// hand-off between threads.
///
/// The two processes agree on a link over the bus: one makes a socket pair and hands one end to
/// the other in a method reply (a `h` value), so who may use the link was decided by the bus's
/// policy and the handing process's checks. The link begins with D-Bus's authentication exchange
/// and then carries messages framed as on the bus (libdbus's `dbus_message_marshal` and
/// `dbus_message_demarshal`): method calls and replies, not signals or descriptors. Lives on the
/// connection's thread.
final class PeerLink {
    /// The sender given to every message read from the link: a unique-name form no bus hands
    /// out (buses number theirs `:1.N`), so a reply is sent back on the link it came from.
    let name: String
    let fd: Int32
    let acceptsCalls: Bool
    let maximumMessageSize: Int
    let onOpen: @Sendable (_ link: String) -> Void
    let onClose: @Sendable (_ link: String, _ reason: String) -> Void
    /// What was read and what it means: the authentication exchange, then messages' frames
    /// (`PeerLinkReader`, no I/O, so the fuzz target can drive it).
    var reader: PeerLinkReader
    var outbox: [UInt8] = []
    /// How much of `outbox` is written already.
    var written = 0
    var phase: PeerLinkReader.Phase { reader.phase }
    /// Messages sent before the authentication exchange ended; written when it has.
    var held: [UInt8] = []
    /// Since when the link has held a partial message, or been in the authentication exchange;
    /// nil when it holds nothing unfinished. Not moved by progress: a peer trickling a message
    /// byte by byte gets no more time than one that stops.
    var unfinishedSince: ContinuousClock.Instant? = ContinuousClock.now
    /// Whole messages wait in the inbox (this turn's budget ran out): nothing more is read until
    /// they are handled.
    var backlog = false

    /// What the link's buffers hold (their capacity: what they cost).
    var bytesHeld: Int { reader.capacity + outbox.capacity + held.capacity }

    static let namePrefix = ":peer-link."
    static let firstSerial: UInt32 = 0x8000_0000
    /// What a link may hold unwritten before it counts as stalled and is closed.
    static let maximumUnwritten = 4 << 20
    /// What all links of a connection may hold together in buffers, by default: 64 command
    /// channels each holding a 4 MiB message minus a byte took 287 MiB before there was one.
    /// 8 MiB, so that with what the allocator keeps the daemon grows by at most 16 MiB
    /// (`hotspot-stress channels`: 19.8 MiB with 16 MiB here, 17.3 with 12). A helper's answer
    /// is a few KiB; the largest a channel takes (4 MiB) still fits.
    static let defaultMemoryBudget = 8 << 20
    /// How long a link may hold a partial message or take to authenticate, by default.
    static let defaultPartialDeadline: Duration = .seconds(10)
    /// Link messages handled per turn of the connection's thread, all links together, before
    /// the bus is read again.
    static let messagesPerTurn = 64

    static func isLinkName(_ name: String) -> Bool { name.hasPrefix(namePrefix) }

    /// The server's GUID in the authentication exchange: 32 hex digits, one per process.
    static let serverGUID: String = {
        var rng = SystemRandomNumberGenerator()
        return (0..<16).map { _ in twoHexDigits(UInt8.random(in: 0...255, using: &rng)) }.joined()
    }()

    init(name: String, fd: Int32, role: Connection.PeerLinkRole, acceptsCalls: Bool, maximumMessageSize: Int,
         onOpen: @escaping @Sendable (_ link: String) -> Void = { _ in },
         onClose: @escaping @Sendable (_ link: String, _ reason: String) -> Void) {
        self.reader = PeerLinkReader(serverSide: role == .server, maximumMessageSize: maximumMessageSize)
        self.name = name
        self.fd = fd
        self.acceptsCalls = acceptsCalls
        self.maximumMessageSize = maximumMessageSize
        self.onOpen = onOpen
        self.onClose = onClose
    }

    deinit { close(fd) }
}

private func twoHexDigits(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
}

extension Connection {
    /// Which side of D-Bus's authentication exchange a peer link's end takes: the process that
    /// made the socket pair and handed one end over is the server; the one that received it, the
    /// client (GDBus: `G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT`).
    public enum PeerLinkRole: Sendable {
        case server, client
    }

    /// A connected pair of stream sockets (close-on-exec) for a peer link: adopt one end with
    /// ``adoptPeerLink(_:role:acceptsCalls:maximumMessageSize:named:opened:onClose:)`` and hand the other to the
    /// peer as a `.unixFD` value.
    public static func socketPair() throws -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw DBusError.invalidValue("socketpair failed: \(String(cString: strerror(errno)))")
        }
        return (FileDescriptor(fds[0], owned: true), FileDescriptor(fds[1], owned: true))
    }

    /// Serves a peer link on this connection's thread, over a copy of `descriptor` (a connected
    /// Unix stream socket), beginning with D-Bus's authentication exchange in `role` (messages
    /// sent before it ends wait for it; any peer-to-peer D-Bus implementation, GDBus's for one,
    /// can take the other end). Returns the link's name: the sender of every message read from it,
    /// and what ``callNow(link:path:interface:member:body:timeout:)`` takes. Method calls read
    /// from it go to the exported objects and are answered on it when `acceptsCalls`, and are
    /// refused (AccessDenied) otherwise. A message over `maximumMessageSize` bytes, bytes that
    /// are not a D-Bus message, the peer closing its end, or more than 4 MiB it does not read
    /// close the link: its pending calls fail and `onClose` is called once, with its name and the reason.
    ///
    /// `named` is called with the link's name on the connection's thread before anything is read
    /// from it: a handler that checks senders can know the link before its first message, which
    /// may come before this method's caller has resumed. `opened` is called there once the
    /// authentication exchange has ended, before the first message is read or written: a link
    /// closed before then carried no message either way.
    public func adoptPeerLink(_ descriptor: FileDescriptor, role: PeerLinkRole, acceptsCalls: Bool, maximumMessageSize: Int = 1 << 20,
                              named: @Sendable (String) -> Void = { _ in },
                              opened: @escaping @Sendable (_ link: String) -> Void = { _ in },
                              onClose: @escaping @Sendable (_ link: String, _ reason: String) -> Void) throws -> String {
        guard raw != nil else { throw DBusError.disconnected(disconnectReason ?? "closed") }
        var type: Int32 = 0, domain: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor.rawValue, SOL_SOCKET, SO_TYPE, &type, &size) == 0, type == Int32(SOCK_STREAM.rawValue),
              getsockopt(descriptor.rawValue, SOL_SOCKET, SO_DOMAIN, &domain, &size) == 0, domain == AF_UNIX else {
            throw DBusError.invalidValue("a peer link needs a connected Unix stream socket")
        }
        let fd = fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 3)
        guard fd >= 0 else { throw DBusError.invalidValue("cannot keep the link's socket: \(String(cString: strerror(errno)))") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        linksOpened += 1
        let link = PeerLink(name: "\(PeerLink.namePrefix)\(linksOpened)", fd: fd, role: role, acceptsCalls: acceptsCalls,
                            maximumMessageSize: maximumMessageSize, onOpen: opened, onClose: onClose)
        links[link.name] = link
        named(link.name)
        if role == .client {
            // The credentials byte, then EXTERNAL with our uid (its decimal digits, hex-encoded),
            // as libdbus and GDBus clients begin.
            let uid = String(getuid()).utf8.map(twoHexDigits).joined()
            writeHandshake(link, "\0AUTH EXTERNAL \(uid)\r\n")
        }
        return link.name
    }

    /// Closes a peer link: its pending calls fail with ``DBusError/disconnected(_:)`` and its
    /// `onClose` is called with its name and `reason`. Nothing happens for a link already closed.
    public func closePeerLink(_ name: String, reason: String = "closed by this process") {
        guard let link = links.removeValue(forKey: name) else { return }
        let failed = pending.filter { $0.value.destination == name }
        for (serial, p) in failed {
            pending[serial] = nil
            complete(p.handler, .failure(.disconnected("the peer link closed: \(reason)")))
        }
        link.onClose(name, reason)
    }

    /// Whether the link named `name` is open.
    public func isPeerLinkOpen(_ name: String) -> Bool { links[name] != nil }

    /// Bounds every peer link of this connection: together their buffers hold at most `memory`
    /// bytes (a read that would pass it closes the link it was for), and a link that holds a
    /// partial message, or has not ended the authentication exchange, for `partialFrameDeadline`
    /// is closed. Defaults: 8 MiB, 10 s.
    public func limitPeerLinks(memory: Int, partialFrameDeadline: Duration) {
        peerLinkMemory = memory
        peerLinkPartialDeadline = partialFrameDeadline
    }

    func linkPollEntries() -> [pollfd] {
        // A link with messages waiting is not read until they are handled: the rest waits in the socket.
        links.values.map { pollfd(fd: $0.fd, events: ($0.backlog ? 0 : Int16(POLLIN)) | ($0.outbox.isEmpty ? 0 : Int16(POLLOUT)), revents: 0) }
    }

    /// When the first link's partial message or authentication exchange runs out of time.
    func nextLinkDeadline() -> ContinuousClock.Instant? {
        links.values.compactMap { $0.unfinishedSince }.min().map { $0.advanced(by: peerLinkPartialDeadline) }
    }

    /// Closes the links whose partial message or authentication exchange took too long.
    func expireLinks() {
        let now = ContinuousClock.now
        for link in Array(links.values) {
            guard let since = link.unfinishedSince, now - since >= peerLinkPartialDeadline else { continue }
            let limit = "\(peerLinkPartialDeadline.components.seconds) s"
            closePeerLink(link.name, reason: link.phase != .open ? "the peer did not end the authentication exchange within \(limit)"
                                                                : "the peer left a partial message (\(link.reader.pending) bytes) unfinished for \(limit)")
        }
    }

    /// Handles the messages waiting in links' inboxes, a few links per turn in rotation, within
    /// the turn's budget.
    func serviceLinkBacklogs() {
        let waiting = links.values.filter(\.backlog).sorted { $0.name < $1.name }
        guard !waiting.isEmpty else { return }
        linkRotation &+= 1
        for i in 0..<waiting.count where linkTurnBudget > 0 {
            let link = waiting[(i + linkRotation) % waiting.count]
            guard links[link.name] != nil, handleInbox(link) else { continue }
            noteUnfinished(link)
        }
    }

    /// Records whether the link holds something unfinished, and lets go of a large inbox once it
    /// is empty, so an idle link holds next to nothing.
    func noteUnfinished(_ link: PeerLink) {
        if !link.reader.holdsUnfinished(backlog: link.backlog) {
            link.unfinishedSince = nil
        } else if link.unfinishedSince == nil {
            link.unfinishedSince = ContinuousClock.now
        }
        link.reader.releaseStorage(above: 16_384)
    }

    /// What all links hold together.
    func linkBytesHeld() -> Int { links.values.reduce(0) { $0 + $1.bytesHeld } }

    /// Numbers, marshals and queues `message` on `link`, writing what the socket takes now.
    func sendOnLink(_ link: PeerLink, _ message: RawMessage) throws -> UInt32 {
        let serial = nextLinkSerial
        repeat {
            nextLinkSerial = nextLinkSerial == UInt32.max ? PeerLink.firstSerial : nextLinkSerial + 1
        } while pending[nextLinkSerial] != nil
        dbus_message_set_serial(message.pointer, serial)
        var bytes: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message.pointer, &bytes, &length) != 0, let bytes else {
            throw DBusError.invalidValue("out of memory while marshalling a message for a peer link")
        }
        WireTrace.note("out", message.pointer, on: uniqueName)
        let open = link.phase == .open
        bytes.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            let marshalled = UnsafeBufferPointer(start: $0, count: Int(length))
            // Before the authentication exchange has ended a message would be read as a line of
            // it: it waits, and is written when the exchange ends.
            if open { link.outbox.append(contentsOf: marshalled) } else { link.held.append(contentsOf: marshalled) }
        }
        dbus_free(bytes)
        guard open else {
            if link.held.count > PeerLink.maximumUnwritten {
                closePeerLink(link.name, reason: "the peer did not end the authentication exchange (over \(PeerLink.maximumUnwritten >> 20) MiB waiting)")
                throw DBusError.disconnected("the peer link closed while sending")
            }
            return serial
        }
        flushLink(link)
        guard links[link.name] != nil else { throw DBusError.disconnected("the peer link closed while sending") }
        return serial
    }

    private func flushLink(_ link: PeerLink) {
        while link.written < link.outbox.count {
            let n = link.outbox.withUnsafeBytes { buf in
                Glibc.send(link.fd, buf.baseAddress! + link.written, buf.count - link.written, Int32(MSG_NOSIGNAL))
            }
            if n > 0 { link.written += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            if n < 0 && errno == EINTR { continue }
            return closePeerLink(link.name, reason: "writing failed: \(String(cString: strerror(errno)))")
        }
        if link.written == link.outbox.count {
            link.outbox.removeAll(keepingCapacity: link.outbox.count <= 65_536)
            link.written = 0
        } else if link.outbox.count - link.written > PeerLink.maximumUnwritten {
            closePeerLink(link.name, reason: "the peer stopped reading (over \(PeerLink.maximumUnwritten >> 20) MiB unwritten)")
        } else if link.outbox.count - link.written > 65_536, linkBytesHeld() > peerLinkMemory {
            // What a peer leaves unread counts against the budget all links share too: 64 peers
            // sending calls and never reading the answers would otherwise hold 4 MiB each.
            closePeerLink(link.name, reason: "the peer does not read what it is sent (\(link.outbox.count - link.written) bytes waiting) and "
                                             + "the peer links' shared memory budget (\(peerLinkMemory >> 20) MiB) is used up")
        }
    }

    private func writeHandshake(_ link: PeerLink, _ line: String) {
        link.outbox.append(contentsOf: Array(line.utf8))
        flushLink(link)
    }

    /// Reads D-Bus's authentication exchange from the front of the inbox and answers it
    /// (`PeerLinkReader.nextHandshakeStep`: EXTERNAL only, the claimed identity not checked,
    /// NEGOTIATE_UNIX_FD declined). Returns false when the link was closed.
    private func handshake(_ link: PeerLink) -> Bool {
        while link.phase != .open {
            switch link.reader.nextHandshakeStep() {
            case .needMore:
                return true
            case .reply(let line):
                writeHandshake(link, line)
            case .open(let reply):
                if let reply { link.outbox.append(contentsOf: Array(reply.utf8)) }
                open(link)
            case .refuse(let reason):
                closePeerLink(link.name, reason: reason)
                return false
            }
            guard links[link.name] != nil else { return false }
        }
        return true
    }

    private func open(_ link: PeerLink) {
        link.onOpen(link.name)
        link.outbox.append(contentsOf: link.held)
        link.held = []
        flushLink(link)
    }

    /// Reads what the link's socket holds (one buffer's worth a turn) and handles the whole
    /// messages in it, within the turn's budget.
    func serviceLink(fd: Int32, revents: Int16) {
        guard let link = links.values.first(where: { $0.fd == fd }) else { return }
        if revents & Int16(POLLOUT) != 0 { flushLink(link) }
        guard links[link.name] != nil, revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, !link.backlog else { return }
        // One buffer for every link of this connection, made once: a zeroed 64 KiB array per
        // read cost each message a few microseconds.
        if linkReadBuffer.isEmpty { linkReadBuffer = [UInt8](repeating: 0, count: 65_536) }
        while true {
            let n = linkReadBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                // Links share one budget: what one peer holds (a message it never finishes) is
                // taken from all, so many links cannot add up to the daemon's whole memory.
                let held = linkBytesHeld()
                guard PeerLinkReader.fitsBudget(held: held, incoming: n, budget: peerLinkMemory) else {
                    return closePeerLink(link.name, reason: "the peer links' shared memory budget (\(peerLinkMemory >> 20) MiB) is used up "
                                                          + "(\(held) bytes held, \(link.reader.pending) of them by this link)")
                }
                link.reader.receive(linkReadBuffer[0..<n])
                if link.phase != .open, !handshake(link) { return }
                if link.phase == .open, !handleInbox(link) { return }
                break
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            return closePeerLink(link.name, reason: n == 0 ? "the peer closed it" : "reading failed: \(String(cString: strerror(errno)))")
        }
        noteUnfinished(link)
    }

    /// Handles the whole messages at the front of the inbox, as many as the turn's budget
    /// allows (the rest wait: `backlog`); false when the link was closed.
    private func handleInbox(_ link: PeerLink) -> Bool {
        link.backlog = false
        while link.reader.hasHeader {
            guard linkTurnBudget > 0 else {
                link.backlog = true
                break
            }
            let frame: Range<Int>
            switch link.reader.nextFrame() {
            case .needMore:
                return true
            case .refuse(let reason):
                closePeerLink(link.name, reason: reason)
                return false
            case .frame(let range):
                frame = range
            }
            let err = DBusErrorStruct()
            let message = link.reader.inbox.withUnsafeBytes { buf in
                dbus_message_demarshal(buf.baseAddress!.assumingMemoryBound(to: CChar.self) + frame.lowerBound, Int32(frame.count), &err.raw)
            }
            guard let message else {
                closePeerLink(link.name, reason: "the peer sent an invalid D-Bus message (\(err.takeMessage() ?? "unknown error"))")
                return false
            }
            let raw = RawMessage(owning: message)
            linkTurnBudget -= 1
            // The sender is the link, whatever the peer wrote in the header.
            _ = link.name.withCString { dbus_message_set_sender(message, $0) }
            route(raw, link: link)
            guard links[link.name] != nil else { return false }
        }
        return true
    }
}
