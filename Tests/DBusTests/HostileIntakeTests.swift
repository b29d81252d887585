// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import CDBus
@_spi(Fuzzing) import DBus
import Foundation
import Testing

/// What a hostile peer sends is bounded before it is decoded. Each test is named
/// for the attack it stops.
@Suite struct HostileIntakeTests {
    func roundTrip(_ values: [DBusValue], limits: DecodingLimits = .standard) -> Message? {
        guard let bytes = DBusFuzzEntry.encodeMessage(values) else { return nil }
        return DBusFuzzEntry.decodeMessage(bytes, limits: limits)
    }

    @Test func byteArrayDecodesToOneBufferNotOneValuePerByte() throws {
        let bytes = (0..<4096).map { UInt8(truncatingIfNeeded: $0) }
        let m = try #require(roundTrip([.bytes(bytes)]))
        guard case .byteArray(let decoded) = m.body[0] else {
            Issue.record("an ay decoded to \(m.body[0].type.signature) values, not one buffer")
            return
        }
        #expect(decoded == bytes)
        #expect(m.body[0].byteArray == bytes)
    }

    @Test func hugeByteArrayIsRefusedBeforeItIsCopied() {
        let big = [UInt8](repeating: 7, count: DecodingLimits.standard.maximumByteArray + 1)
        #expect(roundTrip([.bytes(big)]) == nil)
        #expect(roundTrip([.bytes(big)], limits: DecodingLimits(maximumByteArray: big.count)) != nil)
    }

    @Test func arrayWithMoreItemsThanTheLimitIsRefusedBeforeDecoding() {
        let items = DBusValue.array(element: .int32, (0..<100).map { .int32($0) })
        #expect(roundTrip([items], limits: DecodingLimits(maximumArrayItems: 99)) == nil)
        #expect(roundTrip([items], limits: DecodingLimits(maximumArrayItems: 100)) != nil)
    }

    @Test func manySmallValuesCannotAddUpToAHugeTree() {
        let strings = DBusValue.strings((0..<1000).map { "s\($0)" })
        #expect(roundTrip([strings, strings], limits: DecodingLimits(maximumValues: 1500)) == nil)
        #expect(roundTrip([strings, strings], limits: DecodingLimits(maximumValues: 2002)) != nil)
    }

    @Test func longStringIsRefused() {
        let text = String(repeating: "x", count: 2000)
        #expect(roundTrip([.string(text)], limits: DecodingLimits(maximumString: 1999)) == nil)
        #expect(roundTrip([.string(text)], limits: DecodingLimits(maximumString: 2000)) != nil)
    }

    @Test func deeplyNestedVariantsAreRefused() {
        var v: DBusValue = .int32(1)
        for _ in 0..<40 { v = .variant(v) }
        #expect(roundTrip([v]) == nil)
        #expect(roundTrip([v], limits: DecodingLimits(maximumDepth: 64)) != nil)
    }

    @Test(.enabled(if: TestEnvironment.hasDBusDaemon, "needs dbus-daemon"))
    func unsolicitedSignalIsDroppedWithoutDecoding() async throws {
        let bus = try await PrivateBus()
        let victim = try bus.connect()
        let attacker = try bus.connect()
        let big = [UInt8](repeating: 0x41, count: 8 << 20)
        let target = try BusName(victim.uniqueName)
        for _ in 0..<3 {
            try await attacker.emit(path: "/flood", interface: "org.example.Flood", member: "Bytes", body: [.bytes(big)], destination: target)
        }
        // A signal the victim subscribed to still arrives (and is decoded).
        let stream = try await victim.signals(matching: MatchRule(interface: "org.example.Wanted", member: "Ping"))
        try await attacker.emit(path: "/w", interface: "org.example.Wanted", member: "Ping", body: [.string("hello")])
        var it = stream.makeAsyncIterator()
        let got = await it.next()
        #expect(got?.body == [.string("hello")])
        let intake = await victim.intake
        #expect(intake.unsolicitedSignals >= 3, "\(intake)")  // and NameAcquired, which the bus unicasts
        #expect(intake.overLimit == 0, "the flood was decoded: \(intake)")
        _ = bus
    }

