// SPDX-License-Identifier: Apache-2.0
import Connectivity
import Foundation

/// hotspot-portal-sim (the built product beside the running program) as a subprocess: started,
/// waited for until its DNS is up, and the ports it bound read from what it printed. By default
/// on loopback with ports of its choosing, as the demo, the soak and the benchmarks use it; a
/// namespace test gives fixed addresses and runs it inside a namespace (`prefix`).
public final class SimulatedPortal: Sendable {
    public let process: ManagedProcess
    /// The HTTP port it listens on.
    public let port: UInt16
    /// The port of its DNS server, which answers every name.
    public let dnsPort: UInt16

    private init(process: ManagedProcess, port: UInt16, dnsPort: UInt16) {
        self.process = process
        self.port = port
        self.dnsPort = dnsPort
    }

    /// Starts `hotspot-portal-sim serve --mode mode options…` on `listen` with its DNS on
    /// `dnsListen`, run through `prefix` (e.g. `ip netns exec NS`), and returns once its DNS is up.
    public static func start(mode: String, options: [String] = [], listen: String = "127.0.0.1:0", dnsListen: String = "127.0.0.1:0",
                             prefix: [String] = []) async throws -> SimulatedPortal {
        let sim = TestKitPaths.product("hotspot-portal-sim").path
        guard FileManager.default.isExecutableFile(atPath: sim) else {
            throw TestKitError.startFailed("hotspot-portal-sim is not built beside this program (\(sim))")
        }
        let command = prefix + [sim, "serve", "--mode", mode] + options + ["--listen", listen, "--dns-listen", dnsListen]
        let p = try ManagedProcess.launch(command[0], Array(command.dropFirst()), name: "hotspot-portal-sim \(mode)")
        guard await p.waitForOutput(containing: "dns on", timeout: SafetyNet.wait),
              let port = Self.port(after: "listening on http://", in: p.output), let dnsPort = Self.port(after: "dns on ", in: p.output)
        else {
            p.stop()
            throw TestKitError.startFailed("hotspot-portal-sim \(mode)\(prefix.isEmpty ? "" : " in \(prefix.last ?? "")"):\n\(p.output)")
        }
        return SimulatedPortal(process: p, port: port, dnsPort: dnsPort)
    }

    /// The port in the first `marker` host:port the simulator printed.
    static func port(after marker: String, in text: String) -> UInt16? {
        guard let r = text.range(of: marker) else { return nil }
        let address = text[r.upperBound...].prefix { !$0.isWhitespace }
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return UInt16(address[address.index(after: colon)...].prefix { $0.isNumber })
    }

    public func stop() { process.stop() }

    /// Probes of four vendors, as the daemon's `[connectivity] probes=` takes them, at `port` (the
    /// scheme's own port when nil), resolved through the simulator's DNS.
    public static func probes(port: UInt16?) -> String {
        let p = port.map { ":\($0)" } ?? ""
        return [
            "http://connectivitycheck.gstatic.com\(p)/generate_204 status=204",
            "http://captive.apple.com\(p)/hotspot-detect.html contains=Success",
            "http://www.msftconnecttest.com\(p)/connecttest.txt equals=Microsoft Connect Test",
            "http://nmcheck.gnome.org\(p)/check_network_status.txt header=X-NetworkManager-Status:online",
        ].joined(separator: ";")
    }

    /// The daemon's `[connectivity]` settings that point it at this simulator on loopback: `probes`
    /// (the four vendors' unless given), its DNS, no binding to the Wi-Fi link, 3 s per probe.
    public func connectivity(probes: String? = nil) -> [String: String] {
        ["probes": probes ?? Self.probes(port: port), "dns-servers": "127.0.0.1:\(dnsPort)", "bind-interface": "false", "probe-timeout": "3"]
    }

    /// Calls `path` on the simulator (on loopback); its body, nil when the call failed.
    public func get(_ path: String) async -> Data? {
        try? await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(port)\(path)"), options: TransferOptions()).get().body
    }

    /// What the simulator recorded (`/__sim/events`): one dictionary a request.
    public func events() async -> [[String: Any]] {
        await get("/__sim/events").flatMap { try? JSONSerialization.jsonObject(with: $0) as? [[String: Any]] } ?? []
    }

    /// Whether the simulator recorded an accepted sign-in POST.
    public func acceptedSignIn() async -> Bool {
        await events().contains { $0["kind"] as? String == "accepted" && $0["method"] as? String == "POST" }
    }
}
