// SPDX-License-Identifier: Apache-2.0
import CCurl
import CLazyLibraries
import FoundationEssentials
import SystemSupport
import Synchronization

/// Runs HTTP transfers with libcurl. Each transfer has its own easy handle and runs on a thread
/// of its own, so blocking I/O never occupies the Swift cooperative pool.
public enum HTTPTransfer {
    /// Performs `request` and returns the answer or why there is none. Cancelling the task
    /// aborts the transfer (libcurl notices within its progress-callback period).
    public static func perform(_ request: HTTPRequestSpec, options: TransferOptions) async -> Result<HTTPAnswer, TransferError> {
        await CurlTransport().perform(request, options: options)
    }

    /// Starts `request` on a thread of its own and calls `completion` there when it ends.
    /// The returned job can be cancelled.
    static func start(_ request: HTTPRequestSpec, options: TransferOptions,
                      completion: @escaping @Sendable (Result<HTTPAnswer, TransferError>) -> Void) -> TransferJob {
        let job = TransferJob(request: request, options: options)
        job.start(completion)
        return job
    }

    /// Performs `request` on the calling thread. Only for threads that may block.
    static func performBlocking(_ request: HTTPRequestSpec, options: TransferOptions,
                                isCancelled: @escaping @Sendable () -> Bool = { false }) -> Result<HTTPAnswer, TransferError> {
        let sink = TransferSink(cap: options.maxBodyBytes, lowSpeed: options, isCancelled: isCancelled)
        return runCurl(request, options: options, sink: sink)
    }

    /// Whether this libcurl accepts CURLOPT_DNS_SERVERS (only builds with c-ares do; Debian's
    /// libcurl4-openssl uses the threaded resolver and answers CURLE_NOT_BUILT_IN).
    public static let curlSupportsDNSServers: Bool = {
        ensureGlobalInit()
        guard let h = curl_easy_init() else { return false }
        defer { curl_easy_cleanup(h) }
        return hotspot_curl_setopt_str(h, CURLOPT_DNS_SERVERS, "127.0.0.1") == CURLE_OK
    }()

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()
    static func ensureGlobalInit() { _ = globalInit }

