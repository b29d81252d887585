import BusTestKit
import Connectivity
import Foundation
import PortalSimulator
import Testing

/// A simulator and its DNS on loopback; probe host names resolve (through `LinkDNSResolver`) to
/// 127.0.0.1, so nothing leaves the machine.
struct LoopbackHotspot {
    let sim: PortalSimulator
    let dns: SimulatorDNS
    let port: UInt16

    static func start(_ config: PortalSimulatorConfiguration) async throws -> LoopbackHotspot {
        let sim = PortalSimulator(configuration: config)
        let port = try await sim.start()
        let dns = try SimulatorDNS(host: "127.0.0.1", port: 0, answer: "127.0.0.1")
        return LoopbackHotspot(sim: sim, dns: dns, port: port)
    }

    func stop() async {
        dns.stop()
        await sim.stop()
    }

    var dnsServers: [String] { ["127.0.0.1:\(dns.port)"] }

    func url(_ host: String, _ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// Four HTTP probes of different vendors, pointing at the simulator.
    var probes: [ConnectivityProbe] {
        [
            ConnectivityProbe(url: url("connectivitycheck.gstatic.com", "/generate_204"), expectation: .status(204)),
            ConnectivityProbe(url: url("captive.apple.com", "/hotspot-detect.html"), expectation: .bodyContains("Success")),
            ConnectivityProbe(url: url("www.msftconnecttest.com", "/connecttest.txt"), expectation: .bodyEquals("Microsoft Connect Test")),
            ConnectivityProbe(url: url("nmcheck.gnome.org", "/check_network_status.txt"),
                              expectation: .header(name: "X-NetworkManager-Status", value: "online")),
        ]
    }

    func checker(timeout: Duration = .seconds(5), connectTimeout: Duration = .seconds(2), probes: [ConnectivityProbe]? = nil,
                 caFile: String? = nil) -> ConnectivityChecker {
        var t = TransferOptions(timeout: timeout, connectTimeout: connectTimeout)
        t.caFile = caFile
        return ConnectivityChecker(configuration: ConnectivityConfiguration(probes: probes ?? self.probes, transfer: t))
    }

    /// One check. `connectTimeout` defaults to 2 s; a test whose point is a probe that never
    /// connects passes its whole `timeout`, so a busy machine cannot turn "still waiting" into
    /// "failed to connect" before the behaviour under test happens.
    func check(timeout: Duration = .seconds(5), connectTimeout: Duration = .seconds(2)) async -> ProbeVerdict {
        await checker(timeout: timeout, connectTimeout: connectTimeout).check(interface: nil, dnsServers: dnsServers)
    }

    func post(_ host: String, _ path: String, _ form: String) async throws -> HTTPAnswer {
        var o = TransferOptions()
        o.dnsServers = dnsServers
        return try await HTTPTransfer.perform(HTTPRequestSpec(url: url(host, path), method: "POST",
                                                              headers: ["Content-Type: application/x-www-form-urlencoded"],
                                                              body: Data(form.utf8)), options: o).get()
    }

    func wisprClient() -> WISPrClient {
        var c = WISPrClient.Configuration(transfer: TransferOptions(timeout: .seconds(5)), allowPlainHTTPLogin: true)
        c.transfer.dnsServers = dnsServers
        return WISPrClient(configuration: c)
    }
}
