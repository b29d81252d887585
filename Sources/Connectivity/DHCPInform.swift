// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import SystemSupport
import Glibc

/// RFC 8910 over DHCPv4: a DHCPINFORM (RFC 2131 §3.4) asking for option 114 (the captive-portal
/// API URI), and the validation of the server's DHCPACK. Pure: bytes in, bytes or a verdict out.
/// NetworkManager (1.42) neither requests nor exposes option 114, so the daemon asks itself.
public enum DHCPInform {
    /// Option 114, "DHCP Captive-Portal" (RFC 8910 §2.1).
    public static let captivePortalOption: UInt8 = 114
    /// The URI that says "no captive portal here" (RFC 8910 §2).
    public static let unrestricted = "urn:ietf:params:capport:unrestricted"
    /// The longest URI accepted (one DHCP option holds 255 bytes; RFC 3396 concatenation could
    /// hold more, but no portal needs it).
    public static let maxURIBytes = 255
    /// The longest datagram read (RFC 2131 §2: 576 by default; servers may send up to an MTU).
    public static let maxPacketBytes = 1500
    static let magicCookie: [UInt8] = [99, 130, 83, 99]
    static let fixedHeaderBytes = 236

    /// A DHCPINFORM from `clientAddress` (the lease address, as ciaddr) with transaction `xid`,
    /// asking (option 55) for the subnet mask, router, DNS servers and option 114. `hardwareAddress`
    /// (6 bytes, the interface's MAC) fills chaddr; zeros when unknown.
    public static func request(xid: UInt32, clientAddress: [UInt8], hardwareAddress: [UInt8]? = nil) -> [UInt8] {
        precondition(clientAddress.count == 4, "ciaddr is an IPv4 address")
        var p = [UInt8](repeating: 0, count: fixedHeaderBytes)
        p[0] = 1  // op: BOOTREQUEST
        p[1] = 1  // htype: Ethernet
        p[2] = 6  // hlen
        p[4] = UInt8(xid >> 24); p[5] = UInt8(xid >> 16 & 0xff); p[6] = UInt8(xid >> 8 & 0xff); p[7] = UInt8(xid & 0xff)
        p.replaceSubrange(12..<16, with: clientAddress)  // ciaddr; flags stay 0 (unicast reply)
        if let mac = hardwareAddress, mac.count == 6 { p.replaceSubrange(28..<34, with: mac) }
        p += magicCookie
        p += [53, 1, 8]  // DHCP message type: DHCPINFORM
        p += [55, 4, 1, 3, 6, captivePortalOption]  // parameter request list
        if let mac = hardwareAddress, mac.count == 6 { p += [61, 7, 1] + mac }  // client identifier
        p += [255]
        if p.count < 300 { p += [UInt8](repeating: 0, count: 300 - p.count) }  // BOOTP minimum
        return p
    }

    /// Why an answer was not used. Descriptions are safe to log (no network text unescaped).
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case tooShort(Int)
        case tooLong(Int)
        case notAReply(UInt8)
        case otherTransaction
        case noMagicCookie
        case malformedOptions(String)
        case notAnAck(UInt8?)
        case badURI(String)

