// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing

extension DesktopTests {
    /// gnome-shell-extension-hotspot-helper_VERSION_all.deb as `make shell-extension-deb` (and so
    /// `make deb`) builds it: what it installs, its control fields, and lintian.
    @Suite(.enabled(if: TestEnvironment.hasTool("/usr/bin/make") && TestEnvironment.hasTool("/usr/bin/dpkg-deb"),
                    "needs make and dpkg-deb (apt-get install make dpkg)"))
    struct ShellExtensionPackageTests {
        static let uuid = "hotspot-helper@hotspot-helper.freedesktop.org"
        static let extensionDirectory = "/usr/share/gnome-shell/extensions/\(uuid)"
        static let manifest = ["metadata.json", "extension.js", "daemon.js", "labels.js", "shell43.js"].map { "\(extensionDirectory)/\($0)" }
            + ["/usr/share/glib-2.0/schemas/50_hotspot-helper.gschema.override",
               "/usr/share/doc/gnome-shell-extension-hotspot-helper/copyright",
               "/usr/share/doc/gnome-shell-extension-hotspot-helper/changelog.gz"]

        /// Builds the package into a fresh directory; returns the directory and the .deb.
        static func build() async throws -> (ScratchDirectory, String) {
            let dir = try ScratchDirectory("shell-extension-deb")
            let r = try await ManagedProcess.run("/usr/bin/make", ["-C", TestKitPaths.repositoryRoot.path, "--no-print-directory",
                                                                   "shell-extension-deb", "DEB_DIR=\(dir.path)", "NO_LINTIAN=1"], timeout: .seconds(120))
            try #require(r.status == 0, "make shell-extension-deb failed:\n\(r.stdout)\n\(r.stderr)")
            let deb = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path)
                .first { $0.hasPrefix("gnome-shell-extension-hotspot-helper_") && $0.hasSuffix("_all.deb") }, "no .deb in \(dir.path)")
            return (dir, dir.appendingPathComponent(deb).path)
        }

        @Test func thePackageInstallsTheExtensionAndEnablesItByDefaultForAll() async throws {
            let (dir, deb) = try await Self.build()
            let info = try await ManagedProcess.run("/usr/bin/dpkg-deb", ["--field", deb, "Package", "Architecture", "Depends"])
            #expect(info.stdout == "Package: gnome-shell-extension-hotspot-helper\nArchitecture: all\nDepends: gnome-shell (>= 43), hotspot-helper (>= 0.2.0)\n",
                    "\(info.stdout)")
            let contents = try await ManagedProcess.run("/usr/bin/dpkg-deb", ["--contents", deb])
            var listed: [String: (mode: String, owner: String)] = [:]
            for line in contents.stdout.split(separator: "\n") {
                let f = line.split(separator: " ", omittingEmptySubsequences: true)
                guard f.count >= 6, f[0].hasPrefix("-") else { continue }
                listed[String(f[5].dropFirst())] = (String(f[0]), String(f[1]))
            }
            #expect(Set(listed.keys) == Set(Self.manifest), "\(contents.stdout)")
            for (file, entry) in listed { #expect(entry.mode == "-rw-r--r--" && entry.owner == "root/root", "\(file): \(entry)") }

            // The files Shell loads are the ones the Shell tests ran; the directory is named by the uuid.
            let root = dir.appendingPathComponent("gnome-shell-extension-hotspot-helper-root")
            let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("\(Self.extensionDirectory)/metadata.json"))) as? [String: Any]
            #expect(metadata?["uuid"] as? String == Self.uuid)
            #expect(metadata?["shell-version"] as? [String] == ["43"])
            // The vendor override puts the uuid in org.gnome.shell's default enabled-extensions.
            let override = try String(contentsOf: root.appendingPathComponent("usr/share/glib-2.0/schemas/50_hotspot-helper.gschema.override"), encoding: .utf8)
            #expect(override.contains("[org.gnome.shell]\nenabled-extensions=['\(Self.uuid)']"), "\(override)")
        }

        /// The package has no binary and no maintainer script: lintian, pedantic included, finds
        /// nothing at all in it (hotspot-helper's deb is held to no error, warning, hardening or
        /// copyright tag: ReleaseTests).
        @Test(.enabled(if: TestEnvironment.hasTool("/usr/bin/lintian"), "needs lintian (apt-get install lintian)"))
        func lintianFindsNothingInThePackage() async throws {
            let (dir, deb) = try await Self.build()
            defer { withExtendedLifetime(dir) {} }  // the .deb goes with its directory
            let r = try await ManagedProcess.run("/usr/bin/lintian", ["-I", "-E", "--pedantic", "--tag-display-limit", "0", deb], timeout: .seconds(300))
            #expect(r.status == 0, "lintian failed: \(r.stderr)")
            let findings = r.stdout.split(separator: "\n").filter { $0.contains(" gnome-shell-extension-hotspot-helper: ") }
            #expect(findings.isEmpty, "\(r.stdout)")
        }
    }
}
