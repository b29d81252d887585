// SPDX-License-Identifier: Apache-2.0
import Connectivity
import FoundationEssentials
import Synchronization

/// An ``HTTPTransport`` that answers from a script and records every request, for tests of the
/// checker, the WISPr and RFC 8908 clients and the sign-in without sockets: what was asked of
/// which host, with which body, is read back from ``requests``.
public final class ScriptedTransport: HTTPTransport {
    /// One request as the code under test made it.
    public struct Request: Sendable {
        public var spec: HTTPRequestSpec
        public var options: TransferOptions
        public var host: String? { LoginHosts.host(of: spec.url) }
        public var bodyText: String { spec.body.map { String(decoding: $0, as: UTF8.self) } ?? "" }
    }

    public typealias Responder = @Sendable (HTTPRequestSpec) -> Result<HTTPAnswer, TransferError>
    private let responder: Responder
    private let log = Mutex<[Request]>([])

    /// Answers each request with `responder`'s result.
    public init(_ responder: @escaping Responder) { self.responder = responder }

    /// Every request made so far, in order.
    public var requests: [Request] { log.withLock { $0 } }

    public func start(_ request: HTTPRequestSpec, options: TransferOptions,
                      completion: @escaping @Sendable (Result<HTTPAnswer, TransferError>) -> Void) -> any TransferHandle {
        log.withLock { $0.append(Request(spec: request, options: options)) }
        completion(responder(request))
        return Done()
    }

    private struct Done: TransferHandle { func cancel() {} }
}

extension HTTPAnswer {
    /// A scripted answer: `status`, optional `Location`, body text.
    public static func scripted(_ url: String, status: Int, location: String? = nil, body: String = "", headers: [HTTPField] = []) -> HTTPAnswer {
        HTTPAnswer(status: status, headers: headers + (location.map { [HTTPField("Location", $0)] } ?? []), body: Data(body.utf8), url: url)
    }
}
