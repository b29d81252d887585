// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import PortalSimulator
import Testing

extension TransferOptions {
    /// Transfers that nothing but the safety net ends (no connect or low-speed cut at 2 s), for
    /// tests whose point is what the answer says, not how soon it came: on a machine kept busy a
    /// WISPr login or a TLS fetch through socat was cut as "too slow" (make test-loaded).
    static func patient(dnsServers: [String] = [], maxBodyBytes: Int = 256 * 1024) -> TransferOptions {
        var o = TransferOptions(timeout: SafetyNet.wait, connectTimeout: SafetyNet.wait)
        o.lowSpeedTime = SafetyNet.wait
        o.maxBodyBytes = maxBodyBytes
        o.dnsServers = dnsServers
        return o
    }
}

/// A simulator and its DNS on loopback; probe host names resolve (through `LinkDNSResolver`) to
/// 127.0.0.1, so nothing leaves the machine.
struct LoopbackHotspot: TestWorld {
    let sim: PortalSimulator
    let dns: SimulatorDNS
    let port: UInt16

    /// Starts the simulator and its DNS, runs `body` with them and stops them, waiting until
    /// they have stopped, also when `body` throws.
    static func run<Result>(_ config: PortalSimulatorConfiguration, _ body: (LoopbackHotspot) async throws -> Result) async throws -> Result {
        let sim = PortalSimulator(configuration: config)
        let port = try await sim.start()
        let dns = try SimulatorDNS(host: "127.0.0.1", port: 0, answer: "127.0.0.1")
        return try await LoopbackHotspot(sim: sim, dns: dns, port: port).run(body)
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
                 caFile: String? = nil, patient: Bool = false) -> ConnectivityChecker {
        var t = TransferOptions(timeout: timeout, connectTimeout: patient ? timeout : connectTimeout)
        t.caFile = caFile
        if patient {
            // Nothing but `timeout` ends a probe: no low-speed cut, and the probe hosts resolved
            // up front as CURLOPT_RESOLVE entries (the link-DNS query is capped at 3 s).
            t.lowSpeedTime = timeout
            let hosts = (probes ?? self.probes).compactMap { URLComponents(string: $0.url)?.host }
            t.staticHosts = Dictionary(hosts.map { ($0, ["127.0.0.1"]) }, uniquingKeysWith: { a, _ in a })
        }
        return ConnectivityChecker(configuration: ConnectivityConfiguration(probes: probes ?? self.probes, transfer: t))
    }

    /// One check. A `patient` one (the default) is ended by nothing but `timeout` (no connect or
    /// low-speed cut, no DNS query), so a machine busy running every suite at once cannot turn
    /// "still waiting" into "failed" before the behaviour a test is about happens (a CI run saw
    /// a WISPr portal's check after a refused login come back as no portal). Tests of the cuts
    /// themselves or of the link's DNS ask for `patient: false`.
    func check(timeout: Duration = .seconds(20), patient: Bool = true) async -> ProbeVerdict {
        await checker(timeout: timeout, patient: patient).check(interface: nil, dnsServers: dnsServers)
    }

    func post(_ host: String, _ path: String, _ form: String) async throws -> HTTPAnswer {
        let o = TransferOptions.patient(dnsServers: dnsServers)
        return try await HTTPTransfer.perform(HTTPRequestSpec(url: url(host, path), method: "POST",
                                                              headers: ["Content-Type: application/x-www-form-urlencoded"],
                                                              body: Data(form.utf8)), options: o).get()
    }

    func wisprClient() -> WISPrClient {
        let c = WISPrClient.Configuration(transfer: .patient(dnsServers: dnsServers), allowPlainHTTPLogin: true)
        return WISPrClient(configuration: c)
    }
}
