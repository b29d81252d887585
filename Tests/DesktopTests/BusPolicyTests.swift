// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import Testing

extension DesktopTests {
    /// The installed bus policy and activation file, read by a real dbus-daemon with a system-bus
    /// style configuration (deny by default) that includes them: only root may own the name, anyone
    /// may call the daemon, and the activation file is understood.
    @Suite(.enabled(if: TestEnvironment.hasDBusDaemon && TestEnvironment.isRoot && TestEnvironment.hasTool("/usr/bin/setpriv")
                    && TestEnvironment.hasTool("/usr/bin/make") && TestEnvironment.hasDBusMock,
                    "needs root (to act as nobody), setpriv, make, dbus-daemon and python3-dbus"))
    struct BusPolicyTests {
        static func configuration(destdir: URL) -> String {
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:tmpdir=/tmp</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <deny own="*"/>
                <deny send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/>
                <allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                <allow receive_type="signal"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
              </policy>
              <servicedir>\(destdir.path)/usr/share/dbus-1/system-services</servicedir>
              <includedir>\(destdir.path)/usr/share/dbus-1/system.d</includedir>
            </busconfig>
            """
        }

        func asNobody(_ bus: String, _ arguments: [String]) async throws -> ManagedProcess.Result {
            try await ManagedProcess.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments,
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
        }

        @Test func onlyRootOwnsTheNameEveryoneMayCallAndTheActivationFileIsRead() async throws {
            let destdir = try await DesktopTests.InstallTests.install()
            defer { try? FileManager.default.removeItem(at: destdir) }
            let config = destdir.appendingPathComponent("system-bus.conf")
            try Self.configuration(destdir: destdir).write(to: config, atomically: false, encoding: .utf8)
            let busProcess = try ManagedProcess.launch("/usr/bin/dbus-daemon", ["--config-file=\(config.path)", "--print-address=1", "--nofork", "--nopidfile"])
            let address = try #require(await busProcess.waitForFirstStdoutLine(timeout: .seconds(10)), "dbus-daemon refused the configuration:\n\(busProcess.output)")
            #expect(!busProcess.output.contains("Encountered error"), "\(busProcess.output)")

            // The activation file is understood (its name matches its Name=).
            let c = try Connection(address: address)
            let activatable = try await c.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                               member: "ListActivatableNames").first?.strings ?? []
            #expect(activatable.contains(HotspotContract.busName.rawValue))

            // nobody may not own the name.
            let own = "import dbus, sys\nb = dbus.bus.BusConnection(sys.argv[1])\nprint(b.request_name('\(HotspotContract.busName.rawValue)', 4))"
            let refused = try await asNobody(address, [TestEnvironment.python, "-c", own, address])
            #expect(refused.status != 0 && refused.stderr.contains("AccessDenied"), "\(refused.stdout)\(refused.stderr)")

            // root may: the daemon takes it.
            let state = try DesktopTests.InstallTests.temporaryDirectory("hotspot-policy-state")
            let daemonConfig = state.appendingPathComponent("hotspot-helperd.conf")
            try "[daemon]\nstate-dir=\(state.path)\n".write(to: daemonConfig, atomically: false, encoding: .utf8)
            let daemon = try ManagedProcess.launch(destdir.path + "/usr/libexec/hotspot-helperd", ["--config", daemonConfig.path],
                                                   environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
            defer { daemon.stop(); busProcess.stop(); try? FileManager.default.removeItem(at: state) }
            let owners = try await c.watchNameOwner(HotspotContract.busName)
            guard await firstElement(of: owners, within: SafetyNet.wait, where: { $0 != nil }) != nil else {
                throw TestKitError.timeout("hotspot-helperd did not own its name within \(SafetyNet.wait)\n\(daemon.output)")
            }

            // Everyone may call it (polkit decides per method, in the daemon).
            let helpers = try await asNobody(address, [destdir.path + "/usr/bin/hotspotctl", "--json", "helpers"])
            #expect(helpers.status == 0 && helpers.stdout.hasPrefix("["), "\(helpers.stdout)\(helpers.stderr)")
            // There is no NetworkManager on this bus: status says so, with its own exit status.
            let status = try await asNobody(address, [destdir.path + "/usr/bin/hotspotctl", "status"])
            #expect(status.status == 5 && status.stderr.hasPrefix("hotspotctl: NetworkManager is not running"), "\(status.stdout)\(status.stderr)")
            let introspect = try await asNobody(address, ["/usr/bin/busctl", "--address=\(address)", "introspect", "--no-pager",
                                                          HotspotContract.busName.rawValue, HotspotContract.managerPath.rawValue])
            #expect(introspect.status == 0 && introspect.stdout.contains(".RegisterHelper"), "\(introspect.stderr)")
            let forget = try await asNobody(address, [destdir.path + "/usr/bin/hotspotctl", "forget", "CityFree"])
            #expect(forget.status == 4, "\(forget.stderr)")
        }
    }
}
