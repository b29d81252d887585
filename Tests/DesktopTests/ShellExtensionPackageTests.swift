// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing
import HotspotProtocol

extension DesktopTests {
    /// gnome-shell-extension-hotspot-helper_VERSION_all.deb as `make shell-extension-deb` (and so
    /// `make deb`) builds it: what it installs, its control fields, and lintian.
    @Suite(.enabled(if: TestEnvironment.hasTool("/usr/bin/make") && TestEnvironment.hasTool("/usr/bin/dpkg-deb"),
                    "needs make and dpkg-deb (apt-get install make dpkg)"))
    struct ShellExtensionPackageTests {
        static let uuid = ShellExtensionTrees.uuid
        static let uuid43 = ShellExtensionTrees.uuid43
        static let extensionDirectory = "/usr/share/gnome-shell/extensions/\(uuid)"
        static let extensionDirectory43 = "/usr/share/gnome-shell/extensions/\(uuid43)"
        static let shared = ["controller.js", "daemon.js", "labels.js", "portalPrompts.js", "signInDialog.js", "signInForm.js", "urls.js", "wifiMenu.js"]
        static let manifest = (["metadata.json", "extension.js", "shell45.js", "shell50.js"] + shared).map { "\(extensionDirectory)/\($0)" }
            + (["metadata.json", "extension.js", "shell43.js"] + shared).map { "\(extensionDirectory43)/\($0)" }
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
            #expect(info.stdout == "Package: gnome-shell-extension-hotspot-helper\nArchitecture: all\nDepends: gnome-shell (>= 43), hotspot-helper (>= \(ProductVersion.current))\n",
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

            // The files Shell loads are the ones the Shell tests ran; each directory is named by its
            // uuid, and its metadata names the Shell versions it is for (Shell loads only those).
            let root = dir.appendingPathComponent("gnome-shell-extension-hotspot-helper-root")
            for (directory, uuid, versions) in [(Self.extensionDirectory, Self.uuid, ["45", "46", "47", "48", "49", "50"]),
                                                (Self.extensionDirectory43, Self.uuid43, ["43"])] {
                let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("\(directory)/metadata.json"))) as? [String: Any]
                #expect(metadata?["uuid"] as? String == uuid)
                #expect(metadata?["shell-version"] as? [String] == versions)
                #expect((metadata?["url"] as? String)?.hasPrefix("https://") == true, "\(metadata ?? [:])")
                // A uuid's domain must be the project's own: a name, not someone's DNS domain.
                #expect(!uuid.contains("freedesktop.org") && !uuid.contains("gnome.org"))
            }
            // One source: the 45-50 tree's shared files are common/'s; the 43 tree's are made from
            // them, with no ES-module syntax left (Shell 43 would refuse them).
            let common = TestKitPaths.repositoryRoot.appendingPathComponent("packaging/gnome-shell-extension/common")
            for file in Self.shared {
                let source = try String(contentsOf: common.appendingPathComponent(file), encoding: .utf8)
                #expect(try String(contentsOf: root.appendingPathComponent("\(Self.extensionDirectory)/\(file)"), encoding: .utf8) == source)
                let legacy = try String(contentsOf: root.appendingPathComponent("\(Self.extensionDirectory43)/\(file)"), encoding: .utf8)
                #expect(!legacy.split(separator: "\n").contains { $0.hasPrefix("import ") || $0.hasPrefix("export ") }, "\(file):\n\(legacy)")
                #expect(legacy.split(separator: "\n").count == source.split(separator: "\n").count + 1, "\(file): only 'use strict' is added")
            }
            // The vendor override puts both uuids in org.gnome.shell's default enabled-extensions,
            // for Ubuntu's sessions too.
            let override = try String(contentsOf: root.appendingPathComponent("usr/share/glib-2.0/schemas/50_hotspot-helper.gschema.override"), encoding: .utf8)
            let list = "enabled-extensions=['\(Self.uuid)', '\(Self.uuid43)']"
            #expect(override.contains("[org.gnome.shell]\n\(list)") && override.contains("[org.gnome.shell:ubuntu]\n\(list)"), "\(override)")
        }

        /// What a session reads from the override, compiled as libglib2.0's trigger compiles it:
        /// both uuids in a GNOME session and in an Ubuntu one (XDG_CURRENT_DESKTOP=ubuntu:GNOME),
        /// even beside an Ubuntu-style override that sets the key in its `:ubuntu` section.
        @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/glib-2.0/schemas/org.gnome.shell.gschema.xml")
                       && TestEnvironment.hasTool("/usr/bin/gsettings") && TestEnvironment.hasTool("/usr/bin/glib-compile-schemas"),
                       "needs GNOME Shell's schema, gsettings and glib-compile-schemas (apt-get install gnome-shell libglib2.0-bin)"))
        func everySessionGetsBothUuidsByDefaultUbuntusToo() async throws {
            let dir = try ScratchDirectory("shell-override")
            let fm = FileManager.default
            try fm.copyItem(atPath: "/usr/share/glib-2.0/schemas/org.gnome.shell.gschema.xml", toPath: dir.appendingPathComponent("org.gnome.shell.gschema.xml").path)
            try fm.copyItem(at: TestKitPaths.repositoryRoot.appendingPathComponent("packaging/gnome-shell-extension/50_hotspot-helper.gschema.override"),
                            to: dir.appendingPathComponent("50_hotspot-helper.gschema.override"))
            try "[org.gnome.shell:ubuntu]\nenabled-extensions=['ubuntu-dock@ubuntu.com']\n"
                .write(to: dir.appendingPathComponent("10_ubuntu-settings.gschema.override"), atomically: false, encoding: .utf8)
            let compiled = try await ManagedProcess.run("/usr/bin/glib-compile-schemas", ["--strict", dir.path])
            #expect(compiled.status == 0, "\(compiled.stderr)")
            for desktop in ["GNOME", "ubuntu:GNOME"] {
                let r = try await ManagedProcess.run("/usr/bin/gsettings", ["get", "org.gnome.shell", "enabled-extensions"], environment: [
                    "XDG_CURRENT_DESKTOP": desktop, "GSETTINGS_BACKEND": "memory", "GSETTINGS_SCHEMA_DIR": dir.path,
                ])
                #expect(r.stdout == "['\(Self.uuid)', '\(Self.uuid43)']\n", "\(desktop): \(r.stdout)\(r.stderr)")
            }
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
