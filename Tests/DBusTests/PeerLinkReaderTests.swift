// SPDX-License-Identifier: Apache-2.0
@_spi(Fuzzing) import DBus
import Testing

/// `PeerLinkReader`, what a peer link makes of the bytes it reads, without a socket: the same
/// bytes mean the same thing however they are split, and reading costs work linear in them.
struct PeerLinkReaderTests {
    /// Feeds `bytes` in pieces of `piece` and runs the exchange; the steps, in order.
    func exchange(_ bytes: [UInt8], piece: Int) -> [PeerLinkReader.HandshakeStep] {
        var reader = PeerLinkReader(serverSide: true, maximumMessageSize: 4096)
        var steps: [PeerLinkReader.HandshakeStep] = []
        var offset = 0
        while offset < bytes.count {
            reader.receive(bytes[offset..<min(bytes.count, offset + piece)])
            offset += piece
            while reader.phase != .open {
                let step = reader.nextHandshakeStep()
                if step == .needMore { break }
                steps.append(step)
                if case .refuse = step { return steps }
            }
        }
        return steps
    }

    @Test func aLineOverTheLimitIsRefusedEvenWhenItsEndComesInTheSameRead() {
        let long = Array("\0AUTH EXTERNAL ".utf8) + [UInt8](repeating: 0x33, count: 1100) + Array("\r\nBEGIN\r\n".utf8)
        let refusal = PeerLinkReader.HandshakeStep.refuse("the peer sent an authentication line over 1024 bytes")
        #expect(exchange(long, piece: long.count) == [refusal])
        #expect(exchange(long, piece: 100) == [refusal])
        // A line of exactly the limit is taken, split after its CR or not.
        let atLimit = Array("\0".utf8) + Array("AUTH EXTERNAL ".utf8) + [UInt8](repeating: 0x33, count: 1024 - 14) + Array("\r\nBEGIN\r\n".utf8)
        for piece in [atLimit.count, 1 + 1024 + 1, 7] {
            let steps = exchange(atLimit, piece: piece)
            #expect(steps.count == 2 && steps.last == .open(reply: nil), "pieces of \(piece): \(steps)")
        }
    }

    @Test func aLineTrickledByteByByteIsScannedOnce() {
        var reader = PeerLinkReader(serverSide: true, maximumMessageSize: 4096)
        let bytes = Array("\0AUTH EXTERNAL ".utf8) + [UInt8](repeating: 0x33, count: 1000) + Array("\r\n".utf8)
        for b in bytes {
            reader.receive([b])
            _ = reader.nextHandshakeStep()
        }
        #expect(reader.phase == .serverAwaitingBegin)
        // Copying in, scanning, decoding: a few units a byte; scanning the line again for each
        // byte would be about 500,000.
        #expect(reader.work < 6 * bytes.count, "\(reader.work) units of work on \(bytes.count) bytes")
    }

    @Test func framesSplitAcrossReadsAreHandedOnWhole() throws {
        let call = try #require(DBusFuzzEntry.encodeMessage([.string("hello"), .uint32(7)]))
        let stream = Array("\0AUTH EXTERNAL 30\r\nBEGIN\r\n".utf8) + call + call
        var reader = PeerLinkReader(serverSide: true, maximumMessageSize: 4096)
        var frames: [[UInt8]] = []
        for start in stride(from: 0, to: stream.count, by: 5) {
            reader.receive(stream[start..<min(stream.count, start + 5)])
            while reader.phase != .open, reader.nextHandshakeStep() != .needMore {}
            while reader.hasHeader, case .frame(let r) = reader.nextFrame() { frames.append(Array(reader.inbox[r])) }
        }
        #expect(frames == [call, call])
        #expect(reader.pending == 0 && !reader.holdsUnfinished(backlog: false))
    }

    @Test func aHeaderDeclaringMoreThanTheLimitIsRefusedBeforeTheBodyComes() {
        var reader = PeerLinkReader(serverSide: true, maximumMessageSize: 4096)
        reader.receive(Array("\0AUTH EXTERNAL 30\r\nBEGIN\r\n".utf8))
        while reader.phase != .open, reader.nextHandshakeStep() != .needMore {}
        // 'l', method call, no flags, version 1, body 8 KiB, serial 1, no header fields.
        reader.receive([UInt8(ascii: "l"), 1, 0, 1, 0, 0x20, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        #expect(reader.nextFrame() == .refuse("the peer sent a message of 8208 bytes (at most 4096)"))
    }
}
