// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The front of a simulated gateway, in front of the simulator's HTTP server on loopback: it
/// listens on the simulator's public address and hands each connection, with how long since its
/// client's first, to the gateway's rule (`refusing`, RefusingGate.swift; `slowRouter`,
/// SlowRouter.swift), which resets it, holds it unanswered or relays it; the front remembers which
/// client each relayed connection is for (the server sees the relay's address).
final class GatewayFront: Sendable {
    private let listener: Int32
    let port: UInt16
    private let innerPort: UInt16
    /// The gateway's own address: the AP side asking its simulator for its events (the lab) is
    /// not a client.
    private let host: String
    private struct State {
        var firstSeen: [String: ContinuousClock.Instant] = [:]
        /// The relay's local port of each relayed connection → the client's address.
        var clients: [UInt16: String] = [:]
        var stopped = false
    }
    private let state = Mutex(State())
    private let arrived: @Sendable (Arrival) -> Void

    /// A connection just accepted. The gate does exactly one thing with it: `reset()`,
    /// `holdUnanswered()`, `relay()` or `relayInTurn()`.
    struct Arrival: Sendable {
        fileprivate let socket: Int32
        fileprivate let front: GatewayFront
        /// The client's IPv4 address.
        let client: String
        /// How long since this client's first connection (zero for the first).
        let sinceFirst: Duration
        /// From the gateway's own address (not a client). On loopback the test's client is the
        /// gateway's own address, so there it is a client like any.
        let isGatewayItself: Bool

        /// TCP RST, nothing answered. SO_LINGER 0: close sends a reset, as a firewall's REJECT
        /// --reject-with tcp-reset.
        func reset() {
            var l = linger(l_onoff: 1, l_linger: 0)
            setsockopt(socket, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
            close(socket)
        }

        /// Read until the client gives up, answering nothing (on a thread of its own).
        func holdUnanswered() {
            let c = socket
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while buffer.withUnsafeMutableBytes({ read(c, $0.baseAddress, $0.count) }) > 0 {}
                close(c)
            }
        }

        /// Relay to the HTTP server on a thread of its own, beside the other connections.
        func relay() {
            let (c, front, client) = (socket, front, client)
            Thread.detachNewThread { front.relay(c, client: client) }
        }

        /// Relay to the HTTP server on the accept loop's thread: the next connection waits in the
        /// accept queue until this one ends.
        func relayInTurn() { front.relay(socket, client: client) }
    }

    /// Listens on `host:port` (0: any free port) in front of `innerPort` on 127.0.0.1; each
    /// connection accepted goes to `arrived`, on the accept loop's thread.
    init(host: String, port: UInt16, innerPort: UInt16, arrived: @escaping @Sendable (Arrival) -> Void) throws {
        let (fd, bound) = try boundIPv4Socket(type: Int32(SOCK_STREAM.rawValue), host: host, port: port)
        guard listen(fd, 64) == 0 else { let e = errno; close(fd); throw SimulatorError("cannot listen on \(host):\(port): errno \(e)") }
        self.listener = fd
        self.port = bound
        self.innerPort = innerPort
        self.host = host
        self.arrived = arrived
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The client a connection from the relay's `localPort` is for.
    func client(relayedFrom localPort: UInt16) -> String? { state.withLock { $0.clients[localPort] } }

    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            var peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let c = withUnsafeMutablePointer(to: &peer) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) } }
            if c < 0 {
                if state.withLock({ $0.stopped }) { return }
                continue
            }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &peer.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
            let client = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let now = ContinuousClock.now
            let first = state.withLock { s -> ContinuousClock.Instant in
                if let t = s.firstSeen[client] { return t }
                s.firstSeen[client] = now
                return now
            }
            arrived(Arrival(socket: c, front: self, client: client, sinceFirst: now - first,
                            isGatewayItself: client == host && host != "127.0.0.1"))
        }
    }

    fileprivate func relay(_ c: Int32, client: String) {
        let u = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var inner = sockaddr_in()
        inner.sin_family = sa_family_t(AF_INET)
        inner.sin_port = innerPort.bigEndian
        inner.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &inner) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(u, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard u >= 0, connected == 0 else { close(c); if u >= 0 { close(u) }; return }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(u, $0, &length) } }
        let localPort = UInt16(bigEndian: local.sin_port)
        state.withLock { $0.clients[localPort] = client }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { Self.pump(from: c, to: u); done.signal() }
        Self.pump(from: u, to: c)
        done.wait()
        state.withLock { _ = $0.clients.removeValue(forKey: localPort) }
        close(c)
        close(u)
    }

    /// Copies until `from` ends, then ends the write side of `to`.
    private static func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var sent = 0
            while sent < n {
                let m = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                if m <= 0 { shutdown(to, Int32(SHUT_WR)); return }
                sent += m
            }
        }
        shutdown(to, Int32(SHUT_WR))
    }
}
