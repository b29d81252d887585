// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The reply to a call made with ``Connection/callNow(destination:path:interface:member:body:timeout:)``.
public final class PendingReply: Sendable {
    struct Call: Sendable {
        let destination: BusName?
        let path: ObjectPath
        let interface: InterfaceName?
        let member: MemberName
        let body: [DBusValue]
        let timeout: Duration
        /// The peer link it goes over, or nil for the bus.
        let link: String?
    }

    private struct State {
        var call: Call?
        /// Whether the call was handed to the connection's thread to send (``Connection/callNow(destination:path:interface:member:body:timeout:)``
        /// off that thread): awaiting the reply then waits, without a hop there of its own.
        var handedOver = false
        var serial: UInt32?
        var result: Result<Message, DBusError>?
        var waiters: [CheckedContinuation<Message, any Error>] = []
    }

    private let connection: Connection
    private let state: Mutex<State>

    init(connection: Connection, destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
                     body: [DBusValue], timeout: Duration, link: String? = nil) {
        self.connection = connection
        state = Mutex(State(call: Call(destination: destination, path: path, interface: interface, member: member, body: body,
                                       timeout: timeout, link: link)))
    }

    /// The call to send, once.
    func take() -> Call? { state.withLock { s in defer { s.call = nil }; return s.call } }
    func handOver() { state.withLock { $0.handedOver = true } }
    func sent(_ serial: UInt32) { state.withLock { $0.serial = serial } }
    var serial: UInt32? { state.withLock { $0.serial } }

    /// Whether the call has left (callNow sends it at once on the connection's thread, and hands
    /// it to that thread from anywhere else).
    public var wasSent: Bool { state.withLock { $0.serial != nil } }

    func fulfill(_ result: Result<Message, DBusError>) {
        let waiters = state.withLock { s -> [CheckedContinuation<Message, any Error>] in
            guard s.result == nil else { return [] }
            s.result = result
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(with: result.mapError { $0 as any Error }) }
    }

    /// The reply message. Throws as ``Connection/callMessage(destination:path:interface:member:body:timeout:autoStart:interactive:)``
    /// does; cancelling a task that awaits it cancels the call (for every task awaiting it).
    public func message() async throws -> Message {
        if state.withLock({ $0.call != nil && !$0.handedOver }) { await connection.start(self) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Message, any Error>) in
                let done = state.withLock { s -> Result<Message, DBusError>? in
                    if s.result == nil { s.waiters.append(c) }
                    return s.result
                }
                if let done { c.resume(with: done.mapError { $0 as any Error }) }
            }
        } onCancel: {
            Task { await self.connection.cancel(self) }
        }
    }

    /// The reply's body.
    public func body() async throws -> [DBusValue] { try await message().body }
}
