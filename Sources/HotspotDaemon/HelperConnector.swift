// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol
import Synchronization

/// Makes the transports of helpers on the bus, and keeps the cap on command channels: each holds
/// a socket and up to a message's worth of the daemon's memory.
final class HelperConnector: Sendable {
    let bus: Connection
    /// The most command channels open at once (far more helpers than any machine runs).
    let maximumChannels: Int
    /// The most a helper's answer on its command channel may hold (claims for every network of a
    /// long scan list, with passwords, are far less).
    static let channelMaximumMessage = 4 << 20
    static let defaultMaximumChannels = 64
    private let channels = Mutex(0)

    init(bus: Connection, maximumChannels: Int = HelperConnector.defaultMaximumChannels) {
        self.bus = bus
        self.maximumChannels = maximumChannels
    }

    /// How many command channels are open.
    var openChannels: Int { channels.withLock { $0 } }

    /// The transport to the helper whose connection `sender` registered the object at `path`, and
    /// the helper's end of its command channel when it asked for one and one is free (past the
    /// cap its commands go through the bus). `gone` is called, at most once, when the helper
    /// leaves the bus or its channel closes under it, with the transport and why; a helper gone
    /// before the engine took the transport says so in ``RemoteHelperTransport/left``.
    func connect(sender: String, path: ObjectPath, wantsChannel: Bool,
                 gone: @escaping @Sendable (_ transport: RemoteHelperTransport, _ why: String) async -> Void,
                 rerouted: @escaping @Sendable (_ transport: RemoteHelperTransport, _ why: String) async -> Void)
        async throws -> (transport: RemoteHelperTransport, channel: FileDescriptor?) {
        guard let destination = try? BusName(sender) else {
            throw HotspotError(.invalidArgs, "the caller has no valid bus name")
        }
        let transport = RemoteHelperTransport(bus: bus, uniqueName: sender, destination: destination, path: path, gone: gone, rerouted: rerouted)
        // Watch the caller first: if it vanishes right after registering, it is still noticed.
        let rule = MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             member: "NameOwnerChanged", arguments: [0: sender])
        let changes = try await bus.signals(matching: rule)
        // Outlives register: the helper's departure watch, owned by its transport, which cancels it on close.
        transport.attach(watch: Task {
            for await signal in changes where signal.body.count == 3 && signal.body[2].string == "" {
                await transport.departed("it left the bus")
                return
            }
        })
        guard try await bus.nameOwner(destination) != nil else {
            await transport.close(reason: "the caller left the bus while registering")
            throw HotspotError(.invalidArgs, "the caller left the bus while registering")
        }
        guard wantsChannel else { return (transport, nil) }
        let hasSlot = channels.withLock { open in
            guard open < maximumChannels else { return false }
            open += 1
            return true
        }
        guard hasSlot else { return (transport, nil) }
        let release: @Sendable () -> Void = { [self] in channels.withLock { $0 -= 1 } }
        do {
            let (mine, theirs) = try Connection.socketPair()
            // The callbacks run on the bus thread, which must not wait on the engine: the transport
            // decides under its lock and hops off it to tell the engine.
            _ = try await bus.adoptPeerLink(mine, role: .server, acceptsCalls: false, maximumMessageSize: Self.channelMaximumMessage,
                                            named: { transport.attach(link: $0, release: release) },
                                            opened: { _ in transport.channelOpened() },
                                            onClose: { link, reason in transport.channelClosed(link, reason: reason) })
            return (transport, theirs)
        } catch {
            release()
            await transport.close(reason: "no command channel")
            throw error
        }
    }
}
