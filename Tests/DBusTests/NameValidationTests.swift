// SPDX-License-Identifier: Apache-2.0
import CDBus
import HotspotTestingRandom
import Testing
@testable import DBus

/// Names are validated in Swift before libdbus sees them (libdbus aborts on invalid names). The
/// Swift rules are checked against libdbus's own validators on many random strings.
@Suite struct NameValidationTests {
    @Test func objectPathsFollowTheSpecification() throws {
        for good in ["/", "/a", "/org/freedesktop/NetworkManager", "/a_b/C9"] { #expect(ObjectPath.isValid(good), "\(good)") }
        for bad in ["", "a", "//", "/a/", "/a//b", "/a-b", "/a.b", "/é", "/a\0b"] { #expect(!ObjectPath.isValid(bad), "\(bad)") }
    }

    @Test func invalidObjectPathErrorNamesTheValue() {
        // A variable, not a literal: `ObjectPath("…")` with a literal is a literal coercion (SE-0213).
        let bad = "/bad path"
        #expect(throws: DBus.DBusError.self) { try ObjectPath(bad) }
        do { _ = try ObjectPath(bad); Issue.record("accepted") } catch {
            #expect(error.message.contains("'/bad path'"))
        }
    }

    @Test func busNamesAcceptUniqueAndWellKnownForms() {
        for good in [":1.42", "org.freedesktop.DBus", "a.b", "org.example-x.Y_z", ":1.2.3"] { #expect(BusName.isValid(good), "\(good)") }
        for bad in ["", "org", ".a.b", "a..b", "1a.b", "org.freedesktop.", "a.b c", String(repeating: "a.", count: 130) + "a"] {
            #expect(!BusName.isValid(bad), "\(bad)")
        }
    }

    @Test func interfaceAndMemberNamesRejectWhatLibdbusRejects() throws {
        #expect(InterfaceName.isValid("org.freedesktop.NetworkManager.HotspotHelper"))
        #expect(!InterfaceName.isValid("org.freedesktop-x.Y"))
        #expect(!InterfaceName.isValid("Single"))
        #expect(MemberName.isValid("RegisterHelper"))
        #expect(!MemberName.isValid("Register.Helper"))
        #expect(!MemberName.isValid("9Lives"))
        let empty = "", noDots = "NoDots"
        #expect(throws: DBus.DBusError.self) { try MemberName(empty) }
        #expect(throws: DBus.DBusError.self) { try ErrorName(noDots) }
    }

    @Test func swiftValidatorsAgreeWithLibdbusOnRandomStrings() {
        var rng = SeededRandom(seed: 0x5EED)
        let alphabet = Array("ab_Z9./-:")
        for _ in 0..<20_000 {
            let s = String((0..<Int.random(in: 0...10, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let err = DBusErrorStruct()
            #expect(ObjectPath.isValid(s) == (dbus_validate_path(s, &err.raw) != 0), "path \(s)")
            dbus_error_free(&err.raw)
            // libdbus lets unique names of one element (":a") pass; we follow the specification's
            // "at least two elements", which is stricter and so never hands libdbus a bad name.
            let libdbusAcceptsBusName = dbus_validate_bus_name(s, &err.raw) != 0
            if s.hasPrefix(":") {
                #expect(!BusName.isValid(s) || libdbusAcceptsBusName, "bus name \(s)")
            } else {
                #expect(BusName.isValid(s) == libdbusAcceptsBusName, "bus name \(s)")
            }
            dbus_error_free(&err.raw)
            #expect(InterfaceName.isValid(s) == (dbus_validate_interface(s, &err.raw) != 0), "interface \(s)")
            dbus_error_free(&err.raw)
            #expect(MemberName.isValid(s) == (dbus_validate_member(s, &err.raw) != 0), "member \(s)")
            dbus_error_free(&err.raw)
        }
    }

    @Test func signaturesParseNestedTypesAndRejectMalformedOnes() throws {
        let text = "a{sv}aa{sv}(iay)v"  // a String, so the throwing initializer is the one called (a literal traps instead)
        let sig = try Signature(text)
        #expect(sig.types.count == 4)
        #expect(sig.types[0] == .dictionary(key: .string, value: .variant))
        #expect(sig.types[2] == .structure([.int32, .array(.byte)]))
        for bad in ["a", "{sv}", "a{vs}", "a{s}", "a{svs}", "()", "(i", "z", String(repeating: "a", count: 33) + "i",
                    String(repeating: "(", count: 33) + "i" + String(repeating: ")", count: 33), String(repeating: "i", count: 256)] {
            #expect(throws: DBusError.self, "\(bad)") { try Signature(bad) }
        }
    }

    @Test func swiftSignatureValidatorAgreesWithLibdbus() {
        var rng = SeededRandom(seed: 42)
        let alphabet = Array("ayvsi{}()ab")
        for _ in 0..<20_000 {
            let s = String((0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let err = DBusErrorStruct()
            #expect(Signature.isValid(s) == (dbus_signature_validate(s, &err.raw) != 0), "signature \(s)")
            dbus_error_free(&err.raw)
        }
    }
}
