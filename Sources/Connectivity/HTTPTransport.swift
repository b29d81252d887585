// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Where the product's HTTP goes: the seam between what the connectivity checker, the WISPr
/// and RFC 8908 clients and the sign-in decide and how a request leaves. ``CurlTransport`` (libcurl
/// on the link: bound to the interface, resolved through the link's DNS) is the implementation
/// the daemon uses; tests give a scripted one and check what was asked without sockets.
public protocol HTTPTransport: Sendable {
    /// Starts `request`; `completion` is called exactly once, on any thread, with the answer or
    /// why there is none. The handle cancels the transfer.
    func start(_ request: HTTPRequestSpec, options: TransferOptions,
               completion: @escaping @Sendable (Result<HTTPAnswer, TransferError>) -> Void) -> any TransferHandle
}

/// A transfer under way.
public protocol TransferHandle: Sendable {
    /// Aborts the transfer; its completion then reports `cancelled` (unless it ended first).
    func cancel()
}

extension HTTPTransport {
    /// Performs `request` and returns the answer or why there is none. Cancelling the task
    /// cancels the transfer.
    public func perform(_ request: HTTPRequestSpec, options: TransferOptions) async -> Result<HTTPAnswer, TransferError> {
        let handle = HandleBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<HTTPAnswer, TransferError>, Never>) in
                handle.set(start(request, options: options) { c.resume(returning: $0) })
            }
        } onCancel: {
            handle.cancel()
        }
    }
}

/// libcurl, one easy handle and one thread per transfer (HTTPTransfer): what the daemon uses.
public struct CurlTransport: HTTPTransport {
    public init() {}

    public func start(_ request: HTTPRequestSpec, options: TransferOptions,
                      completion: @escaping @Sendable (Result<HTTPAnswer, TransferError>) -> Void) -> any TransferHandle {
        HTTPTransfer.start(request, options: options, completion: completion)
    }
}

extension TransferJob: TransferHandle {}

/// The handle of a transfer that may be cancelled before `start` has returned it.
private final class HandleBox: Sendable {
    private let state = Mutex<(handle: (any TransferHandle)?, cancelled: Bool)>((nil, false))

    func set(_ handle: any TransferHandle) {
        let cancelNow = state.withLock { s -> Bool in
            s.handle = handle
            return s.cancelled
        }
        if cancelNow { handle.cancel() }
    }

    func cancel() {
        let handle = state.withLock { s -> (any TransferHandle)? in
            s.cancelled = true
            return s.handle
        }
        handle?.cancel()
    }
}
