// SPDX-License-Identifier: Apache-2.0
@_spi(Fuzzing) import DBus
import Synchronization

/// The peer-link target: what a command channel's peer sends, in pieces of any size, through
/// `PeerLinkReader` (the authentication exchange and the framing a link does, with no I/O) and
/// libdbus (each frame's header length, each whole frame's validation), the way `Connection`
/// drives them: one read per turn, at most a few messages handled per turn, no read while whole
/// messages wait. Checked, whatever the bytes and however they are split:
/// - a frame handed on is exactly the stream's next bytes, at least a header and at most the
///   link's limit long, and as long as the header says (read again here from the specification);
/// - waiting for more never holds more than the bound in force: a line of the exchange (1 KiB
///   and its CR) before BEGIN, less than the declared (and allowed) length of the message after;
/// - the exchange ends only on well-formed lines: a NUL byte, at most 16 CRLF lines of at most
///   1 KiB, AUTH EXTERNAL accepted and not withdrawn, then BEGIN (the client side: OK first);
/// - what happens (replies, frames, the reason a link closes) does not depend on the split;
/// - the work done is linear in the bytes and reads (`PeerLinkReader.work`);
/// - links sharing a memory budget never hold more live bytes than it.
public enum PeerLinkFuzz {
    /// Exchanges that ended and frames handed on, over all runs: a test checks the target gets
    /// past the exchange and through frames, not only to the first refusal.
    public static let opened = Atomic<Int>(0)
    public static let frames = Atomic<Int>(0)

    /// What the link did, in order (compared across splits).
    enum Event: Equatable {
        case reply(String), open, frame(start: Int, count: Int), invalidFrame, closed(String)
    }

    struct Outcome {
        var events: [Event] = []
        var work = 0
        var received = 0
        var reads = 0
    }

    static let validHandshake = Array("\0AUTH EXTERNAL 30\r\nBEGIN\r\n".utf8)

