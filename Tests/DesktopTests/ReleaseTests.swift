// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import Testing

/// The tree `make deb` staged and the package it built (debian-build/, or HOTSPOT_DEB_DIR):
/// what the release tests run. `make test` builds it first.
enum ReleaseBuild {
    static var directory: URL {
        if let dir = ProcessInfo.processInfo.environment["HOTSPOT_DEB_DIR"] { return URL(fileURLWithPath: dir) }
        return TestKitPaths.repositoryRoot.appendingPathComponent("debian-build")
    }
    static var root: URL { directory.appendingPathComponent("root") }
    static func program(_ path: String) -> String { root.path + path }
    static let hotspotctl = "/usr/bin/hotspotctl"
    static let agent = "/usr/bin/hotspot-helper-agent"
    static let daemon = "/usr/libexec/hotspot-helperd"
    /// The one binary behind the three names.
    static let binary = "/usr/libexec/hotspot-helper/hotspot-helper"

    static var isPresent: Bool { FileManager.default.isExecutableFile(atPath: program(binary)) }

    /// The unstripped binary the staged one was stripped from: `make deb` writes where it took it
    /// (BUILT_PRODUCTS) to debian-build/built-products.
    static var unstripped: String {
        let recorded = (try? String(contentsOf: directory.appendingPathComponent("built-products"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let products = recorded.flatMap { $0.isEmpty ? nil : $0 } ?? TestKitPaths.repositoryRoot.appendingPathComponent(".build-release/release").path
        return products + "/hotspot-helper"
    }

    /// The GNU build ID of an ELF file (`readelf -n`), which stripping keeps.
    static func buildID(of path: String) async throws -> String? {
        let notes = try await ManagedProcess.run("/usr/bin/readelf", ["-n", path], timeout: .seconds(30)).stdout
        return notes.split(separator: "\n").first { $0.contains("Build ID:") }?
            .split(separator: " ").last.map(String.init)
    }

    /// The newest hotspot-helper_*.deb beside the staged tree.
    static var deb: String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("hotspot-helper_") && $0.hasSuffix(".deb") }.sorted().last.map { directory.appendingPathComponent($0).path }
    }
}

extension PackageTests {
    /// The release programs `make deb` packages (stripped, static Swift runtime, one binary behind
    /// three names): the signals the debug builds were tested with, which the release builds
    /// used to ignore.
    @Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)"),
           .enabled(if: ReleaseBuild.isPresent, "no release build in debian-build/: run `make deb` first (make test does)"))
    struct ReleaseTests {
        @Test func releaseMonitorEndsWithStatusZeroOnCtrlCAndOnSIGTERM() async throws {
            let d = try await Desktop()
            let human = try ManagedProcess.launch(ReleaseBuild.program(ReleaseBuild.hotspotctl), ["monitor"], environment: d.bus.environment)
            let lines = try ManagedProcess.launch(ReleaseBuild.program(ReleaseBuild.hotspotctl), ["--json", "monitor"], environment: d.bus.environment)
            #expect(await human.waitForOutput(containing: "wlan0: inactive"), "\(human.output)")
            #expect(await lines.waitForOutput(containing: #""to":"inactive""#), "\(lines.output)")
            human.send(SIGINT)
            #expect(await human.waitForExit(timeout: .seconds(10)) == 0, "\(human.output)")
            lines.send(SIGTERM)
            #expect(await lines.waitForExit(timeout: .seconds(10)) == 0, "\(lines.output)")
        }

        @Test func releaseAgentEndsWithStatusZeroOnSIGTERMAndOnSIGINT() async throws {
            let d = try await Desktop()
            for signal in [SIGTERM, SIGINT] {
                let s = try await DesktopTests.AgentTests.Session()
                let agent = try ManagedProcess.launch(ReleaseBuild.program(ReleaseBuild.agent), ["--browser", s.browser.path],
                                                      environment: ["DBUS_SYSTEM_BUS_ADDRESS": d.bus.address, "DBUS_SESSION_BUS_ADDRESS": s.bus.address])
                #expect(await agent.waitForOutput(containing: "listening to hotspot-helperd"), "\(agent.output)")
                agent.send(signal)
                #expect(await agent.waitForExit(timeout: .seconds(10)) == 0, "signal \(signal): \(agent.output)")
            }
        }

        @Test func releaseDaemonShutsDownOnSIGTERMReleasingItsNameAndWritesPlainLinesOutsideTheJournal() async throws {
            let bus = try await PrivateBus()
            let nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
            defer { nm.stop() }
            let dir = try DesktopTests.InstallTests.temporaryDirectory("hotspot-release-daemon")
            defer { try? FileManager.default.removeItem(at: dir) }
            let config = dir.appendingPathComponent("hotspot-helperd.conf")
            try "[daemon]\nstate-dir=\(dir.path)/state\nbuiltin-helpers=\n[connectivity]\nenabled=false\n".write(to: config, atomically: false, encoding: .utf8)
            // JOURNAL_STREAM names stderr only when it matches fd 2's device and inode; the
            // pipe ManagedProcess gives the child is not the journal, so: plain lines here.
            let daemon = try ManagedProcess.launch(ReleaseBuild.program(ReleaseBuild.daemon), ["--config", config.path],
                                                   environment: bus.environment.merging(["JOURNAL_STREAM": "0:0"]) { $1 })
            try await bus.waitForName(HotspotContract.busName.rawValue)
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0, "\(daemon.output)")
            #expect(daemon.output.contains("shutting down: SIGTERM"), "\(daemon.output)")
            #expect(!daemon.output.contains("<6>"), "\(daemon.output)")
            try await bus.waitForNameGone(HotspotContract.busName.rawValue)
        }

        @Test func releaseDaemonPrefixesSyslogPrioritiesWhenStderrIsTheJournal() async throws {
            let bus = try await PrivateBus()
            let dir = try DesktopTests.InstallTests.temporaryDirectory("hotspot-release-journal")
            defer { try? FileManager.default.removeItem(at: dir) }
            let log = dir.appendingPathComponent("stderr")
            let config = dir.appendingPathComponent("hotspot-helperd.conf")
            try "[daemon]\nstate-dir=\(dir.path)/state\nbuiltin-helpers=\n[connectivity]\nenabled=false\nallow-plain-http-login=true\n".write(to: config, atomically: false, encoding: .utf8)
            // Stand in for journald: stderr is a file, and JOURNAL_STREAM names its device and inode.
            let script = """
                exec 2>"$1"; set -- $(stat -c '%d %i' "$1"); export JOURNAL_STREAM="$1:$2"; exec "$3" --config "$4"
                """
            let daemon = try ManagedProcess.launch("/bin/sh", ["-c", script.replacingOccurrences(of: "$3", with: ReleaseBuild.program(ReleaseBuild.daemon))
                                                                         .replacingOccurrences(of: "$4", with: config.path), "sh", log.path],
                                                   environment: bus.environment)
            try await bus.waitForName(HotspotContract.busName.rawValue)
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            let lines = (try String(contentsOf: log, encoding: .utf8)).split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("<4>") && $0.contains("allow-plain-http-login is no longer read") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("<6>hotspot-helperd \(ProductVersion.current) running") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("<6>shutting down: SIGTERM") }, "\(lines)")
            #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(lines)")
        }
        /// An idle daemon (NetworkManager with one Wi-Fi device, nothing joined, the shipped
        /// defaults) is not woken: no timer ticks without work. With libdispatch's pool
        /// as the global executor its monitor woke the process every second; the programs' own
        /// executor waits without a timeout. Counted over every thread's context switches in a
        /// quiet window, allowing one stray (an unrelated bus message).
        @Test func releaseDaemonIsNotWokenWhileIdle() async throws {
            // The control: with libdispatch's pool (HOTSPOT_HELPER_PLATFORM_EXECUTOR) the same
            // daemon is woken every second, so the count below can see a tick.
            let platform = try await Self.idleSwitches(environment: ["HOTSPOT_HELPER_PLATFORM_EXECUTOR": "1"])
            #expect(platform.woke >= 3, "libdispatch's pool ticks once a second: \(platform.woke) switches in 5 s")
            let own = try await Self.idleSwitches(environment: [:])
            #expect(own.woke <= 1, "the idle daemon's threads switched \(own.woke) times in 5 s\n\(own.log.suffix(3000))")
        }

        /// Counts the settled release daemon's threads' context switches over 5 quiet seconds.
        static func idleSwitches(environment: [String: String]) async throws -> (woke: Int, log: String) {
            let settled = try await SettledReleaseDaemon(label: "idle", environment: environment)
            defer { withExtendedLifetime(settled) {} }
            try await Task.sleep(for: .seconds(2))  // start-up threads gone
            let before = threadSwitches(settled.daemon.pid)
            try await Task.sleep(for: .seconds(5))
            let after = threadSwitches(settled.daemon.pid)
            let woke = after.reduce(0) { $0 + max(0, $1.value.switches - (before[$1.key]?.switches ?? $1.value.switches)) }
            return (woke, settled.daemon.output)
        }

        /// Each thread of `pid` (by id): its name and its context switches so far.
        static func threadSwitches(_ pid: Int32) -> [String: (name: String, switches: Int)] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return Dictionary(uniqueKeysWithValues: tasks.map { t in
                let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/status", encoding: .utf8)) ?? ""
                let lines = status.split(separator: "\n")
                let name = lines.first { $0.hasPrefix("Name:") }.map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) } ?? ""
                return (t, (name, lines.filter { $0.contains("ctxt_switches") }
                    .compactMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)))
            })
        }

        /// The release daemon's bus thread only routes messages: a method handled in a task
        /// (ForgetNetwork) runs on the executor's workers, so a slow or hostile piece of work
        /// (a portal's page being read, a state file synced) can never hold the bus. Were the
        /// tasks on the bus thread, the workers would sleep through a hundred calls.
        @Test func releaseDaemonHandlesCallsOffItsBusThread() async throws {
            let settled = try await SettledReleaseDaemon(label: "thread")
            defer { withExtendedLifetime(settled) {} }
            let (c, daemon) = (settled.client, settled.daemon)
            try await Task.sleep(for: .seconds(1))
            let before = Self.threadSwitches(daemon.pid)
            for i in 0..<100 {
                _ = try await c.call(destination: HotspotContract.busName, path: HotspotContract.managerPath, interface: HotspotContract.managerInterface,
                                     member: "ForgetNetwork", body: [.bytes(Array("Net\(i)".utf8))])
            }
            let after = Self.threadSwitches(daemon.pid)
            func grown(_ name: String) -> Int {
                after.filter { $0.value.name == name }.reduce(0) { $0 + $1.value.switches - (before[$1.key]?.switches ?? 0) }
            }
            #expect(after.values.contains { $0.name == "hh-worker" }, "the executor's workers are named hh-worker: \(after.values.map(\.name))")
            #expect(grown("dbus-connection") >= 100, "the bus thread switched \(grown("dbus-connection")) times for 100 calls")
            #expect(grown("hh-worker") >= 100, "the workers switched \(grown("hh-worker")) times for 100 calls: the handling did not run on them\n\(daemon.output.suffix(2000))")
        }

        /// libcurl and libxml2 are loaded when first used (Sources/CLazyLibraries): the
        /// shipped binary needs neither to start, names both in its ELF `.note.dlopen` note, and
        /// an idle daemon maps neither them nor what they pull in (OpenSSL, GnuTLS, Kerberos; ICU).
        /// libstdc++ is linked in, as the Swift runtime that uses it is (Makefile, STATIC_CXX_FLAGS).
        @Test func releaseDaemonStartsWithoutLibcurlOrLibxml2AndAnIdleOneMapsNeither() async throws {
            let elf = try await ManagedProcess.run("/usr/bin/readelf", ["-d", ReleaseBuild.program(ReleaseBuild.binary)], timeout: .seconds(30))
            #expect(elf.stdout.contains("libdbus-1.so.3"), "readelf -d lists the libraries: \(elf.stdout)")
            for library in ["libcurl", "libxml2", "libstdc++"] {
                #expect(!elf.stdout.contains(library), "the shipped binary needs \(library) to start:\n\(elf.stdout)")
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: ReleaseBuild.program(ReleaseBuild.binary)))
            // libxml2 under both sonames, the newest first: libxml2.so.16 (2.14 and later:
            // Debian testing), libxml2.so.2 (Debian 12 and 13).
            for sonames in [#"["libcurl.so.4"]"#, #"["libxml2.so.16","libxml2.so.2"]"#] {
                #expect(bytes.range(of: Data("\"soname\":\(sonames)".utf8)) != nil, "no .note.dlopen naming \(sonames)")
            }

            let settled = try await SettledReleaseDaemon(label: "lazy")
            defer { withExtendedLifetime(settled) {} }
            let daemon = settled.daemon
            // cat, not String(contentsOfFile:): a /proc file has no size, and that read stops short.
            let maps = try await ManagedProcess.run("/bin/cat", ["/proc/\(daemon.pid)/maps"], timeout: .seconds(10)).stdout
            #expect(maps.contains("libdbus-1.so"), "the maps are read: \(maps.prefix(2000))")
            for library in ["libcurl.so", "libssl.so", "libgnutls.so", "libkrb5.so", "libxml2.so", "libicuuc.so", "libstdc++.so"] {
                #expect(!maps.contains(library), "the idle daemon maps \(library)")
            }
        }

        /// The layout that keeps the idle daemon's resident set small (Makefile, docs/PACKAGING.md):
        /// relative relocations packed (DT_RELR) and no symbols exported. The link order
        /// (packaging/hotspot-helper.order) is not checked here: it only saves memory, and
        /// `make release` warns when it has gone stale (Tools/link-order/check).
        @Test func releaseBinaryHasPackedRelocationsAndNoExports() async throws {
            let shipped = ReleaseBuild.program(ReleaseBuild.binary)
            let dynamic = try await ManagedProcess.run("/usr/bin/readelf", ["-d", "--dyn-syms", "-W", shipped], timeout: .seconds(30))
            #expect(dynamic.stdout.contains("(RELR)"), "no DT_RELR: relative relocations are not packed\n\(dynamic.stdout.prefix(3000))")
            let exported = dynamic.stdout.split(separator: "\n").filter { $0.contains(" GLOBAL ") && !$0.contains(" UND ") }
            #expect(exported.count < 50, "the binary exports \(exported.count) symbols: \(exported.prefix(5))")
        }

        /// ICU's data (`icudt…`, about 30 MB) comes with full Foundation; the shipped binary links
        /// FoundationEssentials only. Libraries the system provides (libxml2 links
        /// Debian's libicu) are not in the binary and not counted.
        @Test func releaseBinaryCarriesNoICUData() throws {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: ReleaseBuild.program(ReleaseBuild.binary)))
            let marker = Data("icudt".utf8)
            let found = bytes.range(of: marker)
            #expect(found == nil, "ICU data in the shipped binary at offset \(found?.lowerBound ?? 0): a module of the daemon, hotspotctl or the agent imports full Foundation (use FoundationEssentials)")
            #expect(bytes.count < 40 * 1024 * 1024, "the shipped binary is \(bytes.count / 1024 / 1024) MiB")
        }

        @Test(.enabled(if: TestEnvironment.hasTool("/usr/bin/lintian"), "needs lintian (apt-get install lintian)"))
        func lintianFindsNoErrorsNoWarningsAndNoHardeningOrCopyrightTags() async throws {
            let deb = try #require(ReleaseBuild.deb, "no .deb in \(ReleaseBuild.directory.path): run `make deb`")
            let r = try await ManagedProcess.run("/usr/bin/lintian", ["-I", "-E", "--pedantic", "--tag-display-limit", "0", deb], timeout: .seconds(300))
            // One finding per line: "X: package: tag [context]".
            let findings = r.stdout.split(separator: "\n").compactMap { line -> (kind: Character, tag: String)? in
                let f = line.split(separator: " ")
                guard f.count >= 3, f[0].count == 2, f[0].hasSuffix(":"), f[1] == "hotspot-helper:" else { return nil }
                return (f[0].first!, String(f[2]))
            }
            #expect(r.status == 0 || !findings.isEmpty, "lintian failed: \(r.stderr)")
            let refused = findings.filter { $0.kind == "E" || $0.kind == "W" || $0.tag.contains("hardening") || $0.tag.contains("copyright") }
            #expect(refused.isEmpty, "\(refused.map { "\($0.kind): \($0.tag)" })\n\(r.stdout)")
        }
    }
}

