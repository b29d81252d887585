// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing
import HotspotProtocol

extension DesktopTests {
    /// `make install` into a temporary DESTDIR (with the binaries this test run built), the
    /// installed units under `systemd-analyze`, and the `.deb` under `dpkg-deb`.
    @Suite(.enabled(if: TestEnvironment.hasTool("/usr/bin/make") && TestEnvironment.hasTool("/usr/bin/install"), "needs make and install (apt-get install make coreutils)"))
    struct InstallTests {
        /// Every file the package installs, with its mode; directories are implied.
        static let manifest: [String: Int] = [
            "/usr/libexec/hotspot-helper/hotspot-helper": 0o755,
            "/usr/libexec/hotspot-helper/hotspot-sign-in-dialog": 0o755,
            "/usr/share/dbus-1/system.d/org.freedesktop.NetworkManager.HotspotHelper.conf": 0o644,
            "/usr/share/dbus-1/system-services/org.freedesktop.NetworkManager.HotspotHelper.service": 0o644,
            "/usr/share/dbus-1/interfaces/org.freedesktop.NetworkManager.HotspotHelper.xml": 0o644,
            "/usr/share/polkit-1/actions/org.freedesktop.NetworkManager.HotspotHelper.policy": 0o644,
            "/lib/systemd/system/hotspot-helperd.service": 0o644,
            // NetworkManager runs only root-owned scripts that others cannot write.
            "/usr/lib/NetworkManager/dispatcher.d/pre-up.d/90-hotspot-helper": 0o755,
            "/usr/lib/systemd/user/hotspot-helper-agent.service": 0o644,
            "/etc/xdg/autostart/hotspot-helper-agent.desktop": 0o644,
            "/etc/hotspot-helper/hotspot-helperd.conf": 0o644,
            "/usr/share/doc/hotspot-helper/examples/example-profile.conf": 0o644,
            "/usr/share/doc/hotspot-helper/copyright": 0o644,
            "/usr/share/man/man1/hotspotctl.1.gz": 0o644,
            "/usr/share/man/man1/hotspot-helper-agent.1.gz": 0o644,
            "/usr/share/man/man8/hotspot-helperd.8.gz": 0o644,
            "/usr/share/bash-completion/completions/hotspotctl": 0o644,
            "/usr/share/zsh/vendor-completions/_hotspotctl": 0o644,
            "/usr/share/fish/vendor_completions.d/hotspotctl.fish": 0o644,
        ]
        /// The programs: relative links to the one binary (Debian policy 10.5: relative within /usr).
        static let links: [String: String] = [
            "/usr/libexec/hotspot-helperd": "hotspot-helper/hotspot-helper",
            "/usr/bin/hotspotctl": "../libexec/hotspot-helper/hotspot-helper",
            "/usr/bin/hotspot-helper-agent": "../libexec/hotspot-helper/hotspot-helper",
        ]
        /// Directories the package owns on purpose (empty ones included).
        static let directories: [String: Int] = ["/etc/hotspot-helper/profiles.d": 0o755]

        static func temporaryDirectory(_ label: String) throws -> URL {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return dir
        }

        /// Runs `make TARGET` in the repository with the debug products of this test run.
        static func make(_ target: String, _ variables: [String: String]) async throws -> ManagedProcess.Result {
            let args = ["-C", TestKitPaths.repositoryRoot.path, "--no-print-directory", target, "SKIP_BUILD=1",
                        "BUILT_PRODUCTS=\(TestKitPaths.productsDirectory.path)"] + variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return try await ManagedProcess.run("/usr/bin/make", args, timeout: .seconds(240))
        }

        /// Installs into a fresh DESTDIR and returns it.
        static func install() async throws -> URL {
            let root = try temporaryDirectory("hotspot-destdir")
            let r = try await make("install", ["DESTDIR": root.path, "PREFIX": "/usr"])
            try #require(r.status == 0, "make install failed:\n\(r.stdout)\n\(r.stderr)")
            return root
        }

        static func stat(_ path: String) -> (mode: Int, uid: UInt32, gid: UInt32, isDirectory: Bool)? {
            var s = Glibc.stat()
            guard lstat(path, &s) == 0 else { return nil }
            return (Int(s.st_mode & 0o7777), s.st_uid, s.st_gid, (s.st_mode & S_IFMT) == S_IFDIR)
        }

