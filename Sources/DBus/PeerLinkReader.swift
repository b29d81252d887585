// SPDX-License-Identifier: Apache-2.0
import CDBus

/// What a peer link makes of the bytes it reads, with no I/O: D-Bus's authentication exchange
/// (its lines, read and answered) and then the framing of messages (where the next one ends,
/// whether it is too long). `Connection` feeds it what the socket gave and acts on its answers
/// (writes a reply, opens the link, hands a frame to libdbus, closes the link with the reason);
/// the fuzz target `peer-link` feeds it arbitrary bytes in arbitrary pieces.
///
/// What this project owns and what libdbus does: the exchange is this project's (libdbus's own
/// authentication code only serves connections libdbus makes, not a socket it is handed). The
/// length of a frame is read from its 16-byte fixed header by libdbus
/// (`dbus_message_demarshal_bytes_needed`: byte order, fields-array and body lengths, each and
/// their sum at most 128 MiB, else -1); whether to wait, take the frame or close the link, and
/// the link's own limit, are decided here; libdbus validates the whole frame
/// (`dbus_message_demarshal`) in `Connection`.
///
/// Work is linear in what is received, and counted (`work`): each byte is copied in once, moved
/// at most once (the consumed front is dropped when the next bytes come in, not after each
/// message), scanned for a line end at most once, and each frame's header is read once more for
/// each read that leaves it unfinished.
@_spi(Fuzzing) public struct PeerLinkReader: Sendable {
    /// Where the link is in D-Bus's authentication exchange (the specification's "Authentication
    /// protocol"), which a peer-to-peer connection begins with as a bus connection does.
    public enum Phase: Equatable, Sendable {
        /// The server side waits for the client's NUL byte, then its AUTH, then BEGIN.
        case serverAwaitingNul, serverAwaitingAuth, serverAwaitingBegin
        /// The client side sent its NUL byte and AUTH EXTERNAL and waits for OK.
        case clientAwaitingOK
        case open
    }

    /// What to do next in the authentication exchange.
    public enum HandshakeStep: Equatable, Sendable {
        /// Nothing more can be read until more bytes come.
        case needMore
        /// Write this line (CRLF included) to the peer; the exchange goes on.
        case reply(String)
        /// The exchange ended: write `reply` if there is one, then the messages that waited for it.
        case open(reply: String?)
        /// Close the link, for this reason.
        case refuse(String)
    }

    /// What to do with the bytes after the exchange.
    public enum FrameStep: Equatable, Sendable {
        /// The next message is not all here yet.
        case needMore
        /// A whole message, at these indices of `inbox` (consumed: the next step reads after it).
        case frame(Range<Int>)
        /// Close the link, for this reason.
        case refuse(String)
    }

    public static let maximumLineLength = 1024
    public static let maximumLines = 16
    /// A D-Bus message's fixed header, which holds the lengths.
    public static let headerSize = 16

    public private(set) var phase: Phase
    /// The link's limit on one message, in bytes.
    public let maximumMessageSize: Int
    /// Bytes received; those before `consumed` are handled, and dropped when more come.
    public private(set) var inbox: [UInt8] = []
    public private(set) var consumed = 0
    /// Lines of the exchange read so far (bounded).
    public private(set) var handshakeLines = 0
    /// How far the search for the end of the current line got (an index into `inbox`): a line
    /// trickled a byte at a time is scanned once, not once per byte.
    private var scanned = 0
    /// Bytes copied, moved and scanned, and 16 per header read: what the reading cost.
    public private(set) var work = 0

    public init(serverSide: Bool, maximumMessageSize: Int) {
        phase = serverSide ? .serverAwaitingNul : .clientAwaitingOK
        self.maximumMessageSize = maximumMessageSize
    }

    /// Bytes received and not yet handled.
    public var pending: Int { inbox.count - consumed }
    /// What the inbox costs (its capacity), for the shared memory budget.
    public var capacity: Int { inbox.capacity }
    /// Whether a message's fixed header is here, so `nextFrame` can tell how long the message is.
    public var hasHeader: Bool { pending >= Self.headerSize }

    /// Whether the link holds something unfinished, so its partial-frame deadline runs: the
    /// exchange has not ended, or part of a message is here (`backlog`: whole messages wait to be
    /// handled, which is the connection's doing, not the peer's).
    public func holdsUnfinished(backlog: Bool) -> Bool {
        !(phase == .open && (pending == 0 || backlog))
    }

    /// Whether `incoming` more bytes fit the budget that all links share, `held` being what all
    /// of them hold now (their buffers' capacity).
    public static func fitsBudget(held: Int, incoming: Int, budget: Int) -> Bool { held + incoming <= budget }

    /// Takes bytes read from the socket. The handled front is dropped first: once per read, and
    /// what is moved is only the unfinished rest, each byte at most once.
    public mutating func receive(_ bytes: some Collection<UInt8>) {
        if consumed > 0 {
            work += pending
            inbox.removeSubrange(0..<consumed)
            scanned = max(0, scanned - consumed)
            consumed = 0
        }
        work += bytes.count
        inbox.append(contentsOf: bytes)
    }

    /// Lets go of the inbox's storage when it holds nothing unhandled and more than `above` bytes
    /// of capacity, so an idle link holds next to nothing.
    public mutating func releaseStorage(above: Int) {
        guard pending == 0 else { return }
        if inbox.capacity > above {
            inbox = []
        } else {
            inbox.removeAll(keepingCapacity: true)
        }
        consumed = 0
        scanned = 0
    }

