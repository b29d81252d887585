// SPDX-License-Identifier: Apache-2.0
import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

/// A simulated hotspot: an HTTP server that plays a captive portal in one of several modes,
/// answers any Host header (probe names are resolved to it, e.g. by `SimulatorDNS`), and records
/// what clients did. Sessions are per client IP address.
///
/// Endpoints on every host: probe paths (anything not listed here) answer as the real endpoints do
/// when the client is online; `/portal`, `/portal/accept`, `/portal/extend`, `/login`, `/wispr/login`,
/// `/wispr/results`, `/wispr/logoff`, `/wispr/abort`, `/api/captive` (RFC 8908), and
/// `/__sim/events` (JSON list of `SimulatorEvent`), `/__sim/reset` (forget sessions and events),
/// `/__sim/venue-change` (`VenueSwitch.change()` on the venue's switch, for a simulator run as a program).
public final class PortalSimulator: Sendable {
    private struct State {
        var sessions: [String: Session] = [:]
        var events: [SimulatorEvent] = []
        var pendingTokens: [String: String] = [:]
        var nextToken = 1
        var server: HTTPServer?
        var task: Task<Void, any Error>?
        var observers: [@Sendable () -> Void] = []
        /// The front on the public address (a refusing gateway or a slow router), if any.
        var gate: GatewayFront?
        var splash: (server: HTTPServer, task: Task<Void, any Error>)?
        /// Requests answered per client (slowFirstRequests).
        var requests: [String: Int] = [:]
    }
    /// The configuration.
    public let configuration: PortalSimulatorConfiguration
    private let state = Mutex(State())
    private let started = ContinuousClock.now
    /// When the simulator was made (a flapping portal's phases count from it).
    var startedAt: ContinuousClock.Instant { started }

    /// A simulator (not yet listening).
    public init(configuration: PortalSimulatorConfiguration) {
        self.configuration = configuration
    }

    /// Starts listening on `host` (an IPv4 address) and `port` (0: any free port); returns the port.
    /// With `refuseSeconds` or `slowRouter`, a ``GatewayFront`` listens there and the HTTP server
    /// on loopback behind it; with `splashPort` (get-forms), the HTTP server listens on `host` there too.
    public func start(host: String = "127.0.0.1", port: UInt16 = 0) async throws -> UInt16 {
        let gated = configuration.refuseSeconds > 0 || configuration.slowRouter != nil
        let (server, task, p) = try await listen(host: gated ? "127.0.0.1" : host, port: gated ? 0 : port)
        state.withLock { $0.server = server; $0.task = task }
        if let splashPort = configuration.splashPort, splashPort != port {
            let (s, t, _) = try await listen(host: host, port: splashPort)
            state.withLock { $0.splash = (s, t) }
        }
        guard gated else { return p }
        let gate: GatewayFront
        if let slow = configuration.slowRouter {
            gate = try .slowRouter(host: host, port: port, innerPort: p, settings: slow, isSignedIn: { [self] in isSignedIn($0) }) { [self] client, kind, detail in
                record(Req(client: client), kind, detail)
            }
        } else {
            gate = try .refusing(host: host, port: port, innerPort: p, refuseSeconds: configuration.refuseSeconds) { [self] client in
                record(Req(client: client), "refused-connection")
            }
        }
        state.withLock { $0.gate = gate }
        return gate.port
    }

