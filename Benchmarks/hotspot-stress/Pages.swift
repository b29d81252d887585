// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BenchKit
import Connectivity
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol

/// Hostile pages: how fast the daemon answers `Get` while its built-in portal helper reads a
/// hostile portal's pages, join after join. The portal (hotspot-portal-sim, hostile huge-form)
/// answers every request with a 64 KiB terms page whose one label holds 9,300 inputs, the page
/// that once froze every D-Bus call for 3.2 s: the form reader did quadratic work on it, on the
/// bus thread. Now the reader's work is linear and capped, and it runs on the executor's workers,
/// while the bus thread only routes. Goal: `Get` p99 ≤ 10 ms.
struct Pages {
    var seconds = 20.0

    func run(verbose: Bool) async throws -> (figures: [Figure], failures: [String]) {
        let progress: @Sendable (String) -> Void = { verbose ? say($0) : note($0) }
        let sim = try await SimulatedPortal.start(mode: "hostile", options: ["--hostile", "huge-form"])
        defer { sim.stop() }
        let (port, dnsPort) = (sim.port, sim.dnsPort)

        let rig = try await Rig()
        defer { rig.stop() }
        let device = try await rig.addDevice("wlan0")
        try await rig.addAccessPoint(device: device, name: "ap1", ssid: "TermsNet", bssid: "0A:11:22:33:44:09", strength: 80)
        let profile = try await rig.nmCall("AddWiFiConnection", [.string(device), "termsnet", "TermsNet", ""]).first?.string ?? ""
        let probes = ["http://connectivitycheck.gstatic.com:\(port)/generate_204 status=204",
                      "http://nmcheck.gnome.org:\(port)/check_network_status.txt header=X-NetworkManager-Status:online"]
        let daemon = try await DaemonProcess.start(on: rig.bus, settings: ["builtin-helpers": "portal", "command-timeout": "10"],
                                                   connectivity: ["probes": probes.joined(separator: ";"), "dns-servers": "127.0.0.1:\(dnsPort)",
                                                                  "bind-interface": "false", "probe-timeout": "3"], logLevel: "warning")
        let iface = HotspotContract.interfacePath(1)
        guard try await rig.waitUntil(timeout: .seconds(20), { try await rig.interfaces().contains(iface) }) else {
            throw StressError("the daemon did not publish wlan0; its log:\n\(daemon.log)")
        }
        let getter = try rig.bus.connect()
        func gets(for window: Duration) async throws -> [Double] {
            var out: [Double] = []
            let end = ContinuousClock.now + window
            while ContinuousClock.now < end {
                let start = ContinuousClock.now
                _ = try await getter.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                          interface: "org.freedesktop.DBus.Properties", member: "Get",
                                          body: [.string(HotspotContract.managerInterface.rawValue), "Version"])
                out.append(milliseconds(ContinuousClock.now - start))
                try await Task.sleep(for: .milliseconds(2))
            }
            return out
        }
        let quiet = try await gets(for: .seconds(3))
        progress("pages: daemon at rest: Get p99 \(String(format: "%.2f", percentile(quiet, 0.99))) ms over \(quiet.count) Gets")

        // Joins and leaves against the hostile portal, while another task times Get.
        let joining = Task {
            var joins = 0
            while !Task.isCancelled {
                joins += 1
                _ = try? await rig.nmCall("AddActiveConnection", [.strings([device]), .string(profile),
                                                                   "/org/freedesktop/NetworkManager/AccessPoint/ap1", .string("pages\(joins)"), .uint32(2)])
                _ = try? await rig.waitUntil(timeout: .seconds(8)) { (try await rig.property(iface, "State")?.string ?? "") != "evaluating" }
                try? await rig.nm.deactivate(rig.c, device: device)
                _ = try? await rig.waitUntil(timeout: .seconds(5)) { (try await rig.property(iface, "State")?.string ?? "") == "inactive" }
            }
            return joins
        }
        let during = try await gets(for: .milliseconds(Int64(seconds * 1000)))
        joining.cancel()
        let joins = await joining.value
        let events = (try? await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(port)/__sim/events"), options: TransferOptions()).get().body)
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [[String: Any]] } ?? []
        let pages = events.filter { $0["kind"] as? String == "hostile" }.count
        let p99 = percentile(during, 0.99)
        progress("pages: \(joins) joins, \(pages) hostile pages served; Get p99 \(String(format: "%.2f", p99)) ms, worst \(String(format: "%.2f", during.max() ?? .nan)) ms over \(during.count) Gets")
        var failures: [String] = []
        if pages == 0 { failures.append("the portal served no hostile page: the daemon never read one (its log:\n\(daemon.log.suffix(2000)))") }
        if p99 > 10 { failures.append("Get p99 \(String(format: "%.2f", p99)) ms while hostile pages were read (goal ≤ 10)") }
        let figures = [
            Figure("pages: Get p99 while hostile 64 KiB pages are read", p99, "ms", baseline: percentile(quiet, 0.99), baselineUnit: "ms at rest",
                   goal: "≤ 10 ms"),
            Figure("pages: worst Get while hostile pages are read", during.max() ?? .nan, "ms"),
            Figure("pages: hostile pages served to the daemon", Double(pages), "pages", goal: "> 0"),
        ]
        return (figures, failures)
    }
}

struct PagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pages",
        abstract: "Get latency while the daemon's portal helper reads hostile 64 KiB portal pages, join after join (goal: p99 ≤ 10 ms).")
    @Option(help: "Seconds of joins against the hostile portal.") var seconds = 20.0
    @OptionGroup var output: Output

    func run() async throws {
        let r = try await Pages(seconds: seconds).run(verbose: !output.tsv)
        try report(r.figures, failures: r.failures, output: output)
    }
}
