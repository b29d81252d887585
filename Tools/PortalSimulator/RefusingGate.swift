// SPDX-License-Identifier: Apache-2.0
extension GatewayFront {
    /// The front of a gateway that lets a new client through only a while after its first packet:
    /// it resets (TCP RST, nothing answered) every connection of a client for `refuseSeconds` after
    /// that client's first one, and relays the rest; `refused` gets the client of each reset.
    /// Listens on `host:port` (0: any free port) in front of `innerPort` on 127.0.0.1.
    static func refusing(host: String, port: UInt16, innerPort: UInt16, refuseSeconds: Double,
                         refused: @escaping @Sendable (String) -> Void) throws -> GatewayFront {
        let window = Duration.milliseconds(Int64(refuseSeconds * 1000))
        return try GatewayFront(host: host, port: port, innerPort: innerPort) { connection in
            if !connection.isGatewayItself, connection.sinceFirst < window {
                connection.reset()
                refused(connection.client)
            } else {
                connection.relay()
            }
        }
    }
}
