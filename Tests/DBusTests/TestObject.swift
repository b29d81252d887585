// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import Synchronization

struct ScriptedFailure: DBusErrorConvertible {
    var dbusErrorName: String { "org.example.Test.Error.Scripted" }
    var dbusErrorMessage: String { "the test asked for this failure" }
}

/// An object exported by the layer for the bus tests: methods of many signatures, properties of
/// each access kind and a signal.
final class TestObject: Sendable {
    static let interface: InterfaceName = "org.example.Test"
    static let path: ObjectPath = "/org/example/Test"
    let name = Mutex("initial")
    let lastCaller = Mutex<String?>(nil)
    /// Calls of Sleep begun so far: a test waits for its call to be under way
    /// (``waitForSleeper(_:)``) instead of sleeping first.
    let sleepers = Counter()

    /// Waits until the `n`th call of Sleep is under way in the method.
    func waitForSleeper(_ n: Int = 1) async throws {
        try await sleepers.wait(atLeast: n, "Sleep call \(n) is under way")
    }
    /// Hold's gate: a call of Hold answers only once the test has opened it (``release()``), so
    /// a test knows its call cannot have been answered before, whatever the machine's speed.
    let holdOpen = Mutex(false)
    let holdChanges = Changes()
    /// Calls of Hold begun, and answered (the method returned).
    let holders = Counter()
    let holdsAnswered = Counter()

    /// Lets every call of Hold, under way or to come, answer.
    func release() {
        holdOpen.withLock { $0 = true }
        holdChanges.bump()
    }

    var table: DBusInterface {
        DBusInterface(Self.interface,
            methods: [
                DBusMethod("Echo", inputs: [DBusArgument("value", "v")], outputs: [DBusArgument("value", "v")]) { call in call.body },
                DBusMethod("Types",
                           inputs: [DBusArgument("y", "y"), DBusArgument("b", "b"), DBusArgument("n", "n"), DBusArgument("q", "q"),
                                    DBusArgument("i", "i"), DBusArgument("u", "u"), DBusArgument("x", "x"), DBusArgument("t", "t"),
                                    DBusArgument("d", "d"), DBusArgument("s", "s"), DBusArgument("o", "o"), DBusArgument("g", "g")],
                           outputs: [DBusArgument("summary", "s")]) { call in
                    [.string(call.body.map(\.description).joined(separator: "|"))]
                },
                DBusMethod("Options", inputs: [DBusArgument("options", "a{sv}")], outputs: [DBusArgument("keys", "as")]) { call in
                    [.strings((call.body[0].varDict ?? [:]).keys.sorted())]
                },
                DBusMethod("Fail") { _ in throw ScriptedFailure() },
                DBusMethod("Sleep", inputs: [DBusArgument("ms", "u")]) { [self] call in
                    self.sleepers.add()
                    try await Task.sleep(for: .milliseconds(Int(call.body[0].uint32 ?? 0)))
                    return []
                },
                DBusMethod("Hold") { [self] _ in
                    self.holders.add()
                    try await self.holdChanges.until("the test releases Hold") { self.holdOpen.withLock { $0 } }
                    self.holdsAnswered.add()
                    return []
                },
                DBusMethod("WhoAmI", outputs: [DBusArgument("sender", "s")]) { [self] call in
                    self.lastCaller.withLock { $0 = call.sender }
                    return [.string(call.sender)]
                },
            ],
            properties: [
                DBusProperty("Name", .string, get: { [self] in .string(self.name.withLock { $0 }) },
                             set: { [self] value, _ in self.name.withLock { $0 = value.string ?? "" } }),
                DBusProperty("Paths", .array(.objectPath), get: { .objectPaths(["/a", "/b"]) }),
                DBusProperty("Version", .string, emitsChanged: .const, get: { "1.0" }),
                DBusProperty("Broken", .uint32, get: { throw ScriptedFailure() }),
            ],
            signals: [DBusSignalDescription("Pinged", [DBusArgument("message", "s"), DBusArgument("paths", "ao")])])
    }
}

/// A private bus with one exporting and one calling connection.
struct BusFixture {
    let bus: PrivateBus
    let server: Connection
    let client: Connection
    let object = TestObject()
    static let serviceName: BusName = "org.example.TestService"

    init() async throws {
        bus = try await PrivateBus()
        server = try bus.connect()
        client = try bus.connect()
        try await server.export([object.table], at: TestObject.path)
        try await server.requestName(Self.serviceName)
    }

    func call(_ member: MemberName, _ body: [DBusValue] = [], interface: InterfaceName = TestObject.interface,
              path: ObjectPath = TestObject.path, timeout: Duration = SafetyNet.wait) async throws -> [DBusValue] {
        try await client.call(destination: Self.serviceName, path: path, interface: interface, member: member, body: body, timeout: timeout)
    }
}

