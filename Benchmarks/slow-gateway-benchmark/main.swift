// SPDX-License-Identifier: Apache-2.0
// slow-gateway-benchmark: hotspot-helperd (a subprocess, on a private bus with python-dbusmock's
// NetworkManager) joins a network whose gateway is the portal simulator's slow router: one request
// at a time, each answered DELAY s late, intercepting only INTERCEPT s after the client's first
// packet. Prints join → Connectivity full beside the gateway's own minimum time — INTERCEPT plus
// DELAY for each request a sign-in needs — and their ratio (the goal: at most the gateway's time
// + 2 s). Asserts nothing.
//
//   swift run slow-gateway-benchmark [--delay 8] [--intercept-after 3] [--silent]
//                                    [--form] [--probe-timeout 5] [--rounds 1]
import Foundation
import HotspotTesting
import PortalSimulator

struct Options {
    var delay = 8.0
    var interceptAfter = 3.0
    var silent = false
    var form = false
    var probeTimeout = "5"
    var rounds = 1

    init(_ arguments: [String]) {
        var i = 0
        func next() -> String { i += 1; return i < arguments.count ? arguments[i] : "" }
        while i < arguments.count {
            switch arguments[i] {
            case "--delay": delay = Double(next()) ?? delay
            case "--intercept-after": interceptAfter = Double(next()) ?? interceptAfter
            case "--silent": silent = true
            case "--form": form = true
            case "--probe-timeout": probeTimeout = next()
            case "--rounds": rounds = max(1, Int(next()) ?? 1)
            case "--help", "-h":
                print("""
                    usage: slow-gateway-benchmark [--delay S] [--intercept-after S] [--silent] [--form] [--probe-timeout S] [--rounds N]
                      --delay S            every answer of the slow router comes S seconds late (default 8)
                      --intercept-after S  interception starts S seconds after the client's first packet (default 3)
                      --silent             before interception, answer nothing (default: reset connections)
                      --form               an openNDS-like gateway with a name-and-e-mail form and a profile (default: click-through)
                      --probe-timeout S    [connectivity] probe-timeout of the daemon (default 5)
                      --rounds N           joins to run (default 1)
                    """)
                exit(0)
            default:
                FileHandle.standardError.write(Data("unknown argument \(arguments[i]); see --help\n".utf8))
                exit(2)
            }
            i += 1
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
// Requests the gateway must answer before the client is signed in (later ones pass at once):
// click-through: the probe's redirect, the terms page, the accept; the form: the probe's 307,
// the splash page, its "Continue", the details form's POST.
let needed = options.form ? 4 : 3
let gatewayTime = options.interceptAfter + Double(needed) * options.delay

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

var ratios: [Double] = []
for round in 1...options.rounds {
    var config = PortalSimulatorConfiguration(mode: options.form ? .getForms : .clickThrough)
    config.detailsForm = options.form
    config.slowRouter = SlowRouterSettings(delay: options.delay...options.delay, interceptAfter: options.interceptAfter,
                                           silentBeforeInterception: options.silent)
    let sim = PortalSimulator(configuration: config)
    let port = try await sim.start()
    let dns = try SimulatorDNS(host: "127.0.0.1", port: 0, answer: "127.0.0.1")
    let profiles = try ProfilesDirectory()
    if options.form {
        _ = try profiles.write("bench.conf", "[CityFree]\nssid=CityFree\nsign-in=form\nform-field-name=Ada\nform-field-email=ada@example.org\nlogin-hosts=connectivitycheck.gstatic.com;captive.apple.com;www.msftconnecttest.com;nmcheck.gnome.org\nplain-http-login=true\n")
    }
    let connectivity = ["probes": SimulatedPortal.probes(port: port), "dns-servers": "127.0.0.1:\(dns.port)", "bind-interface": "false",
                        "probe-timeout": options.probeTimeout, "interval": "30"]
    let settings = ["command-timeout": "300", "filter-interval": "0.2", "maintain-interval": "300", "profiles-dir": profiles.path]
    let scenario = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")],
                                            settings: settings, connectivity: connectivity)
    sim.onEvent { [waiter = scenario.waiter] in waiter.bump() }
    let joined = ContinuousClock.now
    try await scenario.join("CityFree")
    try await scenario.waitFor(state: "authenticated", connectivity: "full", timeout: .seconds(gatewayTime * 10 + 60))
    let took = seconds(ContinuousClock.now - joined)
    let queued = sim.events().filter { $0.kind == "slow-router-wait" }.count
    ratios.append(took / gatewayTime)
    print(String(format: "round %d: join → full %.1f s; the gateway's own time %.1f s (%.0f s before interception + %d × %.0f s); ratio %.2f; over by %.1f s (goal ≤ 2 s); %d requests queued at the gateway",
                 round, took, gatewayTime, options.interceptAfter, needed, options.delay, took / gatewayTime, took - gatewayTime, queued))
    print("--- what the daemon logged ---")
    for line in scenario.daemon.log.split(separator: "\n") where line.contains("wlan0") { print(line) }
    scenario.daemon.process.stop()
    dns.stop()
    await sim.stop()
    profiles.remove()
    scenario.nm.stop()
    scenario.bus.stop()
}
if ratios.count > 1 {
    print(String(format: "median ratio %.2f over %d rounds", ratios.sorted()[ratios.count / 2], ratios.count))
}
