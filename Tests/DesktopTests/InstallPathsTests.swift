// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing
import HotspotProtocol

extension DesktopTests {
    /// `make install` with other directories than Debian's: every installed file that names one
    /// of the package's paths (units, the D-Bus activation file, the autostart entry, the pre-up
    /// hook, the configuration, the man pages) names the one it was installed to.
    @Suite(.enabled(if: TestEnvironment.hasTool("/usr/bin/make") && TestEnvironment.hasTool("/usr/bin/install"), "needs make and install (apt-get install make coreutils)"))
    struct InstallPathsTests {
        /// One way to install: the variables given to make, and where things must land.
        struct Layout: Sendable, CustomTestStringConvertible {
            let name: String
            let variables: [String: String]
            let bindir: String
            let libexecdir: String
            let sysconfdir: String
            let statedir: String
            let systemUnits: String
            let userUnits: String
            var testDescription: String { name }
        }

        static let layouts: [Layout] = [
            Layout(name: "PREFIX=/usr", variables: ["PREFIX": "/usr"],
                   bindir: "/usr/bin", libexecdir: "/usr/libexec", sysconfdir: "/etc", statedir: "/var/lib/hotspot-helper",
                   systemUnits: systemd("systemdsystemunitdir", "/usr/lib/systemd/system"), userUnits: systemd("systemduserunitdir", "/usr/lib/systemd/user")),
            // As Arch packages it: no /usr/libexec.
            Layout(name: "PREFIX=/usr LIBEXECDIR=/usr/lib", variables: ["PREFIX": "/usr", "LIBEXECDIR": "/usr/lib"],
                   bindir: "/usr/bin", libexecdir: "/usr/lib", sysconfdir: "/etc", statedir: "/var/lib/hotspot-helper",
                   systemUnits: systemd("systemdsystemunitdir", "/usr/lib/systemd/system"), userUnits: systemd("systemduserunitdir", "/usr/lib/systemd/user")),
            // A local build beside the distribution's packages.
            Layout(name: "PREFIX=/usr/local LIBEXECDIR=/usr/local/lib/hotspot SYSCONFDIR=/usr/local/etc LOCALSTATEDIR=/usr/local/var",
                   variables: ["PREFIX": "/usr/local", "LIBEXECDIR": "/usr/local/lib/hotspot", "SYSCONFDIR": "/usr/local/etc",
                               "LOCALSTATEDIR": "/usr/local/var", "SYSTEMDSYSTEMUNITDIR": "/usr/local/lib/systemd/system",
                               "SYSTEMDUSERUNITDIR": "/usr/local/lib/systemd/user"],
                   bindir: "/usr/local/bin", libexecdir: "/usr/local/lib/hotspot", sysconfdir: "/usr/local/etc",
                   statedir: "/usr/local/var/lib/hotspot-helper",
                   systemUnits: "/usr/local/lib/systemd/system", userUnits: "/usr/local/lib/systemd/user"),
        ]

        /// Where systemd.pc says units go (the Makefile's default), or `fallback` without it.
        static func systemd(_ variable: String, _ fallback: String) -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
            p.arguments = ["--variable=\(variable)", "systemd"]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = FileHandle.nullDevice
            guard (try? p.run()) != nil else { return fallback }
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            p.waitUntilExit()
            return p.terminationStatus == 0 && !out.isEmpty ? out : fallback
        }