    /// Marshalled calls of a few sizes (up to one over the smaller limits).
    static let messages: [[UInt8]] = [
        [.string("hello"), .uint32(7)], [], [.bytes([UInt8](repeating: 0x41, count: 300))],
        [.varDict(["result": "success", "confidence": "high"])], [.bytes([UInt8](repeating: 0x42, count: 5000))],
    ].compactMap { DBusFuzzEntry.encodeMessage($0) }

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let mode = input.int(0...4)
        let maximum = input.pick([64, 256, 4096, 1 << 20])
        let perTurn = input.pick([1, 3, 64])
        let pieces = (0..<input.int(1...4)).map { _ in input.pick([1, 2, 7, 16, 64, 1000, 65_536, input.int(1...300)]) }
        if mode == 3 {
            return sharedBudget(&input, maximum: maximum, perTurn: perTurn, pieces: pieces)
        }
        let serverSide = mode != 2
        var stream = (mode == 1 || mode == 4 ? validHandshake : [])
        if mode == 4 {
            // Whole messages, now and then one with a byte changed, and raw bytes between; up to
            // 32 KiB (a byte of input can add 5 KB: unbounded, a 4 KB input cost seconds).
            while !input.isExhausted && stream.count < 32_768 {
                let control = input.byte()
                if control & 3 == 0 {
                    stream += input.bytes(max: 64)
                } else {
                    var m = messages[Int(control >> 2) % messages.count]
                    if control & 0x80 != 0 { m[input.int(0...(m.count - 1))] = input.byte() }
                    stream += m
                }
            }
        } else {
            stream += input.rest()
        }
        let split = drive(stream, serverSide: serverSide, maximum: maximum, perTurn: perTurn, pieces: pieces)
        // The same bytes in one read, and a byte at a time: the same events.
        let whole = drive(stream, serverSide: serverSide, maximum: maximum, perTurn: 64, pieces: [max(1, stream.count)])
        precondition(split.events == whole.events, "the peer link did different things when its bytes came split \(pieces):\n\(split.events)\nvs in one read:\n\(whole.events)")
        if stream.count <= 2048 {
            let trickled = drive(stream, serverSide: serverSide, maximum: maximum, perTurn: 1, pieces: [1])
            precondition(trickled.events == whole.events, "the peer link did different things when its bytes came one at a time")
        }
    }

    /// Feeds `stream` to one link end as `Connection` would, checking every step; what happened.
    static func drive(_ stream: [UInt8], serverSide: Bool, maximum: Int, perTurn: Int, pieces: [Int]) -> Outcome {
        var reader = PeerLinkReader(serverSide: serverSide, maximumMessageSize: maximum)
        var out = Outcome()
        var offset = 0
        var backlog = false
        var nextFrameStart: Int? = nil
        var piece = 0
        turns: while true {
            if !backlog {
                guard offset < stream.count else { break }
                let n = min(pieces[piece % pieces.count], stream.count - offset)
                piece += 1
                reader.receive(stream[offset..<(offset + n)])
                offset += n
                out.received += n
                out.reads += 1
            }
            // Where inbox[0] is in the stream.
            var base: Int { out.received - reader.inbox.count }
            var budget = perTurn
            while reader.phase != .open {
                let before = reader.phase
                switch reader.nextHandshakeStep() {
                case .needMore:
                    precondition(reader.pending <= PeerLinkReader.maximumLineLength + 1,
                                 "the exchange holds \(reader.pending) bytes of one line (at most \(PeerLinkReader.maximumLineLength) and its CR)")
                    precondition(reader.holdsUnfinished(backlog: false), "an unfinished exchange has no deadline")
                    continue turns
                case .reply(let line):
                    precondition(line.hasSuffix("\r\n") && !line.dropLast(2).contains("\r") && !line.dropLast(2).contains("\n"), "a reply that is not one line")
                    if line.hasPrefix("OK ") {
                        let words = Self.lastLine(stream, upTo: base + reader.consumed).split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
                        precondition((before == .serverAwaitingAuth || before == .serverAwaitingNul) && words.count >= 2 && words[0] == "AUTH" && words[1] == "EXTERNAL", "OK without AUTH EXTERNAL")
                    }
                    out.events.append(.reply(line))
                case .open(let reply):
                    checkOpening(Array(stream[0..<(base + reader.consumed)]), serverSide: serverSide, reply: reply)
                    out.events.append(.open)
                    opened.add(1, ordering: .relaxed)
                    nextFrameStart = base + reader.consumed
                case .refuse(let reason):
                    out.events.append(.closed(reason))
                    break turns
                }
            }
            backlog = false
            while reader.hasHeader {
                guard budget > 0 else {
                    backlog = true
                    break
                }
                let header = Array(stream[(base + reader.consumed)..<(base + reader.consumed + PeerLinkReader.headerSize)])
                let declared = Self.declaredLength(header)
                switch reader.nextFrame() {
                case .needMore:
                    precondition(declared.map { $0 <= maximum && $0 > reader.pending } ?? false,
                                 "waiting for a message the header says is \(declared.map(String.init) ?? "invalid") bytes, with \(reader.pending) here")
                    precondition(reader.pending < maximum, "a partial message holds \(reader.pending) bytes, past the link's limit \(maximum)")
                    break
                case .refuse(let reason):
                    precondition(declared.map { $0 > maximum } ?? true, "refused a frame whose header says \(declared ?? -1) bytes (limit \(maximum)): \(reason)")
                    out.events.append(.closed(reason))
                    break turns
                case .frame(let range):
                    let start = base + range.lowerBound
                    precondition(range.lowerBound >= 0 && range.upperBound <= reader.inbox.count, "a frame outside the inbox")
                    precondition(start == nextFrameStart, "a frame at \(start) of the stream where the next one begins at \(nextFrameStart ?? -1)")
                    precondition(range.count >= PeerLinkReader.headerSize && range.count <= maximum, "a frame of \(range.count) bytes (limit \(maximum))")
                    precondition(range.count == declared, "a frame of \(range.count) bytes whose header says \(declared ?? -1)")
                    precondition(reader.inbox[range].elementsEqual(stream[start..<(start + range.count)]), "a frame's bytes differ from the stream's")
                    nextFrameStart = start + range.count
                    budget -= 1
                    guard DBusFuzzEntry.demarshals(reader.inbox[range]) else {
                        out.events.append(.invalidFrame)
                        break turns
                    }
                    out.events.append(.frame(start: start, count: range.count))
                    frames.add(1, ordering: .relaxed)
                    continue
                }
                break
            }
            precondition(reader.pending < (backlog ? Int.max : max(maximum, PeerLinkReader.headerSize)), "the link waits holding \(reader.pending) bytes")
            precondition(reader.holdsUnfinished(backlog: backlog) == (reader.pending > 0 && !backlog), "the partial-frame deadline does not follow what is held")
            reader.releaseStorage(above: 16_384)
        }
        out.work = reader.work
        // Linear: each byte copied, moved and scanned at most once (with a line's decoding), a
        // header read per frame and per read.
        let bound = 6 * out.received + 20 * out.reads + 256
        precondition(out.work <= bound, "the peer link did \(out.work) units of work on \(out.received) bytes in \(out.reads) reads (bound \(bound))")
        return out
    }

    /// The length the fixed header declares (the specification's "Message Format"): 16 bytes, the
    /// header fields array padded to 8, the body; nil when the byte order is not 'l' or 'B' or a
    /// length passes 128 MiB (what libdbus refuses).
    static func declaredLength(_ h: [UInt8]) -> Int? {
        guard h.count >= 16, h[0] == UInt8(ascii: "l") || h[0] == UInt8(ascii: "B") else { return nil }
        func u32(_ at: Int) -> Int {
            let b = h[at..<(at + 4)].map(Int.init)
            return h[0] == UInt8(ascii: "l") ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24
        }
        let body = u32(4), fields = u32(12), limit = 1 << 27
        guard fields <= limit, body <= limit else { return nil }
        let total = (16 + fields + 7) / 8 * 8 + body
        return total <= limit ? total : nil
    }

    /// The last CRLF line of `stream[..<end]` (which ends in CRLF).
    static func lastLine(_ stream: [UInt8], upTo end: Int) -> [UInt8] {
        let head = stream[..<max(0, end - 2)]
        let from = head.indices.last(where: { $0 > head.startIndex && stream[$0 - 1] == 13 && stream[$0] == 10 }).map { $0 + 1 } ?? 0
        return Array(stream[min(from, head.endIndex)..<head.endIndex]).drop(while: { $0 == 0 }).map { $0 }
    }

    /// The exchange ended after `prefix`: it must be well formed.
    static func checkOpening(_ prefix: [UInt8], serverSide: Bool, reply: String?) {
        var rest = prefix[...]
        if serverSide {
            precondition(rest.first == 0, "the exchange ended without the NUL byte first")
            rest = rest.dropFirst()
            precondition(reply == nil, "the server side answered BEGIN")
        } else {
            precondition(reply == "BEGIN\r\n", "the client side ended the exchange without BEGIN")
        }
        var lines: [ArraySlice<UInt8>] = []
        while !rest.isEmpty {
            guard let cr = rest.indices.first(where: { rest[$0] == 13 && $0 + 1 < rest.endIndex && rest[$0 + 1] == 10 }) else {
                preconditionFailure("the exchange ended on bytes that are not a CRLF line")
            }
            lines.append(rest[rest.startIndex..<cr])
            rest = rest[(cr + 2)...]
        }
        precondition(lines.count <= PeerLinkReader.maximumLines, "the exchange ended after \(lines.count) lines")
        precondition(lines.allSatisfy { $0.count <= PeerLinkReader.maximumLineLength }, "the exchange ended after a line over 1 KiB")
        let words = lines.map { $0.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) } }
        if !serverSide {
            precondition(words.count == 1 && words[0].first == "OK", "the client side opened on \(words)")
            return
        }
        precondition(words.last?.first == "BEGIN", "the server side opened without BEGIN last")
        // AUTH EXTERNAL accepted, and nothing since that sent the exchange back to AUTH.
        var authenticated = false
        for w in words.dropLast() {
            switch w.first {
            case "AUTH" where !authenticated: authenticated = w.count >= 2 && w[1] == "EXTERNAL"
            case "CANCEL", "ERROR": authenticated = false
            case "BEGIN": precondition(!authenticated, "a BEGIN after AUTH EXTERNAL did not end the exchange")
            default: break
            }
        }
        precondition(authenticated, "the server side opened without an accepted AUTH EXTERNAL: \(words)")
    }

    /// Several links read in turn against one memory budget, as a connection's links are.
    static func sharedBudget(_ input: inout FuzzInput, maximum: Int, perTurn: Int, pieces: [Int]) {
        let count = input.int(2...4)
        let budget = input.pick([512, 4096, 65_536])
        var readers = (0..<count).map { _ in PeerLinkReader(serverSide: true, maximumMessageSize: maximum) }
        var open = Array(repeating: true, count: count)
        var streams = (0..<count).map { _ in validHandshake + input.bytes(max: 6000) }
        if !input.isExhausted { streams[0] += input.rest() }
        var offsets = Array(repeating: 0, count: count)
        var piece = 0
        while let i = (0..<count).first(where: { open[$0] && offsets[$0] < streams[$0].count }) {
            for i in (i..<count) where open[i] && offsets[i] < streams[i].count {
                let n = min(pieces[piece % pieces.count], streams[i].count - offsets[i])
                piece += 1
                let held = readers.indices.filter { open[$0] }.reduce(0) { $0 + readers[$1].capacity }
                guard PeerLinkReader.fitsBudget(held: held, incoming: n, budget: budget) else {
                    open[i] = false
                    readers[i] = PeerLinkReader(serverSide: true, maximumMessageSize: maximum)
                    continue
                }
                readers[i].receive(streams[i][offsets[i]..<(offsets[i] + n)])
                offsets[i] += n
                let live = readers.indices.filter { open[$0] }.reduce(0) { $0 + readers[$1].pending }
                precondition(live <= budget, "links hold \(live) bytes against a shared budget of \(budget)")
                var turn = perTurn
                step: while open[i] {
                    if readers[i].phase != .open {
                        switch readers[i].nextHandshakeStep() {
                        case .needMore: break step
                        case .refuse: open[i] = false
                        default: continue step
                        }
                    } else {
                        guard readers[i].hasHeader, turn > 0 else { break step }
                        switch readers[i].nextFrame() {
                        case .needMore: break step
                        case .refuse: open[i] = false
                        case .frame(let r):
                            turn -= 1
                            if !DBusFuzzEntry.demarshals(readers[i].inbox[r]) { open[i] = false }
                        }
                    }
                }
                if !open[i] { readers[i] = PeerLinkReader(serverSide: true, maximumMessageSize: maximum) }
                readers[i].releaseStorage(above: 16_384)
            }
        }
    }

    /// Seeds: a call after the exchange, in pieces; two calls and a partial one; the exchange with
    /// NEGOTIATE_UNIX_FD, CANCEL and a second AUTH; a client reading OK; links sharing a budget.
    static var seeds: [[UInt8]] {
        let call = DBusFuzzEntry.encodeMessage([.string("hello"), .uint32(7)]) ?? []
        let big = DBusFuzzEntry.encodeMessage([.bytes([UInt8](repeating: 0x41, count: 300))]) ?? []
        func i(_ v: Int) -> [UInt8] { [0, 0, 0, UInt8(v)] }
        func sized(_ b: [UInt8]) -> [UInt8] { [0, 0, UInt8(b.count >> 8), UInt8(b.count & 255)] + b }
        return [
            // mode, limit (index), messages per turn (index), pieces (count - 1), piece sizes (index)
            i(1) + i(2) + i(1) + i(0) + i(2) + call + call,
            i(1) + i(3) + i(0) + i(1) + i(0) + i(3) + call + big + Array(call.prefix(20)),
            i(0) + i(2) + i(2) + i(0) + i(4) + Array("\0AUTH ANONYMOUS\r\nAUTH EXTERNAL 31303030\r\nNEGOTIATE_UNIX_FD\r\nCANCEL\r\nAUTH EXTERNAL\r\nBEGIN\r\n".utf8) + call,
            i(2) + i(2) + i(2) + i(0) + i(1) + Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8) + call,
            i(0) + i(1) + i(1) + i(0) + i(5) + Array("\0AUTH EXTERNAL\r\nBEGIN\n".utf8) + [UInt8](repeating: 0x41, count: 1100) + Array("\r\n".utf8),
            i(4) + i(2) + i(2) + i(1) + i(0) + i(2) + [1, 5, 0, 9, 13, 0x81, 0, 0, 0, 30, 0x7f, 0, 17, 3, 3, 3],
            i(4) + i(3) + i(0) + i(0) + i(6) + [1, 1, 1, 2, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5, 17],
            // links sharing a budget: how many (index), the budget (index), each link's bytes
            i(3) + i(2) + i(2) + i(0) + i(4) + i(1) + i(1) + sized(call + call) + sized(big) + sized(call + Array(big.prefix(100))),
        ]
    }
}
