// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A DNS responder for the simulated hotspot: every A question is answered with `answer` (as a
/// portal's DNS resolves probe hosts to itself); AAAA questions get an empty NOERROR answer. It
/// serves on one UDP socket from a thread of its own.
public final class SimulatorDNS: Sendable {
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)
    private let queries = Mutex<[String]>([])
    /// The port it listens on.
    public let port: UInt16

    /// Listens on `host`:`port` (IPv4; port 0 picks one) and answers with `answer`.
    public init(host: String, port: UInt16, answer: String) throws {
        var addr = in_addr()
        guard inet_pton(AF_INET, answer, &addr) == 1 else { throw SimulatorError("DNS answer \(answer) is not an IPv4 address") }
        let answerBytes = withUnsafeBytes(of: addr) { Array($0) }
        let (fd, bound) = try boundIPv4Socket(type: Int32(SOCK_DGRAM.rawValue), host: host, port: port)
        self.fd = fd
        self.port = bound
        let thread = Thread { [self] in serve(answerBytes) }
        thread.name = "sim-dns"
        thread.start()
    }

    /// Names asked so far.
    public var questions: [String] { queries.withLock { $0 } }

    /// Stops serving and closes the socket.
    public func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }

    private func serve(_ answer: [UInt8]) {
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 1500)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            var from = sockaddr_storage()
            var fromLen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let n = withUnsafeMutablePointer(to: &from) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, &buf, buf.count, 0, $0, &fromLen) } }
            guard n >= 12 else { continue }
            let q = Array(buf[0..<n])
            guard let reply = Self.reply(to: q, answer: answer) else { continue }
            queries.withLock { $0.append(reply.name) }
            _ = withUnsafePointer(to: &from) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, reply.bytes, reply.bytes.count, 0, $0, fromLen) } }
        }
    }

    static func reply(to q: [UInt8], answer: [UInt8]) -> (name: String, bytes: [UInt8])? {
        var i = 12
        var labels: [String] = []
        while i < q.count, q[i] != 0 {
            let len = Int(q[i])
            guard len < 64, i + 1 + len <= q.count else { return nil }
            labels.append(String(decoding: q[(i + 1)..<(i + 1 + len)], as: UTF8.self))
            i += 1 + len
        }
        guard i + 5 <= q.count else { return nil }
        let qtype = Int(q[i + 1]) << 8 | Int(q[i + 2])
        let questionEnd = i + 5
        var r = Array(q[0..<questionEnd])
        r[2] = 0x81 | (q[2] & 0x01)  // QR, opcode 0, RD copied
        r[3] = 0x80                  // RA, NOERROR
        r[4] = 0; r[5] = 1
        r[8] = 0; r[9] = 0; r[10] = 0; r[11] = 0
        if qtype == 1 {
            r[6] = 0; r[7] = 1
            r += [0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4] + answer
        } else {
            r[6] = 0; r[7] = 0
        }
        return (labels.joined(separator: "."), r)
    }
}