        public var description: String {
            switch self {
            case .tooShort(let n): "a \(n)-byte datagram is too short for DHCP"
            case .tooLong(let n): "a \(n)-byte datagram is longer than \(DHCPInform.maxPacketBytes)"
            case .notAReply(let op): "op \(op) is not BOOTREPLY"
            case .otherTransaction: "the transaction id is not ours"
            case .noMagicCookie: "no DHCP magic cookie"
            case .malformedOptions(let why): "malformed options: \(why)"
            case .notAnAck(let t): "message type \(t.map(String.init) ?? "missing") is not DHCPACK (5)"
            case .badURI(let why): "the captive-portal URI was rejected: \(why)"
            }
        }
    }

    /// What a valid DHCPACK said about the captive portal.
    public enum Answer: Sendable, Equatable {
        /// Option 114 named this RFC 8908 API (https).
        case api(String)
        /// Option 114 said `urn:ietf:params:capport:unrestricted`: no portal.
        case unrestricted
        /// The ACK carried no option 114.
        case none
    }

    /// Validates `packet` as the DHCPACK to the INFORM with `xid` and reads option 114.
    public static func parseReply(_ packet: [UInt8], xid: UInt32) -> Result<Answer, Problem> {
        guard packet.count <= maxPacketBytes else { return .failure(.tooLong(packet.count)) }
        guard packet.count >= fixedHeaderBytes + 4 else { return .failure(.tooShort(packet.count)) }
        guard packet[0] == 2 else { return .failure(.notAReply(packet[0])) }
        let got = UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
        guard got == xid else { return .failure(.otherTransaction) }
        guard Array(packet[fixedHeaderBytes..<fixedHeaderBytes + 4]) == magicCookie else { return .failure(.noMagicCookie) }
        let options: [UInt8: [UInt8]]
        switch self.options(packet[(fixedHeaderBytes + 4)...]) {
        case .success(let o): options = o
        case .failure(let p): return .failure(p)
        }
        let type = options[53].flatMap { $0.count == 1 ? $0[0] : nil }
        guard type == 5 else { return .failure(.notAnAck(type)) }
        guard let raw = options[captivePortalOption] else { return .success(.none) }
        return captivePortalURI(raw)
    }

    /// Reads the options area: code, length, value; pad (0) and end (255) have no length. Repeated
    /// codes are concatenated (RFC 3396). An option running past the packet is an error.
    static func options(_ area: ArraySlice<UInt8>) -> Result<[UInt8: [UInt8]], Problem> {
        var out: [UInt8: [UInt8]] = [:]
        var i = area.startIndex
        while i < area.endIndex {
            let code = area[i]
            if code == 0 { i += 1; continue }
            if code == 255 { return .success(out) }
            guard i + 1 < area.endIndex else { return .failure(.malformedOptions("option \(code) has no length")) }
            let length = Int(area[i + 1])
            let start = i + 2
            guard start + length <= area.endIndex else {
                return .failure(.malformedOptions("option \(code) claims \(length) bytes; \(area.endIndex - start) are left"))
            }
            out[code, default: []] += area[start..<start + length]
            i = start + length
        }
        return .failure(.malformedOptions("no end option"))
    }

    /// Option 114's value as an RFC 8908 API: printable ASCII, at most `maxURIBytes`, https with
    /// a host (RFC 8908 §2 requires TLS), or the "unrestricted" URN.
    static func captivePortalURI(_ raw: [UInt8]) -> Result<Answer, Problem> {
        guard !raw.isEmpty else { return .failure(.badURI("it is empty")) }
        guard raw.count <= maxURIBytes else { return .failure(.badURI("\(raw.count) bytes, more than \(maxURIBytes)")) }
        guard raw.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            return .failure(.badURI("it holds bytes other than printable ASCII (spaces, controls or UTF-8)"))
        }
        let uri = String(decoding: raw, as: UTF8.self)
        if uri.lowercased() == unrestricted { return .success(.unrestricted) }
        guard uri.lowercased().hasPrefix("https://") else {
            return .failure(.badURI("'\(uri)' is not https (RFC 8908 requires TLS for the API)"))
        }
        let rest = uri.dropFirst("https://".count)
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !host.isEmpty, !host.hasPrefix(":"), !host.contains("@") else {
            return .failure(.badURI("'\(uri)' has no host (or carries user information)"))
        }
        return .success(.api("https://" + rest))  // the scheme is case-insensitive (RFC 3986 §3.1): normalized
    }

    /// Dotted-quad text to 4 bytes; nil when it is not one.
    public static func ipv4Bytes(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { p -> UInt8? in p.count <= 3 && p.allSatisfy(\.isASCII) ? UInt8(p) : nil }
        return bytes.count == 4 ? bytes : nil
    }
}


/// One DHCPINFORM exchange on a link, without privileges: a UDP socket on an ephemeral port (not
/// 68), bound to the lease address and (SO_BINDTODEVICE, capability-free since Linux 5.7) to the
/// interface, sent to the server identifier (or broadcast, SO_BROADCAST). Servers answer an
/// INFORM at its source address and port (RFC 2131 §4.3.5; dnsmasq does so).
public struct DHCPInformQuery: Sendable {
    /// The interface to bind to (nil: none, for loopback tests without `lo` binding).
    public var interface: String?
    /// The lease address (ciaddr, and the socket's source address).
    public var clientAddress: String
    /// The DHCP server identifier; nil broadcasts to 255.255.255.255.
    public var server: String?
    /// The server's port (67; tests use another).
    public var serverPort: UInt16 = 67
    /// How long to wait in all; the INFORM is sent `attempts` times within it.
    public var timeout: Duration = .seconds(4)
    public var attempts = 3

    public init(interface: String?, clientAddress: String, server: String?) {
        self.interface = interface
        self.clientAddress = clientAddress
        self.server = server
    }
}

