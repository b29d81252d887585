// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import Testing

/// The layer against a peer written with dbus-python (python-dbusmock): values it decodes and
/// re-encodes come back equal, and a peer that dies mid-call fails the call at once.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ForeignPeerTests {
    static let name = "org.example.PythonPeer"

    func startPeer() async throws -> (PrivateBus, DBusMock, Connection) {
        let bus = try await PrivateBus()
        let mock = try await bus.startMock(name: Self.name, path: "/peer", interface: "org.example.Peer")
        let c = try bus.connect()
        try await mock.addMethod(c, path: "/peer", interface: "org.example.Peer", name: "Echo", inSignature: "v", outSignature: "v", code: "ret = args[0]")
        try await mock.addMethod(c, path: "/peer", interface: "org.example.Peer", name: "Hang", inSignature: "", outSignature: "", code: "import time; time.sleep(60)")
        return (bus, mock, c)
    }

    @Test func randomValuesRoundTripThroughAPythonPeer() async throws {
        let (bus, mock, c) = try await startPeer()
        let seed = UInt64(0xB0B)
        var gen = ValueGenerator(seed: seed)
        for i in 0..<200 {
            let v = gen.value()
            let back = try await c.call(Self.name, "/peer", "org.example.Peer", "Echo", [.variant(v)])
            #expect(back == [.variant(v)], "seed \(seed) case \(i): sent \(v), got \(back)")
        }
        let calls = try await mock.calls(c, path: "/peer")
        #expect(calls.filter { $0.method == "Echo" }.count == 200)
        _ = bus
    }

    @Test func aPeerThatVanishesMidCallFailsTheCallAtOnce() async throws {
        let (bus, mock, c) = try await startPeer()
        // python-dbusmock announces each call (MethodCalled) before it runs the method's code.
        let announced = try await c.signals(matching: MatchRule(path: "/peer", interface: "org.freedesktop.DBus.Mock", member: "MethodCalled"))
        let call = Task { try await c.call(Self.name, "/peer", "org.example.Peer", "Hang", [], timeout: .seconds(600)) }
        #expect(await firstElement(of: announced, within: SafetyNet.wait, where: { $0.body.first?.string == "Hang" }) != nil, "the peer never got the call")
        mock.process.send(SIGKILL)
        // The bus's NoReply for a peer that left; the 600 s deadline would end it as Timeout.
        await #expect { try await call.value } throws: { $0.dbusName == DBusErrorName.noReply }
        // The connection keeps working.
        #expect(try await c.nameOwner("org.freedesktop.DBus") == "org.freedesktop.DBus")
        _ = bus
    }
}
