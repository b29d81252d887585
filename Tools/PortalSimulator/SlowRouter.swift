// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// How a slow router behaves (``SlowRouterGate``): the shape of openNDS on a small router, which
/// forks a shell library for every request and serves one request at a time.
public struct SlowRouterSettings: Sendable, Hashable {
    /// Every answer to a client not signed in comes this long after the request reached the
    /// front of the queue (a value drawn in the range for each request).
    public var delay: ClosedRange<Double>
    /// Interception starts this long after a client's first connection; before, its connections
    /// are reset (the firewall does not know the client yet) or, with `silentBeforeInterception`,
    /// held open and never answered.
    public var interceptAfter: Double
    /// Before interception: nothing at all is answered (instead of resets).
    public var silentBeforeInterception: Bool

    /// Defaults: 6–10 s per answer, interception 3 s after the first packet, resets before.
    public init(delay: ClosedRange<Double> = 6...10, interceptAfter: Double = 3, silentBeforeInterception: Bool = false) {
        self.delay = delay
        self.interceptAfter = interceptAfter
        self.silentBeforeInterception = silentBeforeInterception
    }
}

/// The front of a slow router: listens on the simulator's public address and serves the
/// connections of clients not signed in one at a time — each answered only after the delay,
/// the others waiting in the accept queue, whether or not their client has given up on them
/// (a request abandoned by its client still costs the gateway its delay). Before interception
/// starts for a client its connections are reset, or held open and never answered. Signed-in clients'
/// connections pass at once, in parallel (their traffic no longer goes through the portal).
final class SlowRouterGate: Sendable {
    private let listener: Int32
    let port: UInt16
    private let innerPort: UInt16
    private let settings: SlowRouterSettings
    private struct State {
        var firstSeen: [String: ContinuousClock.Instant] = [:]
        var clients: [UInt16: String] = [:]
        var stopped = false
    }
    private let state = Mutex(State())
    private let isSignedIn: @Sendable (String) -> Bool
    private let event: @Sendable (String, String, String) -> Void
    /// The gateway's own address: the AP side asking its simulator for its events (the lab) is
    /// not a client to slow down.
    private let host: String

    /// Listens on `host:port` (0: any free port) in front of `innerPort` on 127.0.0.1. `event`
    /// gets (client, kind, detail) for what the gateway did.
    init(host: String, port: UInt16, innerPort: UInt16, settings: SlowRouterSettings,
         isSignedIn: @escaping @Sendable (String) -> Bool, event: @escaping @Sendable (String, String, String) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RefusingGate.GateError("socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { close(fd); throw RefusingGate.GateError("not an IPv4 address: \(host)") }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw RefusingGate.GateError("bind/listen \(host):\(port): errno \(errno)") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.listener = fd
        self.port = UInt16(bigEndian: actual.sin_port)
        self.innerPort = innerPort
        self.settings = settings
        self.isSignedIn = isSignedIn
        self.event = event
        self.host = host
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
            if isSignedIn(client) || (client == host && host != "127.0.0.1") {
                Thread.detachNewThread { [self] in relay(c, client: client) }
                continue
            }
            if now - first < .milliseconds(Int64(settings.interceptAfter * 1000)) {
                if settings.silentBeforeInterception {
                    event(client, "silent", "")
                    Thread.detachNewThread { Self.holdUnanswered(c) }
                } else {
                    // SO_LINGER 0: close sends a reset, as a firewall's REJECT --reject-with tcp-reset.
                    var l = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(c, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
                    close(c)
                    event(client, "refused-connection", "")
                }
                continue
            }
            // One at a time: the next connection waits in the accept queue meanwhile.
            let delay = Double.random(in: settings.delay)
            event(client, "slow-router-wait", String(format: "%.1f s", delay))
            Thread.sleep(forTimeInterval: delay)
            relay(c, client: client)
        }
    }

    /// Reads until the client gives up, answering nothing.
    private static func holdUnanswered(_ c: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(c, $0.baseAddress, $0.count) }) > 0 {}
        close(c)
    }

    private func relay(_ c: Int32, client: String) {
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
