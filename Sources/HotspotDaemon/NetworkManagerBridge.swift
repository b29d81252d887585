import DBus
import HotspotCore
import Logging

/// Connects NetworkManager to the engine: its signals become core events, the core's decisions
/// become NetworkManager calls. (Filled in with the NetworkManager module.)
final class NetworkManagerBridge: NetworkControl, Sendable {
    let bus: Connection
    weak let engine: Engine?
    let log: Logger

    init(bus: Connection, engine: Engine, log: Logger) {
        self.bus = bus
        self.engine = engine
        self.log = log
    }

    func follow() async {}

    func disconnect(interface: InterfaceID) async throws {}

    func setAutoconnect(_ enabled: Bool, connection: ConnectionID) async throws {}
}
