// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HotspotTesting
import Synchronization

/// A cached Debian root of another release (scripts/test-root.sh makes and caches it), seen
/// through an overlay (the cache is never written) in a mount namespace of its own, held by one
/// process: /proc, /sys, /dev and this machine's /tmp (the private buses' sockets, scratch
/// directories, packages) are mounted in it, and everything goes with that process. GNOME Shell
/// 48 and 50 (``ShellRoot``) and Plasma (``PlasmaRoot``) run in one.
final class TestRoot: Sendable {
    let release: String
    let scratch: ScratchDirectory
    /// The root as the namespace sees it.
    let merged: String
    private let lower: String
    private let holder = Mutex<ManagedProcess?>(nil)

    /// Why the roots of `releases` (`described` in the message) cannot be used here; nil when
    /// they can.
    static func unavailable(_ releases: [String], described: String) -> String? {
        if !TestEnvironment.isRoot { return "needs root (debootstrap, overlay mounts, chroot)" }
        for tool in ["/usr/bin/unshare", "/usr/bin/nsenter", "/usr/sbin/chroot", "/usr/sbin/debootstrap"] where !TestEnvironment.hasTool(tool) {
            return "needs \(tool) (apt-get install util-linux coreutils debootstrap)"
        }
        if !TestEnvironment.hasDBusMock { return "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)" }
        // scripts/test-root.sh makes a missing root from the mirror: without one cached and
        // without the mirror, there is nothing to run in.
        let cache = ProcessInfo.processInfo.environment["HOTSPOT_ROOTS"] ?? "/var/cache/hotspot-helper/roots"
        let cached = releases.allSatisfy { FileManager.default.fileExists(atPath: "\(cache)/\($0)/.hotspot-root") }
        if !cached, let host = mirrorHost, !resolves(host) {
            return "no cached \(described) in \(cache) and the mirror \(host) does not resolve (scripts/test-root.sh needs it once)"
        }
        return nil
    }

    /// The host of the mirror scripts/test-root.sh uses (as it finds it), if any.
    static var mirrorHost: String? {
        let configured = ProcessInfo.processInfo.environment["HOTSPOT_ROOTS_MIRROR"]
            ?? (try? String(contentsOfFile: "/etc/apt/sources.list.d/debian.sources", encoding: .utf8))?
                .split(separator: "\n").first { $0.hasPrefix("URIs:") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) }
            ?? "http://deb.debian.org/debian"
        return URL(string: configured)?.host
    }

    static func resolves(_ host: String) -> Bool {
        var result: UnsafeMutablePointer<addrinfo>?
        defer { if let result { freeaddrinfo(result) } }
        return getaddrinfo(host, nil, nil, &result) == 0
    }

    /// The cached root of `release` (made by scripts/test-root.sh if it is missing: minutes,
    /// once), mounted.
    static func prepare(_ release: String) async throws -> TestRoot {
        let made = try await ManagedProcess.run(TestKitPaths.repositoryRoot.appendingPathComponent("scripts/test-root.sh").path, [release], timeout: .seconds(3600))
        guard made.status == 0, let lower = made.stdout.split(separator: "\n").last.map(String.init), !lower.isEmpty else {
            throw TestKitError.startFailed("scripts/test-root.sh \(release) failed (\(made.status)):\n\(made.stderr.suffix(3000))")
        }
        let root = try TestRoot(release: release, lower: lower)
        try await root.mount()
        return root
    }

    private init(release: String, lower: String) throws {
        self.release = release
        self.lower = lower
        scratch = try ScratchDirectory("root-\(release)")
        merged = scratch.appendingPathComponent("merged").path
    }

    private func mount() async throws {
        let fm = FileManager.default
        for d in ["upper", "work", "merged"] { try fm.createDirectory(atPath: scratch.appendingPathComponent(d).path, withIntermediateDirectories: true) }
        let u = scratch.appendingPathComponent("upper").path, w = scratch.appendingPathComponent("work").path
        let script = """
            set -e
            mount -t overlay overlay -o lowerdir=\(lower),upperdir=\(u),workdir=\(w) \(merged)
            mount -t proc proc \(merged)/proc
            mount --rbind /sys \(merged)/sys
            mount --rbind /dev \(merged)/dev
            mount --bind /tmp \(merged)/tmp
            echo ready
            exec sleep infinity
            """
        let p = try ManagedProcess.launch("/usr/bin/unshare", ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script], name: "root-\(release)")
        holder.withLock { $0 = p }
        guard await p.waitForFirstStdoutLine(timeout: .seconds(60)) == "ready" else {
            p.stop()
            throw TestKitError.startFailed("the \(release) root's mounts failed: \(p.output)")
        }
    }

    /// The process holding the root's mount namespace.
    var pid: Int32 { holder.withLock { $0!.pid } }

    deinit { holder.withLock { $0?.stop() } }

    /// `shell` (a /bin/sh script) run in the root's mount namespace, outside the chroot: it sees
    /// this machine's files and the root at ``merged``.
    func runBeside(_ shell: String) async throws -> ManagedProcess.Result {
        try await ManagedProcess.run("/usr/bin/nsenter", ["--target", "\(pid)", "--mount", "--", "/bin/sh", "-c", shell])
    }

    /// `command` run in the root (in its mount namespace, chrooted).
    func command(_ command: [String]) -> [String] {
        ["/usr/bin/nsenter", "--target", "\(pid)", "--mount", "--", "/usr/sbin/chroot", merged] + command
    }

    func run(_ command: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> ManagedProcess.Result {
        let c = self.command(command)
        return try await ManagedProcess.run(c[0], Array(c.dropFirst()), environment: environment, timeout: timeout)
    }

    /// `command` started in the root with this process's environment and `environment` over it.
    func launch(_ command: [String], environment: [String: String] = [:], name: String) throws -> ManagedProcess {
        let c = self.command(command)
        return try ManagedProcess.launch(c[0], Array(c.dropFirst()), environment: environment, name: name)
    }

    /// `command` started in the root with exactly `environment`.
    func launch(_ command: [String], onlyEnvironment environment: [String: String], name: String) throws -> ManagedProcess {
        let env = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try launch(["/usr/bin/env", "-i"] + env + command, name: name)
    }
}
