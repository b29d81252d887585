// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A simulator setup error.
public struct SimulatorError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    init(_ d: String) { description = d }
}

/// A socket of `type` (SOCK_STREAM, SOCK_DGRAM) bound to `host:port` (IPv4; port 0 picks a free
/// one) with SO_REUSEADDR, and the port it got. A stream socket is not listening yet.
func boundIPv4Socket(type: Int32, host: String, port: UInt16) throws -> (fd: Int32, port: UInt16) {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw SimulatorError("\(host) is not an IPv4 address") }
    let fd = socket(AF_INET, type, 0)
    guard fd >= 0 else { throw SimulatorError("socket: errno \(errno)") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard bound == 0 else { let e = errno; close(fd); throw SimulatorError("cannot bind to \(host):\(port): errno \(e)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, UInt16(bigEndian: address.sin_port))
}
