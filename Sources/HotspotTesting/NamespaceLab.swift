// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Synchronization

/// Network namespaces a test makes itself (it needs root and iproute2): a "client" namespace
/// with a Wi-Fi-like veth `wlan0` to a "portal" namespace (its end `wlan1`) and an uplink veth
/// `up0` to an "internet" namespace (`up1`). The client's default route goes through the uplink;
/// the Wi-Fi link has only a higher-metric default route, as NetworkManager gives a link without
/// connectivity. The portal and the internet both hold ``sharedIP``, so only the interface a
/// probe leaves through decides what it sees. Nothing outside these namespaces is touched, and
/// ``run(prefix:_:)`` removes them (and stops the processes kept) even when the test fails.
public final class NamespaceLab: Sendable {
    public static let portalIP = "10.231.8.1"
    public static let clientWiFiIP = "10.231.8.2"
    public static let internetIP = "198.51.100.1"
    public static let clientUplinkIP = "198.51.100.2"
    public static let sharedIP = "192.0.2.80"
    /// The client's Wi-Fi-like link (named as python-dbusmock's Wi-Fi device, so a daemon in the
    /// client namespace binds its probes to it).
    public static let wifi = "wlan0"

    /// Whether this machine lets a test make namespaces.
    public static var canRun: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") }

    public let client: String, portal: String, internet: String
    private let processes = Mutex<[ManagedProcess]>([])

    /// `prefix` (four letters) names the suite in the namespaces' names, so a namespace left
    /// behind says whose it is.
    private init(prefix: String) {
        let suffix = String(UInt32.random(in: 0..<0xFFFF), radix: 16)
        client = "\(prefix)\(suffix)c"
        portal = "\(prefix)\(suffix)p"
        internet = "\(prefix)\(suffix)i"
    }

    /// Makes the namespaces, runs `body`, and removes them whatever `body` did.
    public static func run<T: Sendable>(prefix: String, _ body: (NamespaceLab) async throws -> T) async throws -> T {
        let lab = NamespaceLab(prefix: prefix)
        do {
            try await lab.setUp()
            let result = try await body(lab)
            await lab.destroy()
            return result
        } catch {
            await lab.destroy()
            throw error
        }
    }

    /// Runs `ip` with `args`; throws with its error output when it fails.
    public static func ip(_ args: String...) async throws { try await ip(args) }

    public static func ip(_ args: [String]) async throws {
        let r = try await ManagedProcess.run("/usr/sbin/ip", args, timeout: .seconds(20))
        guard r.status == 0 else { throw LabError(message: "ip \(args.joined(separator: " ")) failed: \(r.stderr)") }
    }

    /// setns(2) (glibc declares it only with _GNU_SOURCE, which the Swift overlay does not see).
    private static let setns: @convention(c) (Int32, Int32) -> Int32 = {
        unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns"), to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()
    private static let newNet: Int32 = 0x4000_0000  // CLONE_NEWNET

    /// Runs `body` on a new thread that has joined namespace `ns` (sockets it opens belong there).
    public static func inNamespace<T: Sendable>(_ ns: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                let fd = open("/run/netns/\(ns)", O_RDONLY)
                guard fd >= 0, Self.setns(fd, Self.newNet) == 0 else {
                    continuation.resume(throwing: LabError(message: "setns \(ns): \(String(cString: strerror(errno)))"))
                    return
                }
                close(fd)
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }

    private func setUp() async throws {
        for ns in [client, portal, internet] {
            try await Self.ip("netns", "add", ns)
            try await Self.ip("-n", ns, "link", "set", "lo", "up")
        }
        try await Self.ip("link", "add", Self.wifi, "netns", client, "type", "veth", "peer", "name", "wlan1", "netns", portal)
        try await Self.ip("link", "add", "up0", "netns", client, "type", "veth", "peer", "name", "up1", "netns", internet)
        try await Self.ip("-n", client, "addr", "add", "\(Self.clientWiFiIP)/24", "dev", Self.wifi)
        try await Self.ip("-n", portal, "addr", "add", "\(Self.portalIP)/24", "dev", "wlan1")
        try await Self.ip("-n", client, "addr", "add", "\(Self.clientUplinkIP)/24", "dev", "up0")
        try await Self.ip("-n", internet, "addr", "add", "\(Self.internetIP)/24", "dev", "up1")
        try await Self.ip("-n", portal, "addr", "add", "\(Self.sharedIP)/32", "dev", "lo")
        try await Self.ip("-n", internet, "addr", "add", "\(Self.sharedIP)/32", "dev", "lo")
        for (ns, dev) in [(client, Self.wifi), (client, "up0"), (portal, "wlan1"), (internet, "up1")] {
            try await Self.ip("-n", ns, "link", "set", dev, "up")
        }
        try await Self.ip("-n", client, "route", "add", "default", "via", Self.internetIP, "dev", "up0", "metric", "100")
        try await Self.ip("-n", client, "route", "add", "default", "via", Self.portalIP, "dev", Self.wifi, "metric", "20100")
    }

    /// The prefix that runs a program in namespace `ns`.
    public func exec(in ns: String) -> [String] { ["/usr/sbin/ip", "netns", "exec", ns] }

    /// Keeps `process` to stop before the namespaces are removed.
    public func keep(_ process: ManagedProcess) { processes.withLock { $0.append(process) } }

    /// hotspot-portal-sim in the portal namespace (click-through) and in the internet one (open),
    /// each on port 80 with its DNS answering every name with ``sharedIP``.
    public func startSimulators() async throws {
        for (ns, mode, dnsIP) in [(portal, "click-through", Self.portalIP), (internet, "open", Self.internetIP)] {
            let sim = try await SimulatedPortal.start(mode: mode, options: ["--dns-answer", Self.sharedIP], listen: "0.0.0.0:80",
                                                      dnsListen: "\(dnsIP):53", prefix: exec(in: ns))
            keep(sim.process)
        }
    }

    /// What the portal's simulator recorded (`/__sim/events`, JSON), read from inside its namespace.
    public func portalEvents() async throws -> String {
        try await ManagedProcess.run("/usr/sbin/ip", ["netns", "exec", portal, "curl", "-s", "--max-time", "5", "http://\(Self.portalIP)/__sim/events"],
                                     timeout: .seconds(10)).stdout
    }

    /// Stops every process kept (the last first), then removes the namespaces (their veths go with them).
    private func destroy() async {
        for p in processes.withLock({ $0 }).reversed() {
            p.stop(grace: 0.5)
            _ = await p.waitForExit(timeout: .seconds(3))
        }
        for ns in [client, portal, internet] {
            _ = try? await ManagedProcess.run("/usr/sbin/ip", ["netns", "del", ns], timeout: .seconds(20))
        }
    }
}

/// A namespace test's set-up failed: what was run and what it said.
public struct LabError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
