// SPDX-License-Identifier: Apache-2.0
import Foundation

/// How a slow router behaves (`GatewayFront.slowRouter`): the shape of openNDS on a small router,
/// which forks a shell library for every request and serves one request at a time.
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

extension GatewayFront {
    /// The front of a slow router: serves the connections of clients not signed in one at a
    /// time — each answered only after the delay, the others waiting in the accept queue, whether
    /// or not their client has given up on them (a request abandoned by its client still costs the
    /// gateway its delay). Before interception starts for a client its connections are reset, or
    /// held open and never answered. Signed-in clients' connections pass at once, in parallel
    /// (their traffic no longer goes through the portal).
    /// Listens on `host:port` (0: any free port) in front of `innerPort` on 127.0.0.1. `event`
    /// gets (client, kind, detail) for what the gateway did.
    static func slowRouter(host: String, port: UInt16, innerPort: UInt16, settings: SlowRouterSettings,
                           isSignedIn: @escaping @Sendable (String) -> Bool,
                           event: @escaping @Sendable (String, String, String) -> Void) throws -> GatewayFront {
        let interceptAfter = Duration.milliseconds(Int64(settings.interceptAfter * 1000))
        return try GatewayFront(host: host, port: port, innerPort: innerPort) { connection in
            let client = connection.client
            if isSignedIn(client) || connection.isGatewayItself {
                connection.relay()
            } else if connection.sinceFirst < interceptAfter {
                if settings.silentBeforeInterception {
                    event(client, "silent", "")
                    connection.holdUnanswered()
                } else {
                    connection.reset()
                    event(client, "refused-connection", "")
                }
            } else {
                // One at a time: the next connection waits in the accept queue meanwhile.
                let delay = Double.random(in: settings.delay)
                event(client, "slow-router-wait", String(format: "%.1f s", delay))
                Thread.sleep(forTimeInterval: delay)
                connection.relayInTurn()
            }
        }
    }
}