extension DHCPInform {
    /// Why an exchange gave no answer; the description names the cause and, where there is one, the fix.
    public struct ExchangeError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }

    /// Sends the INFORM and waits for a valid DHCPACK; answers with other transaction ids are
    /// ignored, malformed ones with ours are remembered as the reason if nothing valid follows.
    public static func ask(_ query: DHCPInformQuery) async -> Result<Answer, ExchangeError> {
        await DetachedThread.run(name: "hotspot-dhcp", stackSize: 256 * 1024) { exchange(query) }
            ?? .failure(ExchangeError("no thread for the DHCP exchange (pthread_create failed: the system is out of threads or memory)"))
    }

    static func errno_() -> String { String(cString: strerror(errno)) }

    static func hardwareAddress(_ interface: String?) -> [UInt8]? {
        guard let interface, !interface.contains("/"), !interface.hasPrefix("."),
              let text = try? String(contentsOfFile: "/sys/class/net/\(interface)/address", encoding: .utf8) else { return nil }
        let bytes = text.trimmingWhitespace.split(separator: ":").compactMap { UInt8($0, radix: 16) }
        return bytes.count == 6 && bytes.contains { $0 != 0 } ? bytes : nil
    }

    /// The exchange on the calling thread (blocking; `ask` runs it off the cooperative pool).
    public static func exchange(_ q: DHCPInformQuery) -> Result<Answer, ExchangeError> {
        guard let ciaddr = ipv4Bytes(q.clientAddress) else { return .failure(ExchangeError("the lease address '\(q.clientAddress)' is not IPv4")) }
        let target = q.server ?? "255.255.255.255"
        guard ipv4Bytes(target) != nil else { return .failure(ExchangeError("the DHCP server identifier '\(target)' is not IPv4")) }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return .failure(ExchangeError("socket: \(errno_())")) }
        defer { close(fd) }
        if let interface = q.interface {
            let ok = interface.withCString { setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, $0, socklen_t(strlen($0) + 1)) == 0 }
            if !ok { return .failure(ExchangeError("cannot bind to \(interface) (SO_BINDTODEVICE needs Linux ≥ 5.7 without CAP_NET_RAW): \(errno_())")) }
        }
        var one: Int32 = 1
        if q.server == nil, setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            return .failure(ExchangeError("SO_BROADCAST: \(errno_())"))
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        _ = inet_pton(AF_INET, q.clientAddress, &local.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { return .failure(ExchangeError("cannot bind to the lease address \(q.clientAddress) (has the lease changed?): \(errno_())")) }
        var dest = sockaddr_in()
        dest.sin_family = sa_family_t(AF_INET)
        dest.sin_port = q.serverPort.bigEndian
        _ = inet_pton(AF_INET, target, &dest.sin_addr)

        let xid = UInt32.random(in: 1...UInt32.max)
        let packet = request(xid: xid, clientAddress: ciaddr, hardwareAddress: hardwareAddress(q.interface))
        let attempts = max(1, q.attempts)
        let start = ContinuousClock.now
        let deadline = start + q.timeout
        var sent = 0
        var lastProblem: Problem?
        var buffer = [UInt8](repeating: 0, count: maxPacketBytes + 1)
        while ContinuousClock.now < deadline {
            if sent < attempts && ContinuousClock.now >= start + q.timeout / attempts * sent {
                let n = packet.withUnsafeBytes { raw in
                    withUnsafePointer(to: &dest) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                }
                if n < 0 { return .failure(ExchangeError("sending the DHCPINFORM to \(target):\(q.serverPort) failed: \(errno_())")) }
                sent += 1
            }
            let nextSend = sent < attempts ? start + q.timeout / attempts * sent : deadline
            let wait = ContinuousClock.now.duration(to: min(nextSend, deadline))
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(max(1, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)))
            if r < 0 && errno != EINTR { return .failure(ExchangeError("poll: \(errno_())")) }
            guard r > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { continue }  // ICMP errors (ECONNREFUSED) and empty datagrams: keep waiting
            switch parseReply(Array(buffer[0..<n]), xid: xid) {
            case .success(let answer): return .success(answer)
            case .failure(.otherTransaction): continue
            case .failure(.badURI(let why)):  // a valid DHCPACK: the server has said what it has to say
                return .failure(ExchangeError("the DHCP server's answer was not used: \(Problem.badURI(why))"))
            case .failure(let problem): lastProblem = problem
            }
        }
        if let lastProblem { return .failure(ExchangeError("the DHCP server's answer was not used: \(lastProblem)")) }
        return .failure(ExchangeError("no DHCPACK from \(target):\(q.serverPort) within \(q.timeout) (\(sent) DHCPINFORMs sent)"))
    }
}
