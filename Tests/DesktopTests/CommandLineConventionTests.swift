// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing
import HotspotProtocol

extension DesktopTests {
    /// What every program shares: --version, usage errors as 2, and hotspotctl naming what is
    /// wrong (an unknown command, no NetworkManager) instead of answering as if nothing were.
    @Suite struct CommandLineConventionTests {
        @Test(arguments: ["hotspot-helperd", "hotspotctl", "hotspot-helper-agent"])
        func everyProgramPrintsItsVersion(_ program: String) async throws {
            let r = try await ManagedProcess.run(TestKitPaths.product(program).path, ["--version"])
            #expect(r.status == 0 && r.stdout == "\(ProductVersion.current)\n", "\(program): \(r.status) \(r.stdout)\(r.stderr)")
        }

        @Test func anUnknownCommandIsNamedWithTheListNotParsedAsStatusArguments() async throws {
            let ctl = TestKitPaths.product("hotspotctl").path
            let r = try await ManagedProcess.run(ctl, ["frobnicate"])
            #expect(r.status == 2)
            #expect(r.stderr.hasPrefix("hotspotctl: unknown command 'frobnicate'. The commands are: status, networks, "), "\(r.stderr)")
            #expect(r.stderr.contains("forget") && r.stderr.contains("present-ui"), "\(r.stderr)")
            #expect(!r.stderr.contains("USAGE: hotspotctl status"), "\(r.stderr)")
            let typo = try await ManagedProcess.run(ctl, ["--json", "netwroks"])
            #expect(typo.status == 2 && typo.stderr.hasPrefix("hotspotctl: unknown command 'netwroks' (did you mean 'networks'?)"), "\(typo.stderr)")
            // What is a command still runs as one (here: no bus to reach, status 3).
            let known = try await ManagedProcess.run(ctl, ["--json", "helpers"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
            #expect(known.status == 3, "\(known.stderr)")
        }

        /// A bus with the daemon but without NetworkManager: the commands about Wi-Fi interfaces
        /// say NetworkManager is not running, status 5, rather than "no Wi-Fi interfaces".
        @Test(.enabled(if: TestEnvironment.hasDBusDaemon, "needs dbus-daemon (apt-get install dbus)"))
        func withoutNetworkManagerStatusAndNetworksSaySoWithTheirOwnStatus() async throws {
            let bus = try await PrivateBus()
            let daemon = try await DaemonProcess.start(on: bus)
            for command in [["status"], ["--json", "networks"], ["check"]] {
                let r = try await bus.run(TestKitPaths.product("hotspotctl").path, command)
                #expect(r.status == 5, "\(command): \(r.status) \(r.stdout)\(r.stderr)")
                #expect(r.stderr.hasPrefix("hotspotctl: NetworkManager is not running") && r.stderr.contains("systemctl start NetworkManager"), "\(r.stderr)")
                #expect(r.stdout.isEmpty)
            }
            // helpers asks only the daemon, which answers.
            let helpers = try await bus.run(TestKitPaths.product("hotspotctl").path, ["helpers"])
            #expect(helpers.status == 0, "\(helpers.stderr)")
            // The daemon says so in its own log, in those words.
            #expect(await daemon.process.waitForOutput(containing: "NetworkManager is not running (org.freedesktop.NetworkManager is not on the system bus)"), "\(daemon.log)")
        }
    }
}