/// The release daemon against a NetworkManager with one Wi-Fi device and one network in range,
/// settled (wlan0 published, its scan list filtered), with the shipped defaults in a scratch
/// directory; everything stops and goes with the object.
final class SettledReleaseDaemon {
    let bus: PrivateBus
    let nm: DBusMock
    let client: Connection
    let directory: URL
    let daemon: ManagedProcess

    init(label: String, environment: [String: String] = [:]) async throws {
        bus = try await PrivateBus()
        nm = try await bus.startMock(template: "networkmanager", waitFor: "org.freedesktop.NetworkManager")
        client = try bus.connect()
        _ = try await nm.setUpWiFi(client, accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")])
        directory = try DesktopTests.InstallTests.temporaryDirectory("hotspot-release-\(label)")
        let config = directory.appendingPathComponent("hotspot-helperd.conf")
        try "[daemon]\nstate-dir=\(directory.path)/state\nprofiles-dir=\(directory.path)/profiles\n".write(to: config, atomically: false, encoding: .utf8)
        daemon = try ManagedProcess.launch(ReleaseBuild.program(ReleaseBuild.daemon), ["--config", config.path, "--log-level", "debug"],
                                           environment: bus.environment.merging(environment) { $1 })
        try await bus.waitForName(HotspotContract.busName.rawValue)
        guard await daemon.waitForOutput(containing: "scan list of 1 network") else {
            throw TestKitError.startFailed("the release daemon did not settle (no filtered scan list within \(SafetyNet.wait)):\n\(daemon.output)")
        }
    }

    deinit {
        daemon.stop()
        nm.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
