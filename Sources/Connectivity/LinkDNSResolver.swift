// SPDX-License-Identifier: Apache-2.0
import CAres
import FoundationEssentials
import HotspotCore
#if canImport(Glibc)
import Glibc
#endif

/// Address-literal helpers.
enum IPAddress {
    static func isLiteral(_ host: String) -> Bool { isIPv4(host) || isIPv6(host) }

    static func isIPv4(_ s: String) -> Bool {
        var a = in_addr()
        return inet_pton(AF_INET, s, &a) == 1
    }

    static func isIPv6(_ s: String) -> Bool {
        var a = in6_addr()
        let bare = s.split(separator: "%", maxSplits: 1).first.map(String.init) ?? s
        return inet_pton(AF_INET6, bare, &a) == 1
    }
}

/// DNS on one link, through c-ares: queries leave through that interface (SO_BINDTODEVICE) to the
/// link's own DNS servers, as NetworkManager reports them. Probes use it because Debian's libcurl
/// (threaded resolver) cannot be told which DNS servers to use: the answers are handed to libcurl
/// through CURLOPT_RESOLVE. c-ares checks that an answer matches its question (ID, name, type and
/// class), retries a truncated UDP answer over TCP and asks for A and AAAA. Blocking: call it from
/// a thread that may block (each probe has its own).
public enum LinkDNSResolver {
    private static let libraryReady: Bool = ares_library_init(ARES_LIB_INIT_ALL) == ARES_SUCCESS

