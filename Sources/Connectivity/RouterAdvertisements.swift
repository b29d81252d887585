// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SystemSupport

/// RFC 8910 §2.3: the captive-portal option (type 37) of IPv6 Router Advertisements, learned
/// without a raw ICMPv6 socket (which would need CAP_NET_RAW, and the daemon keeps no
/// capability). The kernel already receives every RA; the options it does not act on itself —
/// RDNSS, DNSSL, the captive-portal option among them — it hands to userspace as
/// `RTM_NEWNDUSEROPT` messages on the rtnetlink multicast group `RTNLGRP_ND_USEROPT`, which any
/// process may join (this is how rdnssd learns DNS servers). Pure parsing here; the socket is
/// ``RouterAdvertisementWatch``.
public enum RouterAdvertisementOption {
    /// The ND option type of the captive-portal URI (RFC 8910 §2.3).
    public static let captivePortalType: UInt8 = 37
    static let newNDUserOption: UInt16 = 68      // RTM_NEWNDUSEROPT
    static let routerAdvertisement: UInt8 = 134  // ICMPv6 type
    static let headerBytes = 16                  // struct nlmsghdr
    static let userOptionHeaderBytes = 16        // struct nduseroptmsg

    /// One captive-portal option heard on an interface: the URI as DHCP option 114's rules judge
    /// it (https with a host, or the "unrestricted" URN), or why it was not usable.
    public struct Heard: Sendable, Equatable {
        public var interfaceIndex: Int32
        public var answer: Result<DHCPInform.Answer, DHCPInform.Problem>
    }

    /// The captive-portal options in a buffer of rtnetlink messages (one `recv`). Anything else —
    /// other message types, other ND options, an ICMPv6 type other than RA, lengths that do not
    /// fit — is skipped; nothing here trusts a length it has not checked.
    public static func parse(_ buffer: [UInt8]) -> [Heard] {
        var heard: [Heard] = []
        var offset = 0
        while buffer.count - offset >= headerBytes {
            let length = Int(u32(buffer, offset))
            let type = u16(buffer, offset + 4)
            guard length >= headerBytes, length <= buffer.count - offset else { break }
            if type == newNDUserOption, length >= headerBytes + userOptionHeaderBytes {
                let m = offset + headerBytes
                let family = buffer[m]
                let optionsLength = Int(u16(buffer, m + 2))
                let interfaceIndex = Int32(bitPattern: u32(buffer, m + 4))
                let icmpType = buffer[m + 8]
                let start = m + userOptionHeaderBytes
                if family == UInt8(AF_INET6), icmpType == routerAdvertisement, optionsLength <= offset + length - start {
                    heard += options(buffer[start..<(start + optionsLength)], interfaceIndex: interfaceIndex)
                }
            }
            offset += (length + 3) & ~3  // NLMSG_ALIGN
        }
        return heard
    }

    /// The captive-portal options among ND options (type, length in units of 8 bytes, value).
    static func options(_ area: ArraySlice<UInt8>, interfaceIndex: Int32) -> [Heard] {
        var heard: [Heard] = []
        var i = area.startIndex
        while area.endIndex - i >= 2 {
            let bytes = Int(area[i + 1]) * 8
            guard bytes > 0, bytes <= area.endIndex - i else { break }
            if area[i] == captivePortalType {
                // The URI, padded with NULs to a multiple of 8 bytes (RFC 8910 §2.3).
                var value = Array(area[(i + 2)..<(i + bytes)])
                while value.last == 0 { value.removeLast() }
                heard.append(Heard(interfaceIndex: interfaceIndex, answer: DHCPInform.captivePortalURI(value)))
            }
            i += bytes
        }
        return heard
    }

    private static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24  // host order, little-endian here
    }
    private static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
}

/// Listens for the captive-portal option of Router Advertisements on every interface (see
/// ``RouterAdvertisementOption``) and keeps the last one heard per interface until
/// ``forget(interface:)``. One blocking thread waits in `poll(2)` without a timeout, so an idle
/// daemon is not woken by it.
public final class RouterAdvertisementWatch: Sendable {
    public struct OpenError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    private let socket: Int32
    private let wake: (read: Int32, write: Int32)
    private let heard = Mutex<[Int32: RouterAdvertisementOption.Heard]>([:])
    private let stopped = Atomic<Bool>(false)
    private let onHeard: @Sendable () -> Void

    static let rtnlGroupNDUserOption: Int32 = 20  // RTNLGRP_ND_USEROPT
    static let solNetlink: Int32 = 270            // SOL_NETLINK
    static let addMembership: Int32 = 1           // NETLINK_ADD_MEMBERSHIP

    /// Joins `RTNLGRP_ND_USEROPT` in the calling thread's network namespace and starts listening.
    /// `onHeard` runs on the listening thread after each option heard is kept (keep it short).
    public init(onHeard: @escaping @Sendable () -> Void = {}) throws(OpenError) {
        let fd = Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0 /* NETLINK_ROUTE */)
        guard fd >= 0 else { throw OpenError(description: "no rtnetlink socket: \(String(cString: strerror(errno)))") }
        // struct sockaddr_nl (linux/netlink.h, which Glibc's module does not carry): family,
        // pad, port id 0 (the kernel picks one), no legacy group mask.
        var address = [UInt8](repeating: 0, count: 12)
        address[0] = UInt8(AF_NETLINK & 0xff)
        let bound = address.withUnsafeBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        var group = Self.rtnlGroupNDUserOption
        guard bound == 0, setsockopt(fd, Self.solNetlink, Self.addMembership, &group, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw OpenError(description: "cannot join the rtnetlink group for Router Advertisement options: \(why)")
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0, fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC) == 0 else {
            close(fd)
            throw OpenError(description: "no pipe: \(String(cString: strerror(errno)))")
        }
        socket = fd
        wake = (pipeFDs[0], pipeFDs[1])
        self.onHeard = onHeard
        guard DetachedThread.start(name: "hotspot-ra", stackSize: 128 * 1024, { [self] in listen() }) else {
            close(fd); close(pipeFDs[0]); close(pipeFDs[1])
            throw OpenError(description: "no thread to listen for Router Advertisements")
        }
    }

    /// The captive-portal option last heard on `interfaceIndex`, nil when none since it was forgotten.
    public func captivePortal(interfaceIndex: Int32) -> Result<DHCPInform.Answer, DHCPInform.Problem>? {
        heard.withLock { $0[interfaceIndex]?.answer }
    }

    /// The same by interface name (nil for an unknown interface).
    public func captivePortal(interface: String) -> Result<DHCPInform.Answer, DHCPInform.Problem>? {
        let index = if_nametoindex(interface)
        return index == 0 ? nil : captivePortal(interfaceIndex: Int32(index))
    }

    /// Forgets what `interface` heard (it left its network: the next one announces its own).
    public func forget(interface: String) {
        let index = Int32(if_nametoindex(interface))
        heard.withLock { _ = $0.removeValue(forKey: index) }
    }

    /// Stops listening and closes the socket.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func listen() {
        defer { close(socket); close(wake.read); close(wake.write) }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while !stopped.load(ordering: .acquiring) {
            guard poll(&fds, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            // ENOBUFS: the kernel dropped messages while we were slow; the next RA repeats them.
            guard n > 0 else { continue }
            let news = RouterAdvertisementOption.parse(Array(buffer[0..<n]))
            guard !news.isEmpty else { continue }
            heard.withLock { for h in news { $0[h.interfaceIndex] = h } }
            onHeard()
        }
    }
}