        @Test func everyFileLandsWhereDebianExpectsItWithItsModeAndOwner() async throws {
            let root = try await Self.install()
            defer { try? FileManager.default.removeItem(at: root) }
            var files: Set<String> = []
            var directories: Set<String> = []
            let enumerator = FileManager.default.enumerator(atPath: root.path)
            while let relative = enumerator?.nextObject() as? String {
                let st = try #require(Self.stat(root.path + "/" + relative))
                if st.isDirectory { directories.insert("/" + relative) } else { files.insert("/" + relative) }
            }
            let expected = Set(Self.manifest.keys).union(Self.links.keys)
            #expect(files == expected, "unexpected: \(files.subtracting(expected).sorted()); missing: \(expected.subtracting(files).sorted())")
            for (link, target) in Self.links {
                #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: root.path + link)) == target, "\(link) does not point to \(target)")
            }
            for (path, mode) in Self.manifest.merging(Self.directories, uniquingKeysWith: { a, _ in a }) {
                let st = try #require(Self.stat(root.path + path), "\(path) is missing")
                #expect(st.mode == mode, "\(path): mode \(String(st.mode, radix: 8)), expected \(String(mode, radix: 8))")
                // Installed by whoever runs make install: root on a real system (the .deb is checked for root:root below).
                #expect(st.uid == getuid() && st.gid == getgid(), "\(path): owner \(st.uid):\(st.gid)")
            }
            for dir in directories {
                #expect(Self.stat(root.path + dir)?.mode == 0o755, "\(dir) is not 0755")
            }
            // The installed programs run (the one binary picks the program from its name), and
            // the completions name the command.
            let version = try await ManagedProcess.run(root.path + "/usr/bin/hotspotctl", ["--version"])
            #expect(version.stdout == "\(ProductVersion.current)\n")
            let agentHelp = try await ManagedProcess.run(root.path + "/usr/bin/hotspot-helper-agent", ["--help"])
            #expect(agentHelp.stdout.contains("USAGE: hotspot-helper-agent"), "\(agentHelp.stdout)")
            let daemonHelp = try await ManagedProcess.run(root.path + "/usr/libexec/hotspot-helperd", ["--help"])
            #expect(daemonHelp.stdout.contains("USAGE: hotspot-helperd"), "\(daemonHelp.stdout)")
            for completion in ["/usr/share/bash-completion/completions/hotspotctl", "/usr/share/zsh/vendor-completions/_hotspotctl",
                               "/usr/share/fish/vendor_completions.d/hotspotctl.fish"] {
                let text = try String(contentsOfFile: root.path + completion, encoding: .utf8)
                #expect(text.contains("hotspotctl") && text.contains("present-ui") && text.contains("monitor"), "\(completion)")
            }
        }

        @Test(.enabled(if: TestEnvironment.hasTool("/usr/bin/man"), "needs man (apt-get install man-db)"))
        func manPagesRenderWithoutWarnings() async throws {
            let root = try await Self.install()
            defer { try? FileManager.default.removeItem(at: root) }
            for page in ["man1/hotspotctl.1.gz", "man1/hotspot-helper-agent.1.gz", "man8/hotspot-helperd.8.gz"] {
                let r = try await ManagedProcess.run("/usr/bin/man", ["--warnings", "-l", root.path + "/usr/share/man/" + page],
                                                     environment: ["MANWIDTH": "80", "PAGER": "cat"])
                #expect(r.status == 0 && r.stderr.isEmpty, "\(page): \(r.stderr)")
                #expect(r.stdout.contains("EXIT STATUS") || page.contains("helperd"), "\(page)")
            }
        }

        @Test(.enabled(if: TestEnvironment.hasTool("/usr/bin/systemd-analyze"), "needs systemd-analyze (apt-get install systemd)"))
        func theInstalledUnitsPassSystemdAnalyzeVerify() async throws {
            let root = try await Self.install()
            defer { try? FileManager.default.removeItem(at: root) }
            // systemd-analyze checks that ExecStart exists and that the Documentation= man pages
            // resolve, so point both at the DESTDIR; everything else is the installed file.
            let work = try Self.temporaryDirectory("hotspot-units")
            let runtime = try Self.temporaryDirectory("hotspot-xdg-runtime")
            defer { try? FileManager.default.removeItem(at: work); try? FileManager.default.removeItem(at: runtime) }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
            for (unit, user) in [("/lib/systemd/system/hotspot-helperd.service", false), ("/usr/lib/systemd/user/hotspot-helper-agent.service", true)] {
                let text = try String(contentsOfFile: root.path + unit, encoding: .utf8)
                    .replacingOccurrences(of: "ExecStart=/usr/", with: "ExecStart=\(root.path)/usr/")
                let copy = work.appendingPathComponent(URL(fileURLWithPath: unit).lastPathComponent)
                try text.write(to: copy, atomically: false, encoding: .utf8)
                let r = try await ManagedProcess.run("/usr/bin/systemd-analyze", (user ? ["--user"] : []) + ["verify", copy.path],
                                                     environment: ["MANPATH": root.path + "/usr/share/man:", "XDG_RUNTIME_DIR": runtime.path])
                #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(unit): \(r.stdout)\(r.stderr)")
            }
            // The hardening: systemd's own exposure score (0 best, 10 worst); 1.7 when written.
            // Through a file: the table is long, and a pipe read under heavy load has lost it.
            let report = work.appendingPathComponent("security.txt")
            let security = try await ManagedProcess.run("/bin/sh", ["-c", "/usr/bin/systemd-analyze security --offline=true --no-pager \"$1\" > \"$2\" 2>&1",
                                                                    "sh", root.path + "/lib/systemd/system/hotspot-helperd.service", report.path])
            let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
            let overall = text.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
            let score = overall.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
            #expect(security.status == 0 && score != nil && score! <= 2.0, "status \(security.status): \(overall)\n\(text.suffix(2000))")
        }

