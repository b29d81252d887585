// SPDX-License-Identifier: Apache-2.0
import CDBus
import Testing
@testable import DBus

/// Values against libdbus itself: every type, then random nested values, marshalled into a real
/// libdbus message and decoded back.
@Suite struct ValueTests {
    func roundTrip(_ values: [DBusValue]) throws -> [DBusValue] {
        let msg = try RawMessage.methodCall(destination: "org.example.Peer", path: "/", interface: "org.example.I", member: "M")
        try Marshal.validateBody(values)
        try Marshal.append(values, to: msg.pointer)
        // Serialise to bytes and parse back, as a peer would receive it.
        var bytes: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        dbus_message_set_serial(msg.pointer, 1)
        #expect(dbus_message_marshal(msg.pointer, &bytes, &length) != 0)
        defer { dbus_free(bytes) }
        let err = DBusErrorStruct()
        guard let parsed = dbus_message_demarshal(bytes, length, &err.raw) else {
            throw DBusError.invalidValue("libdbus could not parse what we wrote: \(err.takeMessage() ?? "")")
        }
        let raw = RawMessage(owning: parsed)
        let m = try raw.decoded()
        #expect(m.signature == values.map(\.signature).joined())
        return m.body
    }

    @Test func everyBasicTypeRoundTripsThroughLibdbus() throws {
        let values: [DBusValue] = [
            .byte(0xFF), .bool(true), .bool(false), .int16(-32768), .uint16(65535), .int32(-7), .uint32(.max),
            .int64(.min), .uint64(.max), .double(3.25), .string(""), .string("日本 🙂 'quotes'"),
            .objectPath("/org/x"), .signature("a{sv}"),
        ]
        #expect(try roundTrip(values) == values)
    }

    @Test func containersRoundTripAndEmptyOnesKeepTheirSignature() throws {
        let values: [DBusValue] = [
            .array(element: .dictionary(key: .string, value: .variant), []),
            .objectPaths([]),
            .bytes([]),
            .bytes([0, 1, 2, 255]),
            .varDict(["ssid": .bytes(Array("cafe".utf8)), "n": .uint32(3), "nested": .varDict([:])]),
            .structure([.int32(1), .strings(["a", "b"]), .variant(.variant(.bool(true)))]),
            .dictionary(key: .objectPath, value: .uint32, [DictEntry(.objectPath("/a"), .uint32(1))]),
        ]
        #expect(values[0].signature == "aa{sv}")
        #expect(values[1].signature == "ao")
        #expect(try roundTrip(values) == values)
    }

    @Test func randomNestedValuesRoundTripThroughLibdbus() throws {
        let seed = UInt64(0xD0B5)
        var gen = ValueGenerator(seed: seed)
        for i in 0..<2_000 {
            let values = (0..<Int.random(in: 1...3, using: &gen.rng)).map { _ in gen.value() }
            guard values.map(\.signature).joined().utf8.count <= 255 else { continue }
            let back = try roundTrip(values)
            #expect(back == values, "seed \(seed) case \(i): \(values)")
        }
    }

    @Test func stringWithNULIsRefusedNamingIt() {
        do {
            try Marshal.validateBody([.varDict(["k": .string("a\0b")])])
            Issue.record("accepted a NUL")
        } catch {
            #expect(error.message.contains("'a\\0b'"))
            #expect(error.message.contains("NUL"))
        }
    }

    @Test func invalidUTF8BytesAreRefusedNamingThem() {
        #expect(throws: DBus.DBusError.self) { try dbusString(fromUTF8: [0x61, 0xFF, 0xFE]) }
        do { _ = try dbusString(fromUTF8: [0x61, 0xC3]) } catch {
            #expect(error.message.contains("61 c3"))
        }
        #expect((try? dbusString(fromUTF8: Array("Café".utf8))) == "Café")
    }

    @Test func containersWithMismatchedItemsAreRefused() {
        #expect(throws: DBus.DBusError.self) { try DBusValue.array(element: .string, [.int32(1)]).validate() }
        #expect(throws: DBus.DBusError.self) { try DBusValue.dictionary(key: .variant, value: .string, []).validate() }
        #expect(throws: DBus.DBusError.self) { try DBusValue.structure([]).validate() }
        var deep = DBusValue.int32(1)
        for _ in 0..<40 { deep = .array(element: deep.type, [deep]) }
        #expect(throws: DBus.DBusError.self) { try deep.validate() }
    }

    @Test func signatureIsComputedFromTheValue() {
        #expect(DBusValue.varDicts([]).signature == "aa{sv}")
        #expect(DBusValue.structure([.string("a"), .bytes([1]), .variant(.int32(1))]).signature == "(sayv)")
        #expect(DBusValue.varDict(["a": .int32(1)]).varDict?["a"] == .int32(1))
    }

    @Test func matchRuleTextQuotesApostrophes() {
        let rule = MatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arguments: [0: "it's"])
        #expect(rule.description == "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='it'\\''s'")
    }

    @Test func introspectionListsMembersWithSignaturesAndEscapes() {
        let iface = DBusInterface("org.example.Thing",
            methods: [DBusMethod("Do", inputs: [DBusArgument("options", "a{sv}")], outputs: [DBusArgument("result", "s")]) { _ in [] }],
            properties: [DBusProperty("Name", .string, emitsChanged: .const, get: { "x" })],
            signals: [DBusSignalDescription("Changed", [DBusArgument("what", "ao")])])
        let xml = IntrospectionXML.render([iface], children: ["b", "a&"])
        #expect(xml.contains(#"<arg name="options" type="a{sv}" direction="in"/>"#))
        #expect(xml.contains(#"<property name="Name" type="s" access="read">"#))
        #expect(xml.contains(#"value="const""#))
        #expect(xml.contains(#"<arg name="what" type="ao"/>"#))
        #expect(xml.contains(#"<node name="a&amp;"/>"#))
        #expect(xml.split(separator: "\n").firstIndex { $0.contains("a&amp;") }! < xml.split(separator: "\n").firstIndex { $0.contains(#"<node name="b"/>"#) }!)
    }
}