    /// The daemon still reads an unsolicited signal in full before dropping it (libdbus has no way
    /// to skip a body), so a flood of 30 MB ones delays every call behind it. The shipped bus
    /// policy makes the bus refuse a signal addressed to the daemon's name; broadcasts (which the
    /// daemon subscribes to by sender) still arrive. Checked against the same bus without the policy.
    @Test(.enabled(if: TestEnvironment.hasDBusDaemon, "needs dbus-daemon"))
    func signalFloodAddressedToTheDaemonIsRefusedByTheShippedBusPolicy() async throws {
        for (configuration, shipped) in [(TestKitPaths.busConfig, false), (TestKitPaths.busConfigWithShippedPolicy, true)] {
            let bus = try await PrivateBus(configuration: configuration)
            let daemon = try bus.connect()
            try await daemon.requestName(BusName("org.freedesktop.NetworkManager.HotspotHelper"))
            let broadcasts = try await daemon.signals(matching: MatchRule(interface: "org.example.Wanted", member: "Ping"))
            _ = try await daemon.nameOwner(BusName("org.freedesktop.DBus"))  // the bus's NameAcquired signals are in
            let before = await daemon.intake.unsolicitedSignals
            let attacker = try bus.connect()
            let payload = [UInt8](repeating: 0x41, count: 1 << 20)
            for destination in ["org.freedesktop.NetworkManager.HotspotHelper", daemon.uniqueName] {
                try await attacker.emit(path: "/flood", interface: "org.example.Flood", member: "Bytes", body: [.bytes(payload)],
                                        destination: BusName(destination))
            }
            try await attacker.emit(path: "/w", interface: "org.example.Wanted", member: "Ping", body: [.string("broadcast")])
            // One sender's messages arrive in order: once the Ping is answered, the signals were delivered or refused.
            _ = try await attacker.call(daemon.uniqueName, "/", "org.freedesktop.DBus.Peer", "Ping")
            let reached = await daemon.intake.unsolicitedSignals - before
            #expect(reached == (shipped ? 0 : 2), "shipped policy \(shipped): \(reached) unicast signals reached the daemon")
            var it = broadcasts.makeAsyncIterator()
            #expect(await it.next()?.body == [.string("broadcast")], "a broadcast signal must still reach the daemon")
            bus.stop()
        }
    }

    @Test(.enabled(if: TestEnvironment.hasDBusDaemon, "needs dbus-daemon"))
    func forgedReplyFromAnotherConnectionIsIgnored() async throws {
        let bus = try await PrivateBus()
        let caller = try bus.connect()
        let callee = try bus.connect()
        // The callee answers only once the forged replies are out, and the forging starts only
        // once the call is pending (it reached the callee): no timing is assumed either way.
        let (started, callArrived) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        try await callee.export([DBusInterface("org.example.Slow", methods: [
            DBusMethod("Answer", outputs: [DBusArgument("text", "s")]) { _ in
                callArrived.yield()
                for await _ in released { break }
                return [.string("real")]
            },
        ])], at: "/slow")
        let call = Task { try await caller.call(callee.uniqueName, "/slow", "org.example.Slow", "Answer") }
        for await _ in started { break }
        // A third connection guesses the serial: replies to every serial the caller may have used.
        try forgeReplies(address: bus.address, to: caller.uniqueName, serials: 1...64)
        release.yield()
        let reply = try await call.value
        #expect(reply == [.string("real")])
        #expect(await caller.intake.forgedReplies >= 1)
        _ = bus
    }

    @Test(.enabled(if: TestEnvironment.hasDBusDaemon, "needs dbus-daemon"))
    func theBusAnswersForACalleeThatLeavesWithoutReplying() async throws {
        // The forged-reply check must not drop the bus's own NoReply / ServiceUnknown errors:
        // a call to a peer that left would otherwise wait out its whole timeout (seen with real
        // NetworkManager restarting: every read of the old instance hung for 10 s).
        let bus = try await PrivateBus()
        let caller = try bus.connect()
        let callee = try bus.connect()
        let calls = Counter()
        try await callee.export([DBusInterface("org.example.Never", methods: [
            DBusMethod("Answer", outputs: [DBusArgument("text", "s")]) { _ in
                calls.add()
                try await Task.sleep(for: .seconds(3600))
                return [.string("never")]
            },
        ])], at: "/never")
        let calleeName = callee.uniqueName
        let call = Task { try await caller.call(calleeName, "/never", "org.example.Never", "Answer", timeout: .seconds(30)) }
        try await calls.wait("the callee gets the call")
        await callee.close()
        do {
            _ = try await call.value
            Issue.record("a call to a peer that left was answered")
        } catch let error as DBus.DBusError {
            #expect(error.name == DBusErrorName.noReply, "expected the bus's NoReply, got \(error)")
        }
        do {
            _ = try await caller.call(calleeName, "/never", "org.example.Never", "Answer", timeout: .seconds(30))
            Issue.record("a call to a unique name nobody owns was answered")
        } catch let error as DBus.DBusError {
            #expect(error.name == DBusErrorName.serviceUnknown, "expected the bus's ServiceUnknown, got \(error)")
        }
        _ = bus
    }

    /// Sends method returns with `serials` as reply serials from a raw libdbus connection.
    func forgeReplies(address: String, to destination: String, serials: ClosedRange<UInt32>) throws {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let conn = dbus_connection_open_private(address, &err) else { throw DBusError.connectionFailed(address: address, reason: "open") }
        defer { dbus_connection_close(conn); dbus_connection_unref(conn) }
        guard dbus_bus_register(conn, &err) != 0 else { throw DBusError.connectionFailed(address: address, reason: "Hello") }
        for serial in serials {
            guard let m = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN) else { continue }
            dbus_message_set_reply_serial(m, serial)
            dbus_message_set_no_reply(m, 1)
            _ = dbus_message_set_destination(m, destination)
            var iter = DBusMessageIter()
            dbus_message_iter_init_append(m, &iter)
            "forged".withCString { p in
                var text: UnsafePointer<CChar>? = p
                _ = withUnsafePointer(to: &text) { dbus_message_iter_append_basic(&iter, Int32(UInt8(ascii: "s")), UnsafeRawPointer($0)) }
            }
            _ = dbus_connection_send(conn, m, nil)
            dbus_message_unref(m)
        }
        dbus_connection_flush(conn)
    }
}
