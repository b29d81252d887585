// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation

/// Where the test configuration and helper scripts live (the repository's `Tests/bus`).
public enum TestKitPaths {
    /// The repository root, found from this source file's location.
    public static let repositoryRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }()

    public static var busConfig: URL { repositoryRoot.appendingPathComponent("Tests/bus/test-bus.conf") }

    /// The test bus with the system-bus policy the package installs (dbus/*.conf) on top.
    public static var busConfigWithShippedPolicy: URL { repositoryRoot.appendingPathComponent("Tests/bus/test-bus-shipped-policy.conf") }

    /// The directory holding the built products (beside the running test bundle).
    public static var productsDirectory: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // `swift test` runs `<products>/<Package>PackageTests.xctest`, a file in the products dir.
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir
    }

    /// A built product by name, e.g. `hotspot-helperd`.
    public static func product(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }
}

/// Why a test cannot run here (a missing tool), for `.enabled(if:)` traits and skip messages.
public enum TestEnvironment {
    public static let python = "/usr/bin/python3"

    public static var hasDBusDaemon: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") }

    public static let hasDBusMock: Bool = {
        hasDBusDaemon && FileManager.default.isExecutableFile(atPath: python)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/__init__.py")
    }()

    public static func hasTool(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    public static var isRoot: Bool { getuid() == 0 }
}

/// A private dbus-daemon for one test. It stops when ``stop()`` is called or the object goes
/// away; daemons left behind by a crashed test run are reaped by the next run (see
/// ``ManagedProcess``).
public final class PrivateBus: Sendable {
    public let address: String
    public let process: ManagedProcess

    /// The directory holding the bus socket; removed when the bus stops.
    public let socketDirectory: URL

    /// Starts `dbus-daemon` with the test configuration (Tests/bus/test-bus.conf) and waits for
    /// its address. The socket is a file in a directory of its own, so processes in other network
    /// namespaces (`ip netns exec`) can connect too, and nothing is left in /tmp afterwards.
    ///
    /// `configuration` replaces the test configuration, e.g. with one that lets replies nobody
    /// asked for through (Tests/bus/test-bus-unrequested-replies.conf).
    public init(configuration: URL = TestKitPaths.busConfig) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hotspot-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        socketDirectory = dir
        ExitCleanup.register(dir)
        process = try ManagedProcess.launch(
            "/usr/bin/dbus-daemon",
            ["--config-file=\(configuration.path)", "--address=unix:dir=\(dir.path)", "--print-address=1", "--nofork", "--nopidfile"],
            name: "dbus-daemon")
        // Generous: a loaded 2-core machine starting many buses at once can take seconds; only a
        // failure waits this long.
        guard let line = await process.waitForFirstStdoutLine(timeout: .seconds(30)), line.hasPrefix("unix:") else {
            process.stop()
            ExitCleanup.remove(dir)
            throw TestKitError.startFailed("dbus-daemon printed no address; its log:\n\(process.output)")
        }
        address = line
    }

    deinit { stop() }

    /// Stops the bus (every connection on it sees a disconnect) and removes its socket.
    public func stop() {
        process.stop()
        ExitCleanup.remove(socketDirectory)
    }

    /// The environment a child process needs to use this bus as both its system and session bus.
    public var environment: [String: String] {
        ["DBUS_SYSTEM_BUS_ADDRESS": address, "DBUS_SESSION_BUS_ADDRESS": address, "DBUS_STARTER_BUS_TYPE": "system"]
    }

    /// A new connection to this bus.
    public func connect() throws -> Connection { try Connection(address: address) }

    /// Waits until `name` has an owner on this bus (generous by default: a loaded machine starting
    /// many processes at once can take seconds; only a failure waits that long).
    public func waitForName(_ name: String, timeout: Duration = .seconds(30)) async throws {
        let c = try connect()
        defer { Task { await c.close() } }
        // Woken by NameOwnerChanged (the stream starts with the owner now).
        let owners = try await c.watchNameOwner(BusName(name))
        guard await firstElement(of: owners, within: timeout, where: { $0 != nil }) != nil else {
            throw TestKitError.timeout("no owner for \(name) on the test bus within \(timeout)")
        }
    }