    // MARK: - The authentication exchange

    /// Reads the next step of D-Bus's authentication exchange from the front of the inbox (the
    /// specification's "Authentication protocol", EXTERNAL only). The link's end is a socket
    /// pair made by the server side and handed over in a method reply, so who holds the other end
    /// was decided by that call: the identity EXTERNAL claims is not checked (for a socket pair
    /// the kernel's peer credentials are the server's own). Descriptors are not passed on links,
    /// so NEGOTIATE_UNIX_FD is declined. Lines are ASCII commands split at spaces.
    public mutating func nextHandshakeStep() -> HandshakeStep {
        if phase == .serverAwaitingNul {
            guard consumed < inbox.count else { return .needMore }
            guard inbox[consumed] == 0 else { return .refuse("the peer did not begin with D-Bus's authentication exchange") }
            consumed += 1
            scanned = max(scanned, consumed)
            phase = .serverAwaitingAuth
        }
        guard phase != .open else { return .needMore }
        // A line over the limit is refused whether its end came in the same read or not: what
        // the exchange accepts does not depend on how the peer's bytes were split.
        // (A line of the longest length and its CR may wait for the LF.)
        guard let lineEnd = nextLineEnd(), lineEnd - consumed <= Self.maximumLineLength else {
            if pending > Self.maximumLineLength + 1 { return .refuse("the peer sent an authentication line over \(Self.maximumLineLength) bytes") }
            return .needMore
        }
        let line = inbox[consumed..<lineEnd]
        consumed = lineEnd + 2
        scanned = consumed
        handshakeLines += 1
        guard handshakeLines <= Self.maximumLines else {
            return .refuse("the peer's authentication exchange went on for more than \(Self.maximumLines) lines")
        }
        work += line.count
        let words = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
        let command = words.first ?? []
        switch (phase, Command(command)) {
        case (.serverAwaitingAuth, .auth) where words.count >= 2 && words[1].elementsEqual("EXTERNAL".utf8):
            phase = .serverAwaitingBegin
            return .reply("OK \(PeerLink.serverGUID)\r\n")
        case (.serverAwaitingAuth, .auth), (.serverAwaitingAuth, .cancel), (.serverAwaitingAuth, .error),
             (.serverAwaitingBegin, .cancel), (.serverAwaitingBegin, .error):
            phase = .serverAwaitingAuth
            return .reply("REJECTED EXTERNAL\r\n")
        case (.serverAwaitingBegin, .negotiateUnixFD):
            return .reply("ERROR descriptors are not passed on this link\r\n")
        case (.serverAwaitingBegin, .begin):
            phase = .open
            return .open(reply: nil)
        case (.serverAwaitingAuth, _), (.serverAwaitingBegin, _):
            return .reply("ERROR unknown command\r\n")
        case (.clientAwaitingOK, .ok):
            phase = .open
            return .open(reply: "BEGIN\r\n")
        case (.clientAwaitingOK, _):
            let text = String(decoding: line, as: UTF8.self)
            return .refuse("the peer refused the authentication (\(quoted(String(text.prefix(80))))")
        case (.serverAwaitingNul, _), (.open, _):
            return .needMore
        }
    }

    private enum Command {
        case auth, cancel, error, begin, negotiateUnixFD, ok, other
        init(_ word: some Collection<UInt8>) {
            guard word.count <= 20 else {
                self = .other
                return
            }
            switch String(decoding: word, as: UTF8.self) {
            case "AUTH": self = .auth
            case "CANCEL": self = .cancel
            case "ERROR": self = .error
            case "BEGIN": self = .begin
            case "NEGOTIATE_UNIX_FD": self = .negotiateUnixFD
            case "OK": self = .ok
            default: self = .other
            }
        }
    }

    /// Where the first CRLF at or after `consumed` begins, scanning only what was not scanned before.
    private mutating func nextLineEnd() -> Int? {
        // A CR at the end of what was scanned may be the first half of a CRLF split across reads.
        var i = max(consumed, scanned > consumed ? scanned - 1 : consumed)
        // No further than a line may run: past it the line is refused, whatever follows.
        let end = min(inbox.count, consumed + Self.maximumLineLength + 2)
        while i + 1 < end {
            work += 1
            if inbox[i] == 13 && inbox[i + 1] == 10 { return i }
            i += 1
        }
        scanned = max(scanned, end)
        return nil
    }

    // MARK: - Messages

    /// The next whole message at the front of the inbox, if it is all here; refuses bytes that
    /// are not a D-Bus message's header and a message longer than the link allows. Call it when
    /// `hasHeader`. The length is libdbus's reading of the fixed header
    /// (`dbus_message_demarshal_bytes_needed`), which looks at those 16 bytes only.
    public mutating func nextFrame() -> FrameStep {
        guard phase == .open, hasHeader else { return .needMore }
        work += Self.headerSize
        let needed = inbox.withUnsafeBytes { buf in
            Int(dbus_message_demarshal_bytes_needed(buf.baseAddress!.assumingMemoryBound(to: CChar.self) + consumed,
                                                    Int32(clamping: buf.count - consumed)))
        }
        guard needed >= 0, needed <= maximumMessageSize else {
            return .refuse(needed < 0 ? "the peer sent bytes that are not a D-Bus message"
                                      : "the peer sent a message of \(needed) bytes (at most \(maximumMessageSize))")
        }
        guard needed > 0, pending >= needed else { return .needMore }
        let frame = consumed..<(consumed + needed)
        consumed += needed
        scanned = consumed
        return .frame(frame)
    }
}