        /// Absolute paths of the package's own in `text`: a `/` not preceded by a name or URL
        /// character, up to the first character a path here does not use, holding "hotspot".
        static func packagePaths(in text: String) -> [String] {
            let chars = Array(text.replacingOccurrences(of: "\\-", with: "-").unicodeScalars)
            let pathChar: (Unicode.Scalar) -> Bool = { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-/".unicodeScalars.contains($0) }
            var out: [String] = []
            var i = 0
            while i < chars.count {
                guard chars[i] == "/", i == 0 || !(pathChar(chars[i - 1]) || chars[i - 1] == ":") else { i += 1; continue }
                var j = i
                while j < chars.count, pathChar(chars[j]) { j += 1 }
                var path = String(String.UnicodeScalarView(chars[i..<j]))
                while let last = path.last, ".-/".contains(last) { path.removeLast() }
                if path.contains("hotspot") { out.append(path) }
                i = j
            }
            return out
        }

        static func text(of file: String) async throws -> String {
            if file.hasSuffix(".gz") { return try await ManagedProcess.run("/bin/gzip", ["-dc", file]).stdout }
            return try String(contentsOfFile: file, encoding: .utf8)
        }

        static func exists(_ path: String) -> Bool {
            var s = stat()
            return lstat(path, &s) == 0
        }

        /// Every path of the package's that an installed file names is there (or, for the state
        /// directory, systemd or the daemon makes it; for a file a comment gives as an example, its
        /// directory is).
        static func expectEveryNamedPathInstalled(root: String, statedir: String, sysconfdir: String) async throws {
            var checked = 0
            let enumerator = FileManager.default.enumerator(atPath: root)
            while let relative = enumerator?.nextObject() as? String {
                let file = root + "/" + relative
                var s = stat()
                guard lstat(file, &s) == 0, (s.st_mode & S_IFMT) == S_IFREG, !relative.hasSuffix("/hotspot-helper") else { continue }
                guard let text = try? await Self.text(of: file) else { continue }
                for path in Self.packagePaths(in: text) {
                    let named = Self.exists(root + path) || path.hasPrefix(statedir)
                        || (path.hasPrefix(sysconfdir + "/hotspot-helper/") && Self.exists(root + (path as NSString).deletingLastPathComponent))
                    #expect(named, "/\(relative) names \(path), which this install did not make")
                    checked += 1
                }
            }
            #expect(checked >= 10, "only \(checked) paths found in the installed files")
        }

        @Test(arguments: layouts)
        func everyInstalledFileNamesTheInstalledPaths(_ layout: Layout) async throws {
            let root = try InstallTests.temporaryDirectory("hotspot-paths")
            defer { try? FileManager.default.removeItem(at: root) }
            let r = try await InstallTests.make("install", layout.variables.merging(["DESTDIR": root.path]) { a, _ in a })
            try #require(r.status == 0, "make install failed:\n\(r.stdout)\n\(r.stderr)")

            try await Self.expectEveryNamedPathInstalled(root: root.path, statedir: layout.statedir, sysconfdir: layout.sysconfdir)

            // The programs, by the paths the units and the desktop files start them with.
            let daemon = layout.libexecdir + "/hotspot-helperd"
            let agent = layout.bindir + "/hotspot-helper-agent"
            let unit = try String(contentsOfFile: root.path + layout.systemUnits + "/hotspot-helperd.service", encoding: .utf8)
            let execStart = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
            var expected = "ExecStart=\(daemon)"
            if layout.sysconfdir != "/etc" { expected += " --config \(layout.sysconfdir)/hotspot-helper/hotspot-helperd.conf" }
            if layout.statedir != "/var/lib/hotspot-helper" { expected += " --state-dir \(layout.statedir)" }
            #expect(execStart == expected)
            // systemd's StateDirectory= is always under /var/lib; elsewhere the unit lets the daemon write there.
            #expect(unit.contains("StateDirectory=hotspot-helper") == (layout.statedir == "/var/lib/hotspot-helper"))
            #expect(unit.contains("ReadWritePaths=\(layout.statedir)") == (layout.statedir != "/var/lib/hotspot-helper"))
            let agentUnit = try String(contentsOfFile: root.path + layout.userUnits + "/hotspot-helper-agent.service", encoding: .utf8)
            #expect(agentUnit.contains("\nExecStart=\(agent)\n"))
            let desktop = try String(contentsOfFile: root.path + layout.sysconfdir + "/xdg/autostart/hotspot-helper-agent.desktop", encoding: .utf8)
            #expect(desktop.contains("\nExec=\(agent)\n"))
            let activation = try String(contentsOfFile: root.path + "/usr/share/dbus-1/system-services/org.freedesktop.NetworkManager.HotspotHelper.service", encoding: .utf8)
            #expect(activation.contains("\nExec=\(daemon)\n"))
            let version = try await ManagedProcess.run(root.path + daemon, ["--version"])
            #expect(version.status == 0 && version.stdout == "\(ProductVersion.current)\n", "\(version.stdout)\(version.stderr)")

            // The installed configuration is one the installed daemon accepts, and its profiles
            // directory is the installed one.
            let config = root.path + layout.sysconfdir + "/hotspot-helper/hotspot-helperd.conf"
            let configText = try String(contentsOfFile: config, encoding: .utf8)
            let profilesLine = "profiles-dir=\(layout.sysconfdir)/hotspot-helper/profiles.d"
            #expect(configText.split(separator: "\n").contains { $0 == profilesLine || $0 == "#" + profilesLine })
            #expect(configText.contains("\n" + profilesLine + "\n") == (layout.sysconfdir != "/etc"), "the daemon's own default is /etc's")
            let check = try await ManagedProcess.run(root.path + daemon, ["--check-config", "--config", config])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }

        @Test func theFinderSeesRoffAndShellPathsButNotURLsOrBusPaths() {
            let text = """
            .I /etc/hotspot\\-helper/profiles.d/*.conf ;
            ExecStart=/usr/libexec/hotspot-helperd --config /x/hotspot.conf
            see https://example.org/hotspot and /org/freedesktop/NetworkManager/HotspotHelper.
            (/var/lib/hotspot-helper/).
            """
            #expect(Self.packagePaths(in: text) == ["/etc/hotspot-helper/profiles.d", "/usr/libexec/hotspot-helperd", "/x/hotspot.conf", "/var/lib/hotspot-helper"])
        }

        /// Arch's package, as makepkg would make it: the PKGBUILD's package() run by bash with
        /// this test run's binary, then Arch's paths checked (no /usr/libexec, units in /usr/lib).
        @Test(.enabled(if: TestEnvironment.hasTool("/bin/bash"), "needs bash"))
        func thePKGBUILDPackagesAtArchsPathsAndNamesThem() async throws {
            let pkgdir = try InstallTests.temporaryDirectory("hotspot-pkgbuild")
            defer { try? FileManager.default.removeItem(at: pkgdir) }
            let pkgbuild = TestKitPaths.repositoryRoot.appendingPathComponent("packaging/arch/PKGBUILD").path
            let r = try await ManagedProcess.run("/bin/bash", ["-euc", "source \"$1\"; [ \"$pkgname\" = hotspot-helper ] && [ \"$pkgver\" = \(ProductVersion.current) ]; package >/dev/null",
                                                              "makepkg", pkgbuild],
                                                 environment: ["pkgdir": pkgdir.path, "BUILT_PRODUCTS": TestKitPaths.productsDirectory.path,
                                                               "PATH": "/usr/bin:/bin"], timeout: .seconds(240))
            try #require(r.status == 0, "package() failed:\n\(r.stdout)\n\(r.stderr)")
            for file in ["/usr/lib/hotspot-helper/hotspot-helper", "/usr/lib/hotspot-helperd", "/usr/bin/hotspotctl",
                         "/usr/lib/systemd/system/hotspot-helperd.service", "/usr/lib/systemd/user/hotspot-helper-agent.service",
                         "/usr/share/zsh/site-functions/_hotspotctl", "/usr/share/licenses/hotspot-helper/LICENSE",
                         "/usr/lib/NetworkManager/dispatcher.d/pre-up.d/90-hotspot-helper", "/etc/hotspot-helper/hotspot-helperd.conf"] {
                #expect(Self.exists(pkgdir.path + file), "the package lacks \(file)")
            }
            #expect(!Self.exists(pkgdir.path + "/usr/libexec"), "Arch has no /usr/libexec")
            #expect(!Self.exists(pkgdir.path + "/lib"), "Arch has no /lib outside /usr")
            try await Self.expectEveryNamedPathInstalled(root: pkgdir.path, statedir: "/var/lib/hotspot-helper", sysconfdir: "/etc")
        }
    }
}
