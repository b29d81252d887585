// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
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

/// A small DNS stub client (A and AAAA over UDP) whose queries leave through one interface
/// (SO_BINDTODEVICE) to that link's DNS servers, as NetworkManager reports them. Probes use it
/// because Debian's libcurl (threaded resolver) cannot be told which DNS servers to use: the
/// answers are handed to libcurl through CURLOPT_RESOLVE. Blocking: call it from a thread that may
/// block (each probe has its own).
public enum LinkDNSResolver {
    /// Resolves `host` through `servers` (tried in order; the first that answers wins), with
    /// sockets bound to `interface` when given. Returns IPv4 addresses before IPv6 ones.
    public static func resolve(host: String, servers: [String], interface: String?, timeout: Duration) -> Result<[String], TransferError> {
        if IPAddress.isLiteral(host) { return .success([host]) }
        var lastError = TransferError(.dns, "no DNS server for \(host)")
        for server in servers {
            guard let endpoint = Endpoint(server) else {
                lastError = TransferError(.dns, "invalid DNS server '\(server)'")
                continue
            }
            switch query(host: host, endpoint: endpoint, interface: interface, timeout: timeout) {
            case .success(let addrs) where !addrs.isEmpty: return .success(addrs)
            case .success: lastError = TransferError(.dns, "\(host): no A or AAAA record from \(server)")
            case .failure(let e): lastError = e
            }
        }
        return .failure(lastError)
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

    static func query(host: String, endpoint: Endpoint, interface: String?, timeout: Duration) -> Result<[String], TransferError> {
        let fd = socket(endpoint.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return .failure(TransferError(.dns, "socket: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        if let interface {
            let ok = interface.withCString { name in
                setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name, socklen_t(strlen(name) + 1)) == 0
            }
            if !ok { return .failure(TransferError(.dns, "cannot bind DNS query to \(interface): \(String(cString: strerror(errno)))")) }
        }
        var connected: Int32 = -1
        if endpoint.isIPv6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = endpoint.port.bigEndian
            let parts = endpoint.address.split(separator: "%", maxSplits: 1)
            _ = inet_pton(AF_INET6, String(parts[0]), &sa.sin6_addr)
            if parts.count == 2 { sa.sin6_scope_id = if_nametoindex(String(parts[1])) }
            connected = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = endpoint.port.bigEndian
            _ = inet_pton(AF_INET, endpoint.address, &sa.sin_addr)
            connected = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard connected == 0 else { return .failure(TransferError(.dns, "DNS server \(endpoint.address) unreachable: \(String(cString: strerror(errno)))")) }

        let idA = UInt16.random(in: 1...UInt16.max), idAAAA = idA &+ 1
        for (id, type) in [(idA, UInt16(1)), (idAAAA, UInt16(28))] {
            let q = DNSMessage.query(id: id, name: host, type: type)
            let sent = q.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            if sent < 0 { return .failure(TransferError(.dns, "DNS send: \(String(cString: strerror(errno)))")) }
        }
        var v4: [String]? = nil, v6: [String]? = nil
        var nameError = false
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 1500)
        while v4 == nil || v6 == nil {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { break }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(max(1, HTTPTransfer.milliseconds(left))))
            if r <= 0 { if r < 0 && errno == EINTR { continue }; break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { if n < 0 && errno == ECONNREFUSED { return .failure(TransferError(.dns, "DNS server \(endpoint.address) refused")) }; continue }
            guard let answer = DNSMessage.parse(Array(buffer[0..<n])) else { continue }
            if answer.id == idA { v4 = answer.addresses; nameError = nameError || answer.rcode == 3 }
            else if answer.id == idAAAA { v6 = answer.addresses; nameError = nameError || answer.rcode == 3 }
            if (v4?.isEmpty == false) && v6 == nil && ContinuousClock.now.duration(to: deadline) > .zero {
                // An A answer is enough once AAAA had a short moment to arrive.
                var p2 = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&p2, 1, 50) <= 0 { break }
            }
        }
        let all = (v4 ?? []) + (v6 ?? [])
        if all.isEmpty {
            if v4 == nil && v6 == nil { return .failure(TransferError(.dns, "no answer from DNS server \(endpoint.address) for \(host)")) }
            return .failure(TransferError(.dns, nameError ? "\(host): no such name" : "\(host): no address"))
        }
        return .success(all)
    }
}

/// DNS wire format: just enough for one question and A/AAAA answers.
enum DNSMessage {
    struct Answer {
        var id: UInt16
        var rcode: Int
        var addresses: [String]
    }

    static func query(id: UInt16, name: String, type: UInt16) -> [UInt8] {
        var b: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xff), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        for label in name.split(separator: ".") {
            let bytes = Array(label.utf8.prefix(63))
            b.append(UInt8(bytes.count))
            b.append(contentsOf: bytes)
        }
        b.append(0)
        b.append(contentsOf: [UInt8(type >> 8), UInt8(type & 0xff), 0, 1])
        return b
    }

    /// Skips a (possibly compressed) name; nil when malformed.
    static func skipName(_ b: [UInt8], _ start: Int) -> Int? {
        var i = start
        while i < b.count {
            let len = Int(b[i])
            if len == 0 { return i + 1 }
            if len & 0xC0 == 0xC0 { return i + 2 <= b.count ? i + 2 : nil }
            i += 1 + len
        }
        return nil
    }

    static func parse(_ b: [UInt8]) -> Answer? {
        guard b.count >= 12, b[2] & 0x80 != 0 else { return nil }
        let id = UInt16(b[0]) << 8 | UInt16(b[1])
        let rcode = Int(b[3] & 0x0f)
        let qd = Int(b[4]) << 8 | Int(b[5]), an = Int(b[6]) << 8 | Int(b[7])
        var i = 12
        for _ in 0..<qd {
            guard let next = skipName(b, i) else { return nil }
            i = next + 4
        }
        var addresses: [String] = []
        for _ in 0..<an {
            guard let next = skipName(b, i), next + 10 <= b.count else { break }
            let type = Int(b[next]) << 8 | Int(b[next + 1])
            let rdlen = Int(b[next + 8]) << 8 | Int(b[next + 9])
            let rdata = next + 10
            guard rdata + rdlen <= b.count else { break }
            if type == 1 && rdlen == 4 {
                addresses.append(b[rdata..<rdata + 4].map(String.init).joined(separator: "."))
            } else if type == 28 && rdlen == 16 {
                var a = in6_addr()
                withUnsafeMutableBytes(of: &a) { $0.copyBytes(from: b[rdata..<rdata + 16]) }
                var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                if inet_ntop(AF_INET6, &a, &out, socklen_t(out.count)) != nil { addresses.append(out.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }) }
            }
            i = rdata + rdlen
        }
        return Answer(id: id, rcode: rcode, addresses: addresses)
    }
}