        @Test(.enabled(if: TestEnvironment.hasTool("/usr/bin/desktop-file-validate"), "needs desktop-file-validate (apt-get install desktop-file-utils)"))
        func theAutostartEntryIsAValidDesktopFile() async throws {
            let r = try await ManagedProcess.run("/usr/bin/desktop-file-validate",
                                                 [TestKitPaths.repositoryRoot.appendingPathComponent("packaging/hotspot-helper-agent.desktop").path])
            #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
        }

        @Test(.enabled(if: TestEnvironment.hasTool("/usr/bin/dpkg-deb"), "dpkg-deb is missing: the .deb is not built (apt-get install dpkg)"))
        func makeDebBuildsAPackageWithEveryFileOwnedByRootAndTheDependenciesDeclared() async throws {
            let dir = try Self.temporaryDirectory("hotspot-deb")
            defer { try? FileManager.default.removeItem(at: dir) }
            let r = try await Self.make("deb", ["DEB_DIR": dir.path, "DEB_COMPRESS": "none", "NO_LINTIAN": "1"])
            try #require(r.status == 0, "make deb failed:\n\(r.stdout)\n\(r.stderr)")
            // The Shell extension's package is built beside it (ShellExtensionPackageTests).
            let deb = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("hotspot-helper_") && $0.hasSuffix(".deb") })
            let path = dir.appendingPathComponent(deb).path

            let info = try await ManagedProcess.run("/usr/bin/dpkg-deb", ["--info", path])
            #expect(info.status == 0)
            #expect(info.stdout.contains("Package: hotspot-helper"))
            #expect(info.stdout.contains("Version: \(ProductVersion.current)"))
            let depends = info.stdout.split(separator: "\n").first { $0.hasPrefix(" Depends:") } ?? ""
            // libcurl and libxml2 as Debian 13 and testing name them, then as Debian 12 does, so one
            // package installs on all three (scripts/build-deb.sh).
            for package in ["libdbus-1-3", "libcurl4t64 | libcurl4", "libxml2-16 | libxml2", "dbus", "polkitd", "network-manager"] {
                #expect(depends.contains(package), "Depends lacks \(package): \(depends)")
            }
            // Key files are read without GLib (KeyFile).
            #expect(!depends.contains("libglib2.0-0"), "Depends names GLib, which the binary no longer uses: \(depends)")
            for script in ["postinst", "prerm", "postrm", "conffiles", "md5sums"] { #expect(info.stdout.contains(script), "\(script)") }

            let contents = try await ManagedProcess.run("/usr/bin/dpkg-deb", ["--contents", path])
            var listed: [String: (mode: String, owner: String)] = [:]
            var targets: [String: String] = [:]
            for line in contents.stdout.split(separator: "\n") {
                let f = line.split(separator: " ", omittingEmptySubsequences: true)
                guard f.count >= 6 else { continue }
                listed[String(f[5].dropFirst())] = (String(f[0]), String(f[1]))
                if f.count == 8, f[6] == "->" { targets[String(f[5].dropFirst())] = String(f[7]) }
            }
            for (file, mode) in Self.manifest {
                let entry = try #require(listed[file], "the .deb lacks \(file)")
                #expect(entry.owner == "root/root", "\(file): \(entry.owner)")
                #expect(entry.mode == (mode == 0o755 ? "-rwxr-xr-x" : "-rw-r--r--"), "\(file): \(entry.mode)")
            }
            for (link, target) in Self.links {
                #expect(listed[link]?.mode == "lrwxrwxrwx" && targets[link] == target, "\(link): \(String(describing: listed[link])) -> \(targets[link] ?? "nothing")")
            }
            #expect(listed["/usr/share/doc/hotspot-helper/changelog.gz"] != nil)
        }
    }
}