    /// Resolves `host` through `servers` (`ADDRESS`, `ADDRESS:PORT` or `[V6]:PORT`; tried in
    /// order), with every socket bound to `interface` when given — a socket that cannot be bound
    /// is not used, so no query leaves through another interface. IPv4 addresses come first.
    public static func resolve(host: String, servers: [String], interface: String?, timeout: Duration) -> Result<[String], TransferError> {
        if IPAddress.isLiteral(host) { return .success([host]) }
        guard libraryReady else { return .failure(TransferError(.dns, "c-ares could not be initialised")) }
        var endpoints: [String] = []
        for server in servers {
            guard let e = Endpoint(server) else { return .failure(TransferError(.dns, "invalid DNS server '\(UntrustedText.forLog(server))'")) }
            endpoints.append(e.isIPv6 ? "[\(e.address)]:\(e.port)" : "\(e.address):\(e.port)")
        }
        guard !endpoints.isEmpty else { return .failure(TransferError(.dns, "no DNS server for \(host)")) }

        var options = ares_options()
        // DNS only (no /etc/hosts), no search domains, each try waits a share of the timeout.
        options.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES
        options.timeout = Int32(clamping: max(100, HTTPTransfer.milliseconds(timeout) / 4))
        options.tries = 2
        var channel: ares_channel?
        let initialised = "b".withCString { lookups -> Int32 in
            options.lookups = UnsafeMutablePointer(mutating: lookups)
            return ares_init_options(&channel, &options, ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_LOOKUPS)
        }
        guard initialised == ARES_SUCCESS, let channel else {
            return .failure(TransferError(.dns, "c-ares: \(String(cString: ares_strerror(initialised)))"))
        }
        defer { ares_destroy(channel) }
        let set = endpoints.joined(separator: ",").withCString { ares_set_servers_ports_csv(channel, $0) }
        guard set == ARES_SUCCESS else { return .failure(TransferError(.dns, "c-ares refused the DNS servers: \(String(cString: ares_strerror(set)))")) }

        let query = Query(interface: interface)
        let context = Unmanaged.passRetained(query)
        defer { context.release() }
        if interface != nil {
            // c-ares's own ares_set_local_dev ignores a failed SO_BINDTODEVICE; this callback
            // binds each new socket itself and makes c-ares drop one it cannot bind.
            ares_set_socket_callback(channel, { fd, _, raw in
                let query = Unmanaged<Query>.fromOpaque(raw!).takeUnretainedValue()
                return query.bind(fd) ? ARES_SUCCESS : -1
            }, context.toOpaque())
        }
        var hints = ares_addrinfo_hints()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = ARES_AI_NOSORT  // sorting connects UDP sockets to every address, unbound
        host.withCString { name in
            ares_getaddrinfo(channel, name, nil, &hints, { raw, status, _, result in
                let query = Unmanaged<Query>.fromOpaque(raw!).takeUnretainedValue()
                query.finish(status: status, result: result)
                if let result { ares_freeaddrinfo(result) }
            }, context.toOpaque())
        }
        let deadline = ContinuousClock.now + timeout
        while !query.done {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero {
                ares_cancel(channel)  // calls back with ARES_ECANCELLED
                break
            }
            var sockets = [ares_socket_t](repeating: ARES_SOCKET_BAD, count: Int(ARES_GETSOCK_MAXNUM))
            let bits = ares_getsock(channel, &sockets, Int32(ARES_GETSOCK_MAXNUM))
            var fds: [pollfd] = []
            for i in 0..<Int(ARES_GETSOCK_MAXNUM) {
                var events: Int16 = 0
                if hotspot_ares_readable(bits, Int32(i)) != 0 { events |= Int16(POLLIN) }
                if hotspot_ares_writable(bits, Int32(i)) != 0 { events |= Int16(POLLOUT) }
                if events != 0 { fds.append(pollfd(fd: sockets[i], events: events, revents: 0)) }
            }
            var maxWait = timeval(tv_sec: Int(HTTPTransfer.milliseconds(left) / 1000), tv_usec: Int((HTTPTransfer.milliseconds(left) % 1000) * 1000))
            var next = timeval()
            let wait = ares_timeout(channel, &maxWait, &next).map { Int32(clamping: $0.pointee.tv_sec * 1000 + $0.pointee.tv_usec / 1000) } ?? 100
            let r = poll(&fds, nfds_t(fds.count), max(1, wait))
            if r < 0 && errno == EINTR { continue }
            if r <= 0 {
                ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD)  // timeouts and retries
                continue
            }
            for p in fds where p.revents != 0 {
                let readable = p.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 ? p.fd : ARES_SOCKET_BAD
                let writable = p.revents & Int16(POLLOUT) != 0 ? p.fd : ARES_SOCKET_BAD
                ares_process_fd(channel, readable, writable)
            }
        }
        return query.result(host: host, interface: interface, servers: endpoints)
    }

    /// One lookup's state, reached from c-ares's callbacks (all on the calling thread).
    final class Query {
        let interface: String?
        var done = false
        var status: Int32 = ARES_ETIMEOUT
        var v4: [String] = [], v6: [String] = []
        var bindFailure: String?

        init(interface: String?) { self.interface = interface }

        func bind(_ fd: ares_socket_t) -> Bool {
            guard let interface else { return true }
            let ok = interface.withCString { setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, $0, socklen_t(strlen($0) + 1)) == 0 }
            if !ok { bindFailure = "cannot bind DNS queries to \(interface): \(String(cString: strerror(errno)))" }
            return ok
        }

        func finish(status: Int32, result: UnsafeMutablePointer<ares_addrinfo>?) {
            done = true
            self.status = status
            var node = result?.pointee.nodes
            while let n = node {
                var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                var text: String { String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
                if n.pointee.ai_family == AF_INET, let sa = n.pointee.ai_addr {
                    var a = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    if inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count)) != nil { v4.append(text) }
                } else if n.pointee.ai_family == AF_INET6, let sa = n.pointee.ai_addr {
                    var a = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    if inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count)) != nil { v6.append(text) }
                }
                node = n.pointee.ai_next
            }
        }

        func result(host: String, interface: String?, servers: [String]) -> Result<[String], TransferError> {
            if let bindFailure { return .failure(TransferError(.dns, bindFailure)) }
            let all = v4 + v6
            if status == ARES_SUCCESS && !all.isEmpty { return .success(all) }
            switch status {
            case ARES_SUCCESS, ARES_ENODATA: return .failure(TransferError(.dns, "\(host): no address"))
            case ARES_ENOTFOUND: return .failure(TransferError(.dns, "\(host): no such name"))
            case ARES_ETIMEOUT, ARES_ECANCELLED:
                return .failure(TransferError(.dns, "no answer for \(host) from \(servers.joined(separator: ", "))\(interface.map { " on \($0)" } ?? "")"))
            case ARES_ECONNREFUSED: return .failure(TransferError(.dns, "DNS server \(servers.joined(separator: ", ")) refused"))
            default: return .failure(TransferError(.dns, "\(host): \(String(cString: ares_strerror(status)))"))
            }
        }
    }

    struct Endpoint {
        var address: String
        var port: UInt16
        var isIPv6: Bool

        init?(_ s: String) {
            var host = s, port: UInt16 = 53
            if s.hasPrefix("["), let close = s.firstIndex(of: "]") {
                host = String(s[s.index(after: s.startIndex)..<close])
                let rest = s[s.index(after: close)...]
                if rest.hasPrefix(":") { guard let p = UInt16(rest.dropFirst()) else { return nil }; port = p }
            } else if s.filter({ $0 == ":" }).count == 1, let colon = s.firstIndex(of: ":") {
                host = String(s[..<colon])
                guard let p = UInt16(s[s.index(after: colon)...]) else { return nil }
                port = p
            }
            guard IPAddress.isLiteral(host) else { return nil }
            self.address = host
            self.port = port
            self.isIPv6 = IPAddress.isIPv6(host)
        }
    }
}