    static func runCurl(_ request: HTTPRequestSpec, options: TransferOptions, sink: TransferSink) -> Result<HTTPAnswer, TransferError> {
        ensureGlobalInit()
        guard let parts = URLParts(request.url) else {
            return .failure(TransferError(.invalidRequest, "not an http(s) URL: \(request.url)"))
        }
        var resolveEntries: [String] = []
        if !parts.hostIsLiteral {
            if let fixed = options.staticHosts[parts.host] {
                resolveEntries.append(curlResolveEntry(host: parts.host, port: parts.port, addresses: fixed))
            } else if !options.dnsServers.isEmpty {
                // The link's DNS gets the connect bound: a slow gateway's resolver is waited for as
                // long as its HTTP server would be.
                switch LinkDNSResolver.resolve(host: parts.host, servers: options.dnsServers, interface: options.interface,
                                               timeout: options.connectTimeout) {
                case .success(let all):
                    let addresses = options.addressFamily.map { f in all.filter { IPAddress.isIPv6($0) == (f == .ipv6) } } ?? all
                    guard !addresses.isEmpty else {
                        return .failure(TransferError(.dns, "\(parts.host): no \(options.addressFamily?.rawValue ?? "") address"))
                    }
                    resolveEntries.append(curlResolveEntry(host: parts.host, port: parts.port, addresses: addresses))
                case .failure(let e):
                    return .failure(e)
                }
            }
        }
        if sink.isCancelled() { return .failure(TransferError(.cancelled, "cancelled")) }

        guard let h = curl_easy_init() else {
            // libcurl is loaded at its first use (Sources/CLazyLibraries): say why it is missing.
            let why = hh_curl_load_error().map { String(cString: $0) }
            return .failure(TransferError(.other, why ?? "curl_easy_init failed"))
        }
        defer { curl_easy_cleanup(h) }
        var lists: [UnsafeMutablePointer<curl_slist>?] = []
        defer { lists.forEach { curl_slist_free_all($0) } }
        func slist(_ items: [String]) -> UnsafeMutablePointer<curl_slist>? {
            var list: UnsafeMutablePointer<curl_slist>? = nil
            for i in items { list = curl_slist_append(list, i) }
            lists.append(list)
            return list
        }

        // Every option is checked: a transfer whose interface binding, resolve list, TLS checks
        // or limits could not be set does not run at all (it would otherwise leave through
        // another interface, or unverified).
        var refused: String?
        func check(_ code: CURLcode, _ what: String) {
            if code != CURLE_OK, refused == nil { refused = "\(what): \(String(cString: curl_easy_strerror(code)))" }
        }
        check(hotspot_curl_setopt_str(h, CURLOPT_URL, request.url), "CURLOPT_URL")
        check(hotspot_curl_setopt_long(h, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        check(hotspot_curl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        check(hotspot_curl_setopt_str(h, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        check(hotspot_curl_setopt_long(h, CURLOPT_SSL_VERIFYPEER, 1), "CURLOPT_SSL_VERIFYPEER")
        check(hotspot_curl_setopt_long(h, CURLOPT_SSL_VERIFYHOST, 2), "CURLOPT_SSL_VERIFYHOST")
        check(hotspot_curl_setopt_long(h, CURLOPT_FORBID_REUSE, 1), "CURLOPT_FORBID_REUSE")
        check(hotspot_curl_setopt_long(h, CURLOPT_FRESH_CONNECT, 1), "CURLOPT_FRESH_CONNECT")
        check(hotspot_curl_setopt_long(h, CURLOPT_TIMEOUT_MS, milliseconds(options.timeout)), "CURLOPT_TIMEOUT_MS")
        check(hotspot_curl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(options.connectTimeout)), "CURLOPT_CONNECTTIMEOUT_MS")
        check(hotspot_curl_setopt_str(h, CURLOPT_USERAGENT, options.userAgent), "CURLOPT_USERAGENT")
        check(hotspot_curl_setopt_str(h, CURLOPT_ACCEPT_ENCODING, nil), "CURLOPT_ACCEPT_ENCODING")
        if let interface = options.interface {
            check(hotspot_curl_setopt_str(h, CURLOPT_INTERFACE, "if!" + interface), "CURLOPT_INTERFACE")
        }
        if let family = options.addressFamily {
            check(hotspot_curl_setopt_long(h, CURLOPT_IPRESOLVE, family == .ipv6 ? 2 : 1), "CURLOPT_IPRESOLVE")  // CURL_IPRESOLVE_V6 / _V4
        }
        if let ca = options.caFile { check(hotspot_curl_setopt_str(h, CURLOPT_CAINFO, ca), "CURLOPT_CAINFO") }
        if !resolveEntries.isEmpty { check(hotspot_curl_setopt_slist(h, CURLOPT_RESOLVE, slist(resolveEntries)), "CURLOPT_RESOLVE") }
        check(hotspot_curl_setopt_slist(h, CURLOPT_HTTPHEADER, slist(["Connection: close", "Cache-Control: no-cache"] + request.headers)), "CURLOPT_HTTPHEADER")
        if request.method == "POST" {
            check(hotspot_curl_setopt_long(h, CURLOPT_POST, 1), "CURLOPT_POST")
        } else if request.method != "GET" {
            check(hotspot_curl_setopt_str(h, CURLOPT_CUSTOMREQUEST, request.method), "CURLOPT_CUSTOMREQUEST")
        }
        let body = request.body ?? Data()
        let bodyBytes = UnsafeMutableRawPointer.allocate(byteCount: max(1, body.count), alignment: 1)
        defer { bodyBytes.deallocate() }
        body.copyBytes(to: bodyBytes.assumingMemoryBound(to: UInt8.self), count: body.count)
        if request.method == "POST" {
            check(hotspot_curl_setopt_long(h, CURLOPT_POSTFIELDSIZE, body.count), "CURLOPT_POSTFIELDSIZE")
            check(hotspot_curl_setopt_ptr(h, CURLOPT_POSTFIELDS, bodyBytes), "CURLOPT_POSTFIELDS")
        }

        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        check(hotspot_curl_setopt_write(h, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let sink = Unmanaged<TransferSink>.fromOpaque(user!).takeUnretainedValue()
            let n = size * count
            return sink.appendBody(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
        }, "CURLOPT_WRITEFUNCTION")
        check(hotspot_curl_setopt_ptr(h, CURLOPT_WRITEDATA, context.toOpaque()), "CURLOPT_WRITEDATA")
        check(hotspot_curl_setopt_write(h, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let sink = Unmanaged<TransferSink>.fromOpaque(user!).takeUnretainedValue()
            let n = size * count
            sink.appendHeaderLine(String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self))
            return n
        }, "CURLOPT_HEADERFUNCTION")
        check(hotspot_curl_setopt_ptr(h, CURLOPT_HEADERDATA, context.toOpaque()), "CURLOPT_HEADERDATA")
        check(hotspot_curl_setopt_long(h, CURLOPT_NOPROGRESS, 0), "CURLOPT_NOPROGRESS")
        // The low-speed limit is the sink's, not libcurl's: libcurl's counts the wait for the first
        // byte too, so a gateway that takes 8 s to answer would end as a "timeout" after 2 s
        // whatever the transfer's own limit. Waiting for the answer is bounded by `timeout`;
        // once it has started, a trickle (slow-loris) is cut off as before.
        check(hotspot_curl_setopt_xferinfo(h) { user, _, dlnow, _, _ in
            let sink = Unmanaged<TransferSink>.fromOpaque(user!).takeUnretainedValue()
            return sink.isCancelled() || sink.tooSlow(received: Int(dlnow)) ? 1 : 0
        }, "CURLOPT_XFERINFOFUNCTION")
        check(hotspot_curl_setopt_ptr(h, CURLOPT_XFERINFODATA, context.toOpaque()), "CURLOPT_XFERINFODATA")
        if let refused { return .failure(TransferError(.invalidRequest, "cannot set \(refused); nothing was sent")) }

        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code = errorBuffer.withUnsafeMutableBufferPointer { buf -> CURLcode in
            let set = hotspot_curl_setopt_ptr(h, CURLOPT_ERRORBUFFER, buf.baseAddress)
            return set == CURLE_OK ? curl_easy_perform(h) : set
        }
        let buffered = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let message = buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
        var status = 0
        _ = hotspot_curl_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        let (bodyData, truncated, headers) = sink.snapshot()
        if code == CURLE_OK || (code == CURLE_WRITE_ERROR && truncated) {
            return .success(HTTPAnswer(status: status, headers: headers, body: bodyData, bodyTruncated: truncated, url: request.url))
        }
        if code == CURLE_ABORTED_BY_CALLBACK, !sink.isCancelled(), sink.wasTooSlow {
            return .failure(TransferError(.timeout, "the answer came slower than \(options.lowSpeedBytesPerSecond) bytes/s for \(options.lowSpeedTime)"))
        }
        return .failure(TransferError(kind(of: code, cancelled: sink.isCancelled()), message))
    }

    static func kind(of code: CURLcode, cancelled: Bool) -> TransferError.Kind {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .dns
        case CURLE_COULDNT_CONNECT: return .refused
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CRL_BADFILE, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED:
            return .tls
        case CURLE_ABORTED_BY_CALLBACK: return cancelled ? .cancelled : .other
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT: return .invalidRequest
        default: return .other
        }
    }

    static func milliseconds(_ d: Duration) -> Int {
        let c = d.components
        return Int(c.seconds) * 1000 + Int(c.attoseconds / 1_000_000_000_000_000)
    }

    static func curlResolveEntry(host: String, port: Int, addresses: [String]) -> String {
        "\(host):\(port):" + addresses.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")
    }
}

/// The host and port of an http(s) URL, as CURLOPT_RESOLVE needs them.
struct URLParts: Sendable, Hashable {
    var scheme: String
    var host: String
    var port: Int
    var hostIsLiteral: Bool

    init?(_ url: String) {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https",
              var host = c.host, !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.scheme = scheme
        self.host = host
        self.port = c.port ?? (scheme == "https" ? 443 : 80)
        self.hostIsLiteral = IPAddress.isLiteral(host)
    }
}

/// The state libcurl's callbacks write into. Callbacks run on the transfer's own thread while
/// `cancel` may come from any thread, hence the mutex.
final class TransferSink: Sendable {
    private struct State {
        var body = Data()
        var truncated = false
        var headers: [HTTPField] = []
        var cancelled = false
        /// Whether any of the answer has arrived (its status line).
        var answering = false
        /// Where the current low-speed window began: when, and the body bytes then.
        var window: (start: ContinuousClock.Instant, bytes: Int)?
        var tooSlow = false
    }
    private let state = Mutex(State())
    private let cap: Int
    private let lowSpeedBytesPerSecond: Int
    private let lowSpeedTime: Duration
    private let externalCancel: @Sendable () -> Bool

    init(cap: Int, lowSpeed options: TransferOptions = TransferOptions(), isCancelled: @escaping @Sendable () -> Bool = { false }) {
        self.cap = cap
        self.lowSpeedBytesPerSecond = options.lowSpeedBytesPerSecond
        self.lowSpeedTime = options.lowSpeedTime
        self.externalCancel = isCancelled
    }

    /// The low-speed limit, counted from the first byte of the answer: true (stop) when fewer
    /// than `lowSpeedBytesPerSecond × lowSpeedTime` body bytes came in a window of `lowSpeedTime`.
    func tooSlow(received: Int, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { s in
            guard s.answering, lowSpeedBytesPerSecond > 0 else { return false }
            guard let w = s.window else { s.window = (now, received); return false }
            let spent = now - w.start
            guard spent >= lowSpeedTime else { return false }
            let seconds = Double(spent.components.seconds) + Double(spent.components.attoseconds) / 1e18
            if Double(received - w.bytes) < Double(lowSpeedBytesPerSecond) * seconds {
                s.tooSlow = true
                return true
            }
            s.window = (now, received)
            return false
        }
    }

    /// Whether the transfer was stopped by the low-speed limit.
    var wasTooSlow: Bool { state.withLock { $0.tooSlow } }

    func cancel() { state.withLock { $0.cancelled = true } }
    func isCancelled() -> Bool { state.withLock { $0.cancelled } || externalCancel() }

    /// Appends body bytes; false (stop the transfer) once the cap is reached.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { s in
            let room = cap - s.body.count
            if bytes.count <= room {
                s.body.append(contentsOf: bytes)
                return true
            }
            if room > 0 { s.body.append(contentsOf: bytes.prefix(room)) }
            s.truncated = true
            return false
        }
    }

    func appendHeaderLine(_ line: String) {
        let trimmed = line.trimmingWhitespace
        state.withLock { s in
            s.answering = true
            if trimmed.hasPrefix("HTTP/") { s.headers.removeAll(); return }
            guard let colon = trimmed.firstIndex(of: ":") else { return }
            let name = String(trimmed[..<colon]).trimmingWhitespace
            let value = String(trimmed[trimmed.index(after: colon)...]).trimmingWhitespace
            s.headers.append(HTTPField(name, value))
        }
    }

    func snapshot() -> (Data, Bool, [HTTPField]) { state.withLock { ($0.body, $0.truncated, $0.headers) } }
}

/// One transfer on its own thread.
final class TransferJob: Sendable {
    let request: HTTPRequestSpec
    let options: TransferOptions
    let sink: TransferSink

    init(request: HTTPRequestSpec, options: TransferOptions) {
        self.request = request
        self.options = options
        self.sink = TransferSink(cap: options.maxBodyBytes, lowSpeed: options)
    }

    func start(_ completion: @escaping @Sendable (Result<HTTPAnswer, TransferError>) -> Void) {
        let started = DetachedThread.start(name: "hotspot-probe") { [self] in
            completion(HTTPTransfer.runCurl(request, options: options, sink: sink))
        }
        if !started { completion(.failure(TransferError(.other, "no thread for the transfer (pthread_create failed)"))) }
    }

    func cancel() { sink.cancel() }
}
