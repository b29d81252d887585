// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Synchronization

/// A stand-in DHCP server for RFC 8910 tests: a UDP socket on `host:port` (loopback, an unused
/// port) that answers each DHCPINFORM at its source address and port, as dnsmasq does, with a
/// DHCPACK carrying option 114 = `uri` (nil: no option 114). Written from RFC 2131 by hand, not
/// with the daemon's parser, so the two check each other. It records what it received.
public final class DHCPStandIn: Sendable {
    /// One INFORM as the stand-in saw it.
    public struct Request: Sendable {
        public var ciaddr: String
        public var requested: [UInt8]
        public var sourcePort: UInt16
    }

    public let port: UInt16
    private let fd: Int32
    private let uri: String?
    private let received = Mutex<[Request]>([])
    private let stopped = Atomic<Bool>(false)

    /// Starts answering on `host` (port 0: an ephemeral one).
    public init(host: String = "127.0.0.1", port: UInt16 = 0, uri: String?) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw TestKitError.startFailed("socket: \(String(cString: strerror(errno)))") }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, host, &sa.sin_addr)
        let fd = self.fd
        guard withUnsafePointer(to: &sa, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }) == 0 else {
            close(fd)
            throw TestKitError.startFailed("bind \(host):\(port): \(String(cString: strerror(errno)))")
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        self.port = UInt16(bigEndian: sa.sin_port)
        self.uri = uri
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The INFORMs received so far.
    public var requests: [Request] { received.withLock { $0 } }

    public func stop() {
        if stopped.exchange(true, ordering: .sequentiallyConsistent) { return }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    deinit { stop(); close(fd) }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 1500)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            var from = sockaddr_in()
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let n = withUnsafeMutablePointer(to: &from) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &len) } }
            guard n >= 244, buffer[0] == 1, Array(buffer[236..<240]) == [99, 130, 83, 99] else { continue }
            var options: [UInt8: [UInt8]] = [:]
            var i = 240
            while i + 1 < n, buffer[i] != 255 {
                if buffer[i] == 0 { i += 1; continue }
                let l = Int(buffer[i + 1])
                guard i + 2 + l <= n else { break }
                options[buffer[i]] = Array(buffer[(i + 2)..<(i + 2 + l)])
                i += 2 + l
            }
            guard options[53] == [8] else { continue }  // DHCPINFORM only
            let ciaddr = buffer[12..<16].map(String.init).joined(separator: ".")
            received.withLock { $0.append(Request(ciaddr: ciaddr, requested: options[55] ?? [], sourcePort: UInt16(bigEndian: from.sin_port))) }
            var reply = [UInt8](repeating: 0, count: 236)
            reply[0] = 2; reply[1] = 1; reply[2] = 6
            reply.replaceSubrange(4..<8, with: buffer[4..<8])      // xid
            reply.replaceSubrange(12..<16, with: buffer[12..<16])  // ciaddr
            reply.replaceSubrange(28..<44, with: buffer[28..<44])  // chaddr
            reply += [99, 130, 83, 99, 53, 1, 5, 54, 4, 127, 0, 0, 1, 1, 4, 255, 255, 255, 0]
            if let uri {  // like dnsmasq's dhcp-option-force: sent whether requested or not
                let bytes = Array(uri.utf8.prefix(255))
                reply += [114, UInt8(bytes.count)] + bytes
            }
            reply += [255]
            _ = withUnsafePointer(to: &from) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, reply, reply.count, 0, $0, len) } }
        }
    }
}
