// SPDX-License-Identifier: Apache-2.0
import Foundation
import HotspotProtocol
import HotspotTesting
import Testing

extension DesktopTests {
    /// The release is written once (`ProductVersion.current`); every file that must spell it in its
    /// own syntax says the same, and the Makefile reads it from there for the packages.
    @Suite struct PackagingVersionTests {
        static func text(_ path: String) throws -> String {
            try String(contentsOf: TestKitPaths.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        }

        @Test func everyPackagingFileNamesTheRelease() throws {
            let v = ProductVersion.current
            #expect(try Self.text("packaging/debian/changelog").hasPrefix("hotspot-helper (\(v)) "), "the Debian changelog's newest entry")
            let spec = try Self.text("packaging/rpm/hotspot-helper.spec")
            #expect(spec.contains("\nVersion:        \(v)\n"))
            let changelog = try #require(spec.components(separatedBy: "%changelog\n").last)
            #expect(changelog.split(separator: "\n").first?.hasSuffix(" - \(v)-1") == true, "the RPM changelog's newest entry: \(changelog.prefix(200))")
            #expect(try Self.text("packaging/arch/PKGBUILD").contains("\npkgver=\(v)\n"))
            for page in ["packaging/man/hotspot-helperd.8", "packaging/man/hotspotctl.1", "packaging/man/hotspot-helper-agent.1"] {
                #expect(try Self.text(page).split(separator: "\n").first?.contains("\"hotspot-helper \(v)\"") == true, "\(page)")
            }
        }

        @Test func theMakefileAndThePackageScriptsReadTheReleaseFromItsOwner() async throws {
            let root = TestKitPaths.repositoryRoot.path
            let make = try await ManagedProcess.run("/usr/bin/make", ["-s", "-n", "-C", root, "deb", "SKIP_BUILD=1"])
            #expect(make.stdout.contains("VERSION=\(ProductVersion.current) "), "\(make.stdout.prefix(400))\(make.stderr.prefix(400))")
            for script in ["scripts/build-deb.sh", "packaging/rpm/build-rpm.sh"] {
                let line = try #require(try Self.text(script).split(separator: "\n").first { $0.hasPrefix("VERSION=${VERSION:-") })
                let r = try await ManagedProcess.run("/bin/bash", ["-c", "cd \"$1\" && \(line) && printf %s \"$VERSION\"", "bash", root])
                #expect(r.stdout == ProductVersion.current, "\(script): \(r.stdout)\(r.stderr)")
            }
        }
    }
}