    /// Waits until nobody owns `name` on this bus.
    public func waitForNameGone(_ name: String, timeout: Duration = .seconds(30)) async throws {
        let c = try connect()
        defer { Task { await c.close() } }
        let owners = try await c.watchNameOwner(BusName(name))
        guard await firstElement(of: owners, within: timeout, where: { $0 == nil }) != nil else {
            throw TestKitError.timeout("\(name) still has an owner on the test bus after \(timeout)")
        }
    }

    /// Starts a python-dbusmock process on this bus: a template (`networkmanager`, `polkitd`,
    /// `notification_daemon`…) with optional parameters, or a plain mock object.
    public func startMock(template: String, parameters: String? = nil, waitFor name: String) async throws -> DBusMock {
        var args = ["-m", "dbusmock", "--template", template]
        if let parameters { args += ["--parameters", parameters] }
        return try await startMock(args: args, name: name)
    }

    /// A plain mock object (`python3 -m dbusmock NAME PATH INTERFACE`) on the system-bus role.
    public func startMock(name: String, path: String, interface: String, objectManager: Bool = false) async throws -> DBusMock {
        try await startMock(args: ["-m", "dbusmock", "--system"] + (objectManager ? ["-m"] : []) + [name, path, interface], name: name)
    }

    private func startMock(args: [String], name: String) async throws -> DBusMock {
        // The mock logs every call and signal: to /dev/null, not to a pipe this process reads on
        // every line (tests read the calls back with GetCalls; errors still reach stderr).
        let args = args.prefix(2) + ["--logfile", "/dev/null"] + args.dropFirst(2)
        let p = try ManagedProcess.launch(TestEnvironment.python, Array(args), environment: environment, name: "dbusmock(\(name))")
        do {
            try await waitForName(name)
        } catch {
            p.stop()
            throw TestKitError.startFailed("python-dbusmock did not take \(name): \(p.output)")
        }
        return DBusMock(process: p, busName: name, bus: self)
    }

    /// Runs a command with this bus in its environment (busctl, gdbus…) and returns its result.
    public func run(_ executable: String, _ arguments: [String]) async throws -> ManagedProcess.Result {
        try await ManagedProcess.run(executable, arguments, environment: environment)
    }
}

/// A python-dbusmock process and the helpers to drive it through `org.freedesktop.DBus.Mock`.
public final class DBusMock: Sendable {
    public let process: ManagedProcess
    public let busName: String
    public let bus: PrivateBus

    init(process: ManagedProcess, busName: String, bus: PrivateBus) {
        self.process = process
        self.busName = busName
        self.bus = bus
    }

    deinit { process.stop() }

    public func stop() { process.stop() }

    /// Calls a method of the mock's `org.freedesktop.DBus.Mock` interface at `path`.
    @discardableResult
    public func mockCall(_ connection: Connection, path: String, _ member: String, _ body: [DBusValue]) async throws -> [DBusValue] {
        try await connection.call(busName, path, "org.freedesktop.DBus.Mock", member, body)
    }

    /// Adds a method implemented by Python code (`args` holds the arguments; set `ret`).
    public func addMethod(_ connection: Connection, path: String = "/", interface: String, name: String,
                          inSignature: String, outSignature: String, code: String) async throws {
        try await mockCall(connection, path: path, "AddMethod",
                           [.string(interface), .string(name), .string(inSignature), .string(outSignature), .string(code)])
    }

    /// The calls the mock object at `path` recorded: (timestamp, method, arguments).
    public func calls(_ connection: Connection, path: String = "/") async throws -> [(method: String, args: [DBusValue])] {
        let reply = try await mockCall(connection, path: path, "GetCalls", [])
        return (reply.first?.arrayItems ?? []).compactMap { call in
            guard let f = call.structFields, f.count == 3, let m = f[1].string else { return nil }
            return (m, f[2].arrayItems?.map(\.unwrapped) ?? [])
        }
    }
}

public enum TestKitError: Error, CustomStringConvertible {
    case startFailed(String)
    case timeout(String)
    public var description: String {
        switch self {
        case .startFailed(let s): return "could not start: \(s)"
        case .timeout(let s): return "timed out: \(s)"
        }
    }
}

extension Error {
    /// The D-Bus error name of a thrown error, for assertions.
    public var dbusName: String? { (self as? DBus.DBusError)?.name }
}
