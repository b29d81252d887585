// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Which IP versions a link can reach the internet with: an IPv4 address, and an IPv6 address
/// beyond link-local (fe80::/10) and loopback. A link with both is checked once per family.
public enum LinkFamilies {
    /// The families `interface` has addresses of (getifaddrs(3)); empty when it has none or
    /// does not exist.
    public static func of(_ interface: String) -> Set<TransferOptions.AddressFamily> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: Set<TransferOptions.AddressFamily> = []
        var node: UnsafeMutablePointer<ifaddrs>? = first
        while let n = node {
            defer { node = n.pointee.ifa_next }
            guard let name = n.pointee.ifa_name, String(cString: name) == interface, let sa = n.pointee.ifa_addr else { continue }
            switch Int32(sa.pointee.sa_family) {
            case AF_INET: found.insert(.ipv4)
            case AF_INET6:
                let bytes = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) } }
                if isGlobal(bytes) { found.insert(.ipv6) }
            default: break
            }
        }
        return found
    }

    /// Not link-local (fe80::/10), not loopback (::1), not unspecified.
    static func isGlobal(_ a: [UInt8]) -> Bool {
        guard a.count == 16 else { return false }
        if a[0] == 0xfe && (a[1] & 0xc0) == 0x80 { return false }
        if a.dropLast().allSatisfy({ $0 == 0 }) && (a[15] == 1 || a[15] == 0) { return false }
        return true
    }
}