    private func listen(host: String, port: UInt16) async throws -> (HTTPServer, Task<Void, any Error>, UInt16) {
        let address = try sockaddr_in.inet(ip4: host, port: port)
        let server = HTTPServer(config: HTTPServer.Configuration(address: address, timeout: 600, logger: .disabled),
                                handler: ClosureHTTPHandler { [self] request in await handle(request) })
        let task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 10)
        guard let bound = await server.listeningAddress, case let .ip4(_, port: p) = bound else {
            throw SocketError.unsupportedAddress
        }
        return (server, task, p)
    }

    /// The client a request is from: behind the gate, the one it relayed the connection for.
    func client(of r: Req) -> String {
        guard r.client == "127.0.0.1", let port = r.port else { return r.client }
        return state.withLock { $0.gate }?.client(relayedFrom: port) ?? r.client
    }

    /// Counts a client's request; true while it is one of its first `slowFirstRequests`.
    func isAmongFirstRequests(_ client: String) -> Bool {
        state.withLock { s in
            s.requests[client, default: 0] += 1
            return s.requests[client]! <= configuration.slowFirstRequests
        }
    }

    /// Stops listening and closes connections.
    public func stop() async {
        let (server, task, gate, splash) = state.withLock { s in
            defer { s.server = nil; s.task = nil; s.gate = nil; s.splash = nil }
            return (s.server, s.task, s.gate, s.splash)
        }
        gate?.stop()
        await splash?.server.stop(timeout: 0.2)
        splash?.task.cancel()
        await server?.stop(timeout: 0.2)
        task?.cancel()
    }

    /// What clients did so far.
    public func events() -> [SimulatorEvent] { state.withLock { $0.events } }

    /// Calls `observer` after each event is recorded (on the simulator's thread; keep it short),
    /// so a test waits for what clients do instead of polling ``events()``.
    public func onEvent(_ observer: @escaping @Sendable () -> Void) { state.withLock { $0.observers.append(observer) } }

    /// Forgets sessions and events.
    public func reset() { state.withLock { s in s.sessions = [:]; s.events = []; s.pendingTokens = [:]; s.requests = [:] } }

    /// Whether `client` (an IP address) is signed in now.
    public func isSignedIn(_ client: String) -> Bool {
        state.withLock { s in
            guard let session = s.sessions[client] else { return false }
            guard let expiry = session.expiry else { return true }
            return ContinuousClock.now < expiry
        }
    }

    /// Signs `client` in (for `seconds`, or without expiry).
    public func signIn(_ client: String, seconds: Int? = nil) {
        state.withLock { $0.sessions[client] = Session(expiry: seconds.map { ContinuousClock.now + .seconds($0) }) }
    }

    /// Signs `client` out.
    public func signOut(_ client: String) { state.withLock { _ = $0.sessions.removeValue(forKey: client) } }

    func secondsRemaining(_ client: String) -> Int? {
        state.withLock { s in
            guard let expiry = s.sessions[client]?.expiry else { return nil }
            let left = ContinuousClock.now.duration(to: expiry).components.seconds
            return left > 0 ? Int(left) : 0
        }
    }

    func record(_ r: Req, _ kind: String, _ detail: String = "") {
        let time = Double((ContinuousClock.now - started).components.attoseconds) / 1e18 + Double((ContinuousClock.now - started).components.seconds)
        let observers = state.withLock { s in
            s.events.append(SimulatorEvent(time: time, client: r.client, method: r.method, host: r.host, path: r.path, kind: kind, detail: detail))
            return s.observers
        }
        for o in observers { o() }
    }

    func newToken(for client: String) -> String {
        state.withLock { s in
            let t = String(s.nextToken)
            s.nextToken += 1
            s.pendingTokens[t] = client
            return t
        }
    }

    func takeToken(_ t: String) -> String? { state.withLock { $0.pendingTokens.removeValue(forKey: t) } }

    func eventsJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(events())) ?? Data("[]".utf8)
    }
}

/// A signed-in client; no expiry means until logoff.
struct Session: Sendable {
    var expiry: ContinuousClock.Instant?
}

/// The parts of a request the simulator looks at.
struct Req: Sendable {
    var method: String
    var host: String
    var hostWithPort: String
    var path: String
    var query: [String: String]
    var form: [String: String]
    var client: String
    /// The peer's port (to tell the gate's relayed connections apart).
    var port: UInt16?

    /// A request that never reached HTTP (a connection the gate reset).
    init(client: String) {
        method = "-"; host = ""; hostWithPort = ""; path = ""; query = [:]; form = [:]
        self.client = client
    }

    init(_ request: HTTPRequest) async {
        method = request.method.rawValue
        hostWithPort = request.headers[.host] ?? "localhost"
        host = Req.stripPort(hostWithPort)
        path = request.path
        query = Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        switch request.remoteAddress {
        case let .ip4(ip, port: p)?, let .ip6(ip, port: p)?:
            client = ip
            port = p
        default: client = "unknown"
        }
        let body = (try? await request.bodyData) ?? Data()
        form = Req.parseForm(String(decoding: body.prefix(64 * 1024), as: UTF8.self))
    }

    static func stripPort(_ h: String) -> String {
        if h.hasPrefix("["), let close = h.firstIndex(of: "]") { return String(h[h.index(after: h.startIndex)..<close]) }
        if let colon = h.lastIndex(of: ":"), h.filter({ $0 == ":" }).count == 1 { return String(h[..<colon]) }
        return h
    }

    static func parseForm(_ s: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in s.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ x: Substring) -> String { String(x).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(x) }
            if let k = kv.first { out[decode(k)] = kv.count > 1 ? decode(kv[1]) : "" }
        }
        return out
    }
}
