// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import SystemSupport
import Synchronization

/// One HTTP request made by a probe, the RFC 8908 client or the WISPr client.
public struct HTTPRequestSpec: Sendable, Hashable {
    /// The absolute URL (http or https).
    public var url: String
    /// The method: GET or POST.
    public var method: String
    /// Extra request header lines, each "Name: value".
    public var headers: [String]
    /// The request body (POST only).
    public var body: Data?

    /// A request; `headers` are "Name: value" lines.
    public init(url: String, method: String = "GET", headers: [String] = [], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// How one transfer is made: which link it leaves through, how names resolve and its limits.
/// Redirects are never followed by libcurl itself.
public struct TransferOptions: Sendable, Hashable {
    /// The network interface the connection is bound to (CURLOPT_INTERFACE, SO_BINDTODEVICE).
    public var interface: String?
    /// DNS servers of that link ("192.0.2.53", "192.0.2.53:5353", "[2001:db8::53]:53"). Names are
    /// resolved by `LinkDNSResolver` over these servers, bound to `interface`, and handed to libcurl
    /// through CURLOPT_RESOLVE. Empty: libcurl resolves through the system resolver.
    public var dnsServers: [String]
    /// Fixed answers "host" → addresses, used before any DNS (tests, and IP-literal portals).
    public var staticHosts: [String: [String]]
    /// The whole transfer's deadline.
    public var timeout: Duration
    /// The TCP and TLS connect deadline.
    public var connectTimeout: Duration
    /// Bytes of body kept; the transfer stops there and the response is marked truncated.
    public var maxBodyBytes: Int
    /// Below this many bytes per second for `lowSpeedTime` the transfer is a timeout (slow-loris).
    public var lowSpeedBytesPerSecond: Int
    /// See `lowSpeedBytesPerSecond`.
    public var lowSpeedTime: Duration
    /// A PEM file of trusted CAs instead of the system store (tests trust a test CA this way).
    public var caFile: String?
    /// The User-Agent header.
    public var userAgent: String
    /// Only this address family (CURLOPT_IPRESOLVE, and only its addresses from the link's DNS);
    /// nil: either.
    public var addressFamily: AddressFamily?

    /// An IP version.
    public enum AddressFamily: String, Sendable, Hashable { case ipv4 = "IPv4", ipv6 = "IPv6" }

    /// Options with the defaults probes use: 5 s overall, 3 s connect, 256 KiB of body,
    /// slower than 64 B/s for 2 s counts as a timeout.
    public init(interface: String? = nil, dnsServers: [String] = [], staticHosts: [String: [String]] = [:],
                timeout: Duration = .seconds(5), connectTimeout: Duration = .seconds(3),
                maxBodyBytes: Int = 256 * 1024, lowSpeedBytesPerSecond: Int = 64, lowSpeedTime: Duration = .seconds(2),
                caFile: String? = nil, userAgent: String = "hotspot-helper/1 (CaptiveNetworkSupport)") {
        self.interface = interface
        self.dnsServers = dnsServers
        self.staticHosts = staticHosts
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxBodyBytes = maxBodyBytes
        self.lowSpeedBytesPerSecond = lowSpeedBytesPerSecond
        self.lowSpeedTime = lowSpeedTime
        self.caFile = caFile
        self.userAgent = userAgent
        self.addressFamily = nil
    }
}

/// An HTTP answer: status, headers and (at most `maxBodyBytes` of) the body.
public struct HTTPAnswer: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields in order, names as sent.
    public var headers: [HTTPField]
    /// The body, cut at the configured limit.
    public var body: Data
    /// True when the body was longer than the limit and the transfer was stopped there.
    public var bodyTruncated: Bool
    /// The URL that was fetched.
    public var url: String

    /// An answer (tests build these to drive classification without a network).
    public init(status: Int, headers: [HTTPField] = [], body: Data = Data(), bodyTruncated: Bool = false, url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
        self.url = url
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The body decoded as UTF-8 (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// One header field.
public struct HTTPField: Sendable, Hashable {
    /// The name as sent.
    public var name: String
    /// The value, trimmed.
    public var value: String
    /// A field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Why a transfer produced no HTTP answer.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, as classification reports it.
    public enum Kind: String, Sendable, Hashable {
        /// The name did not resolve (NXDOMAIN, no answer, DNS server unreachable).
        case dns
        /// TLS handshake or certificate verification failed.
        case tls
        /// A deadline passed, or the peer was slower than the low-speed limit.
        case timeout
        /// The connection was refused or the host unreachable.
        case refused
        /// The transfer was cancelled by its caller.
        case cancelled
        /// The URL or a request option was rejected before any I/O.
        case invalidRequest
        /// Anything else (reset connection, protocol error).
        case other
    }
    /// The kind.
    public var kind: Kind
    /// libcurl's or the resolver's message; never contains request bodies.
    public var detail: String

    /// An error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
