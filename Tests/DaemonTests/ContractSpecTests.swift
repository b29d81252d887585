// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotHelperKit
import HotspotProtocol
import Testing

/// The contract declared in HotspotProtocol (`HotspotContract.manager`, `.interface`, `.handler`,
/// `.errors`), rendered to introspection XML, against the shipped file
/// dbus/org.freedesktop.NetworkManager.HotspotHelper.xml, and the tables built from it.
@Suite struct ContractSpecTests {
    static let file = TestKitPaths.repositoryRoot.appendingPathComponent("dbus/org.freedesktop.NetworkManager.HotspotHelper.xml")

    /// The declaration as an introspection document (the renderer `Introspect` uses).
    static var declared: IntrospectionModel {
        IntrospectionModel(xml: IntrospectionXML.render(HotspotContract.interfaces.map(\.declaration), children: [], standard: false))
    }

    @Test func theDeclarationRendersToEveryInterfaceOfTheContractFile() throws {
        let file = IntrospectionModel(xml: try String(contentsOf: Self.file, encoding: .utf8))
        let declared = Self.declared
        #expect(file.parsed && declared.parsed)
        #expect(Set(file.interfaces.keys) == Set(HotspotContract.interfaces.map(\.name.rawValue)),
                "interfaces in dbus/: \(file.interfaces.keys.sorted()); declared: \(HotspotContract.interfaces.map(\.name))")
        for name in file.interfaces.keys.sorted() {
            let difference = declared.difference(from: file, in: name, labels: ("HotspotContract", "dbus/"))
            #expect(difference.isEmpty, "\(name):\n\(difference)")
        }
        // The comparison sees annotations: the file declares Version constant.
        let version = file.interfaces[HotspotContract.managerInterface.rawValue]?.first { $0.name == "Version" }
        #expect(version?.annotations == ["org.freedesktop.DBus.Property.EmitsChangedSignal=const"])
    }

    @Test func theErrorNamesAreTheOnesTheContractFileDocuments() throws {
        let xml = try String(contentsOf: Self.file, encoding: .utf8)
        // The header lists them all: "Errors: org.freedesktop.NetworkManager.HotspotHelper.Error.{A, B, …}".
        let header = try #require(xml.firstRange(of: "Error.{").map { xml[$0.upperBound...].prefix { $0 != "}" } })
        let documented = header.split(separator: ",").map { HotspotContract.errorPrefix + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(Set(documented) == Set(HotspotContract.errors), "dbus/ documents \(documented.sorted()); the daemon has \(HotspotContract.errors.sorted())")
        #expect(documented.count == HotspotContract.errors.count)
        // Each method's "Error: X." or "Errors: X, Y (why), Z." names only those.
        let known = Set(HotspotError.Kind.allCases.map(\.rawValue))
        var mentioned: [String] = []
        for match in xml.matches(of: /Errors?: ([A-Z][^.{]*)\./) {
            let list = String(match.output.1).replacing(/\([^)]*\)/, with: "")
            mentioned += list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        #expect(!mentioned.isEmpty)
        for name in mentioned { #expect(known.contains(name), "dbus/ names the error \(name), which the daemon does not have") }
    }

    @Test func aTableMustImplementExactlyTheDeclaredMembers() throws {
        let spec = HotspotContract.manager
        let handler: DBusMethod.Handler = { _ in [] }
        let getter: DBusProperty.Getter = { .string("") }
        let methods = Dictionary(uniqueKeysWithValues: spec.methods.map { ($0, handler) })
        let getters = Dictionary(uniqueKeysWithValues: spec.properties.map { ($0, getter) })

        let table = try spec.table(methods: methods, getters: getters)
        #expect(IntrospectionXML.render(table) == spec.introspectionXML)

        func problems(_ methods: [MethodSpec: DBusMethod.Handler], _ getters: [PropertySpec: DBusProperty.Getter],
                      _ setters: [PropertySpec: DBusProperty.Setter] = [:]) -> [String] {
            do { _ = try spec.table(methods: methods, getters: getters, setters: setters); return [] } catch { return error.problems }
        }
        var missing = methods
        missing[HotspotContract.Manager.forgetNetwork] = nil
        #expect(problems(missing, getters) == ["no method for ForgetNetwork(ay) → ()"])

        var retyped = methods
        retyped[MethodSpec("ForgetNetwork", inputs: [DBusArgument("ssid", "s")])] = handler
        #expect(problems(retyped, getters) == ["a method for ForgetNetwork(s) → (), which is not declared"])

        var foreign = methods
        foreign[HotspotContract.Interface.logoff] = handler
        #expect(problems(foreign, getters) == ["a method for Logoff() → (), which is not declared"])

        var changing = getters
        changing[PropertySpec("Version", "s")] = getter
        changing[HotspotContract.ManagerProperty.version.spec] = nil
        #expect(problems(methods, changing) == ["no property getter for Version s read EmitsChangedSignal=const",
                                                "a property getter for Version s read EmitsChangedSignal=true, which is not declared"])

        #expect(problems(methods, getters, [HotspotContract.ManagerProperty.status.spec: { _, _ in }])
                == ["a property setter for Status s read EmitsChangedSignal=true, which is not declared"])
    }
}

/// The running daemon and HotspotHelperKit export exactly the declaration.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct LiveContractSpecTests {
    @Test func liveIntrospectionOfAllThreeInterfacesEqualsTheDeclaration() async throws {
        let s = try await Scenario()
        let helperConnection = try s.bus.connect()
        let helper = try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "Spec"), connection: helperConnection) { _ in }
        let declared = ContractSpecTests.declared
        let objects: [(BusName, ObjectPath, InterfaceSpec)] = [
            (HotspotContract.busName, HotspotContract.managerPath, HotspotContract.manager),
            (HotspotContract.busName, s.interfacePath, HotspotContract.interface),
            (try BusName(helperConnection.uniqueName), helper.handlerPath, HotspotContract.handler),
        ]
        let standard: Set = ["org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties"]
        for (destination, path, spec) in objects {
            let xml = try await s.client.call(destination: destination, path: path, interface: "org.freedesktop.DBus.Introspectable",
                                              member: "Introspect").first?.string ?? ""
            let live = IntrospectionModel(xml: xml)
            #expect(live.parsed, "\(path): \(xml)")
            #expect(Set(live.interfaces.keys).subtracting(standard) == [spec.name.rawValue], "\(path) exports \(live.interfaces.keys.sorted())")
            let difference = live.difference(from: declared, in: spec.name.rawValue, labels: ("live \(path)", "HotspotContract"))
            #expect(difference.isEmpty, "\(spec.name):\n\(difference)")
        }
    }
}
