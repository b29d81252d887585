// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
import HotspotProtocol
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A helper that dies mid-authenticate is replaced by the next helper without waiting for the
/// built-in portal helper, which answers evaluate only once the daemon has a connectivity verdict
/// (join patience, on a link whose probes never answer). Asserted by order, not by time: the
/// replacement signs in while no connectivity verdict exists yet.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct HelperReplacementTests {
    @Test func aHelperKilledMidAuthenticateIsReplacedBeforeAnyConnectivityVerdict() async throws {
        // The probes' stand-in: connections are taken (the kernel's backlog) and never answered,
        // so no check ends before the probe timeout, far beyond this test's waits.
        let probes = try SilentListener()
        defer { probes.close() }
        let connectivity = ["probes": "http://127.0.0.1:\(probes.port)/generate_204 status=204", "bind-interface": "false",
                            "probe-timeout": "120", "join-patience": "120"]
        let s = try await Scenario(settings: ["command-timeout": "120", "builtin-helpers": "portal"], connectivity: connectivity)
        let doomed = try ManagedProcess.launch(TestKitPaths.product("hotspot-example-helper").path,
                                               ["--display-name", "Doomed", "--network", "CityFree", "--hang", "authenticate"],
                                               environment: s.bus.environment, name: "doomed helper")
        #expect(await doomed.waitForOutput(containing: "registered", timeout: .seconds(15)))
        let (_, survivor) = try await s.helper("Survivor", script: HelperScript(confidence: .low))
        try await s.join("CityFree", accessPoint: "ap1")
        #expect(await doomed.waitForOutput(containing: "not answering", timeout: .seconds(15)))
        #expect(try await s.property("Helper") == .string("Doomed"))
        doomed.send(SIGKILL)
        // Woken by State; the bound is a safety net, a quarter of the portal helper's evaluate deadline.
        try await s.waitFor(state: "authenticated", timeout: .seconds(30))
        #expect(try await s.property("Helper") == .string("Survivor"))
        #expect(survivor.received.contains(.authenticate))
        // No check has ended: the replacement did not wait for a verdict.
        #expect(try await s.property("Connectivity") == .string("unknown"), "\(s.daemon.log.suffix(3000))")
        #expect(s.daemon.log.contains("evaluate → builtin.portal") == false, "the portal helper answered evaluate: \(s.daemon.log.suffix(3000))")
    }
}

/// A TCP port that accepts connections (through the kernel's backlog) and never answers them.
final class SilentListener: Sendable {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestKitError.startFailed("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 64) == 0 else { throw TestKitError.startFailed("bind/listen: \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard named == 0 else { throw TestKitError.startFailed("getsockname: \(errno)") }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() { _ = Glibc.close(fd) }
}
