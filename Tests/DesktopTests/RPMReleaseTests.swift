// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing
import HotspotProtocol

extension PackageTests {
    /// The .rpm: packaging/rpm/hotspot-helper.spec built by rpmbuild from the tree (`make rpm`),
    /// with the release build `make deb` made (no Swift rpm exists here to build one inside
    /// rpmbuild), then read back with rpm and checked by rpmlint. Runs with the .deb's tests.
    @Suite(.enabled(if: ReleaseBuild.isPresent, "no release build in debian-build/: run `make deb` first (make test does)"),
           .enabled(if: TestEnvironment.hasTool("/usr/bin/rpmbuild") && TestEnvironment.hasTool("/usr/bin/rpm2cpio") && TestEnvironment.hasTool("/usr/bin/cpio"),
                    "needs rpmbuild, rpm2cpio and cpio (apt-get install rpm cpio)"))
    struct RPMReleaseTests {
        static func rpm(_ arguments: [String]) async throws -> String {
            let r = try await ManagedProcess.run("/usr/bin/rpm", arguments, timeout: .seconds(60))
            #expect(r.status == 0, "rpm \(arguments): \(r.stderr)")
            return r.stdout
        }

        @Test func makeRpmBuildsAPackageAtFedorasPathsThatRpmlintPasses() async throws {
            let dir = try DesktopTests.InstallTests.temporaryDirectory("hotspot-rpm")
            defer { try? FileManager.default.removeItem(at: dir) }
            let products = (ReleaseBuild.unstripped as NSString).deletingLastPathComponent
            let r = try await DesktopTests.InstallTests.make("rpm", ["RPM_DIR": dir.path, "BUILT_PRODUCTS": products, "NO_RPMLINT": "1"])
            try #require(r.status == 0, "make rpm failed:\n\(r.stdout)\n\(r.stderr)")
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("hotspot-helper-\(ProductVersion.current)-1") && $0.hasSuffix(".rpm") })
            let package = dir.appendingPathComponent(name).path

            #expect(try await Self.rpm(["-qp", "--queryformat", "%{NAME} %{VERSION} %{RELEASE} %{LICENSE}", package]) == "hotspot-helper \(ProductVersion.current) 1 Apache-2.0")
            // The files, with their modes and owners (printed: the review reads them).
            let listing = try await Self.rpm(["-qlvp", package])
            print("rpm -qlvp \(name):\n\(listing)")
            let files = try await Self.rpm(["-qlp", package]).split(separator: "\n").map(String.init)
            for file in ["/usr/libexec/hotspot-helper/hotspot-helper", "/usr/libexec/hotspot-helperd", "/usr/bin/hotspotctl", "/usr/bin/hotspot-helper-agent",
                         "/usr/lib/systemd/system/hotspot-helperd.service", "/usr/lib/systemd/user/hotspot-helper-agent.service",
                         "/usr/share/dbus-1/system-services/org.freedesktop.NetworkManager.HotspotHelper.service",
                         "/usr/share/polkit-1/actions/org.freedesktop.NetworkManager.HotspotHelper.policy",
                         "/usr/lib/NetworkManager/dispatcher.d/pre-up.d/90-hotspot-helper", "/etc/hotspot-helper/hotspot-helperd.conf",
                         "/etc/hotspot-helper/profiles.d", "/usr/share/zsh/site-functions/_hotspotctl", "/usr/share/man/man8/hotspot-helperd.8.gz"] {
                #expect(files.contains(file), "the .rpm lacks \(file)")
            }
            #expect(!files.contains { $0.hasPrefix("/lib/") }, "Fedora's units are in /usr/lib/systemd")
            for line in listing.split(separator: "\n") {
                #expect(line.contains(" root     root "), "not owned by root: \(line)")
            }
            let config = try await Self.rpm(["-qcp", package])
            #expect(config.contains("/etc/hotspot-helper/hotspot-helperd.conf") && config.contains("/etc/xdg/autostart/hotspot-helper-agent.desktop"), "\(config)")
            // The scriptlets enable, stop and restart the service as systemd's macros would.
            let scripts = try await Self.rpm(["-qp", "--scripts", package])
            print("rpm -qp --scripts \(name):\n\(scripts)")
            for part in ["postinstall scriptlet", "preuninstall scriptlet", "postuninstall scriptlet", "preset hotspot-helperd.service",
                         "disable --now hotspot-helperd.service", "try-restart hotspot-helperd.service"] {
                #expect(scripts.contains(part), "the scriptlets lack \(part)")
            }
            let requires = try await Self.rpm(["-qpR", package])
            for need in ["dbus", "polkit", "NetworkManager", "libcurl", "libxml2", "libdbus-1.so.3"] {
                #expect(requires.split(separator: "\n").contains { $0.hasPrefix(need) || $0.hasPrefix("(" + need) }, "Requires lacks \(need): \(requires)")
            }

            // Unpacked, every path a file names is one the package has.
            let root = dir.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let unpack = try await ManagedProcess.run("/bin/sh", ["-c", "cd \"$1\" && rpm2cpio \"$2\" | cpio -idm --quiet", "sh", root.path, package])
            try #require(unpack.status == 0, "\(unpack.stderr)")
            try await DesktopTests.InstallPathsTests.expectEveryNamedPathInstalled(root: root.path, statedir: "/var/lib/hotspot-helper", sysconfdir: "/etc")
            let unit = try String(contentsOfFile: root.path + "/usr/lib/systemd/system/hotspot-helperd.service", encoding: .utf8)
            #expect(unit.contains("\nExecStart=/usr/libexec/hotspot-helperd\n"))

            // rpmlint, as Fedora's review runs it: no error and no warning (filters, each with its reason, in packaging/rpm).
            if TestEnvironment.hasTool("/usr/bin/rpmlint") {
                let spec = TestKitPaths.repositoryRoot.appendingPathComponent("packaging/rpm/hotspot-helper.spec").path
                let rpmDir = TestKitPaths.repositoryRoot.appendingPathComponent("packaging/rpm").path
                let lint = try await ManagedProcess.run("/usr/bin/rpmlint", ["-c", rpmDir + "/rpmlint.toml", "-r", rpmDir + "/hotspot-helper.rpmlintrc", package, spec],
                                                        timeout: .seconds(240))
                print("rpmlint:\n\(lint.stdout)\(lint.stderr)")
                let summary = lint.stdout.split(separator: "\n").last { $0.contains("errors") } ?? ""
                #expect(summary.contains(" 0 errors, 0 warnings"), "rpmlint: \(lint.stdout)\(lint.stderr)")
            }
        }
    }
}
