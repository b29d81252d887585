// SPDX-License-Identifier: Apache-2.0
import DBus

// A D-Bus interface as a value: member names, named and typed arguments, property types, access
// and change announcement, without any implementation. The daemon, HotspotHelperKit and the
// client take their tables and member names from such values (see `HotspotContract`), and the
// tests render them to introspection XML to compare with dbus/*.xml and the live daemon.

/// A method: its name and named arguments.
public struct MethodSpec: Sendable, Hashable, CustomStringConvertible {
    public var name: MemberName
    public var inputs: [DBusArgument]
    public var outputs: [DBusArgument]

    public init(_ name: MemberName, inputs: [DBusArgument] = [], outputs: [DBusArgument] = []) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
    }

    public var inputSignature: String { inputs.map(\.type.signature).joined() }
    public var description: String { "\(name)(\(inputSignature)) → (\(outputs.map(\.type.signature).joined()))" }
}

/// A property: its name, type, access and how it announces changes.
public struct PropertySpec: Sendable, Hashable, CustomStringConvertible {
    public var name: MemberName
    public var type: DBusType
    public var access: DBusProperty.Access
    public var emitsChanged: EmitsChanged

    public init(_ name: MemberName, _ type: DBusType, access: DBusProperty.Access = .read, emitsChanged: EmitsChanged = .yes) {
        self.name = name
        self.type = type
        self.access = access
        self.emitsChanged = emitsChanged
    }

    /// From a signature text of one complete type; a bad literal is a programming error.
    public init(_ name: MemberName, _ signature: StaticString, access: DBusProperty.Access = .read, emitsChanged: EmitsChanged = .yes) {
        self.init(name, DBusArgument("", signature).type, access: access, emitsChanged: emitsChanged)
    }

    /// The key of this property in a `GetAll` answer or a `PropertiesChanged` dictionary.
    public var key: String { name.rawValue }
    public var description: String { "\(name) \(type.signature) \(access.rawValue) EmitsChangedSignal=\(emitsChanged.rawValue)" }
}

/// An interface's properties as an enum, one case a property: the case's raw value is the
/// property's name and ``spec`` its declaration (an exhaustive `switch`, so no case is without
/// one). Declaring an interface's properties as `allCases` and encoding them with a `switch` that
/// has no `default` makes a property added without its encoding a compile error, not a failure at
/// run time.
public protocol PropertyRow: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    /// The property's declaration: its name (the raw value), type, access and change announcement.
    var spec: PropertySpec { get }
}

extension PropertyRow {
    /// The key of this property in a `GetAll` answer or a `PropertiesChanged` dictionary.
    public var key: String { rawValue }

    /// The declaration of this row's property: named by the raw value, typed by `signature` (one
    /// complete type; a bad literal or name is a programming error).
    public func declared(_ signature: StaticString, access: DBusProperty.Access = .read, emitsChanged: EmitsChanged = .yes) -> PropertySpec {
        do { return PropertySpec(try MemberName(rawValue), DBusArgument("", signature).type, access: access, emitsChanged: emitsChanged) } catch {
            preconditionFailure("\(error)")
        }
    }
}

/// A signal: its name and named arguments.
public struct SignalSpec: Sendable, Hashable, CustomStringConvertible {
    public var name: MemberName
    public var arguments: [DBusArgument]

    public init(_ name: MemberName, _ arguments: [DBusArgument] = []) {
        self.name = name
        self.arguments = arguments
    }

    public var signature: String { arguments.map(\.type.signature).joined() }
    public var description: String { "\(name)(\(signature))" }
}

/// A whole interface. `implement` turns it into the `DBusInterface` table an object exports,
/// given exactly one handler per method and one getter (setter) per readable (writable)
/// property, so an exported table can never differ from its declaration.
public struct InterfaceSpec: Sendable {
    public var name: InterfaceName
    public var methods: [MethodSpec]
    public var properties: [PropertySpec]
    public var signals: [SignalSpec]

    public init(_ name: InterfaceName, methods: [MethodSpec] = [], properties: [PropertySpec] = [], signals: [SignalSpec] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// Whether `method` is one of this interface's methods (name and arguments).
    public func declares(_ method: MethodSpec) -> Bool { methods.contains(method) }

    /// The table for an exported object, or the list of handlers missing or not in the
    /// declaration. A method's handler is in `handlers` or, answering on the connection's thread
    /// (``DBusMethod/immediate``), in `immediate`.
    public func table(methods handlers: [MethodSpec: DBusMethod.Handler], immediate: [MethodSpec: DBusMethod.ImmediateHandler] = [:],
                      getters: [PropertySpec: DBusProperty.Getter] = [:],
                      setters: [PropertySpec: DBusProperty.Setter] = [:]) throws(ContractMismatch) -> DBusInterface {
        var problems: [String] = []
        let readable = properties.filter { $0.access != .write }
        let writable = properties.filter { $0.access != .read }
        problems += Self.compare("method", declared: methods, given: Array(handlers.keys) + Array(immediate.keys))
        problems += Set(handlers.keys).intersection(immediate.keys).map { "two handlers for \($0)" }.sorted()
        problems += Self.compare("property getter", declared: readable, given: Array(getters.keys))
        problems += Self.compare("property setter", declared: writable, given: Array(setters.keys))
        guard problems.isEmpty else { throw ContractMismatch(interface: name, problems: problems) }
        return DBusInterface(name,
            methods: methods.map { m in
                if let answer = immediate[m] { return DBusMethod(m.name, inputs: m.inputs, outputs: m.outputs, immediate: answer) }
                return DBusMethod(m.name, inputs: m.inputs, outputs: m.outputs, handler: handlers[m]!)
            },
            properties: properties.map { p in DBusProperty(p.name, p.type, emitsChanged: p.emitsChanged, get: getters[p], set: setters[p]) },
            signals: signals.map { DBusSignalDescription($0.name, $0.arguments) })
    }

    /// `table(…)`, trapping on a mismatch: a handler missing from or added to the declaration is
    /// a programming error, caught the first time the object is exported.
    public func implement(methods handlers: [MethodSpec: DBusMethod.Handler], immediate: [MethodSpec: DBusMethod.ImmediateHandler] = [:],
                          getters: [PropertySpec: DBusProperty.Getter] = [:],
                          setters: [PropertySpec: DBusProperty.Setter] = [:]) -> DBusInterface {
        do { return try table(methods: handlers, immediate: immediate, getters: getters, setters: setters) } catch { preconditionFailure("\(error)") }
    }

    /// The declaration as a table whose handlers only refuse (for rendering and comparing).
    public var declaration: DBusInterface {
        let refuse = DBusError.invalidValue("\(name) is a declaration, not an object")
        let handler: DBusMethod.Handler = { _ in throw refuse }
        let getter: DBusProperty.Getter = { throw refuse }
        let setter: DBusProperty.Setter = { _, _ in throw refuse }
        return implement(methods: Dictionary(uniqueKeysWithValues: methods.map { ($0, handler) }),
                         getters: Dictionary(uniqueKeysWithValues: properties.filter { $0.access != .write }.map { ($0, getter) }),
                         setters: Dictionary(uniqueKeysWithValues: properties.filter { $0.access != .read }.map { ($0, setter) }))
    }

    /// The `<interface>` element `Introspect` answers for an object implementing this interface.
    public var introspectionXML: String { IntrospectionXML.render(declaration) }

    private static func compare<Member: Hashable & CustomStringConvertible>(_ kind: String, declared: [Member], given: [Member]) -> [String] {
        let declaredSet = Set(declared), givenSet = Set(given)
        return declared.filter { !givenSet.contains($0) }.map { "no \(kind) for \($0)" }
            + given.filter { !declaredSet.contains($0) }.map { "a \(kind) for \($0), which is not declared" }.sorted()
    }
}

/// A table that does not match its declaration.
public struct ContractMismatch: Error, Sendable, CustomStringConvertible {
    public var interface: InterfaceName
    public var problems: [String]
    public var description: String { "interface \(interface) differs from its declaration: \(problems.joined(separator: "; "))" }
}

extension Dictionary where Key == String {
    /// The value of `property` in a `GetAll` answer or a `PropertiesChanged` dictionary.
    public subscript(_ property: PropertySpec) -> Value? {
        get { self[property.key] }
        set { self[property.key] = newValue }
    }

    /// The value of `property` in a `GetAll` answer or a `PropertiesChanged` dictionary.
    public subscript<Row: PropertyRow>(_ property: Row) -> Value? {
        get { self[property.key] }
        set { self[property.key] = newValue }
    }
}

extension Connection {
    /// Calls `method` of `interface` on `path` of `destination` (the daemon by default); the body
    /// must match the method's declared input signature.
    public func call(_ method: MethodSpec, of interface: InterfaceSpec, at path: ObjectPath, destination: BusName = HotspotContract.busName,
                     body: [DBusValue] = [], timeout: Duration = .seconds(25), interactive: Bool = false) async throws -> [DBusValue] {
        precondition(interface.declares(method), "\(method) is not a method of \(interface.name)")
        let signature = body.map(\.signature).joined()
        guard signature == method.inputSignature else {
            throw DBusError.invalidValue("\(interface.name).\(method.name) takes (\(method.inputSignature)), not (\(signature))")
        }
        return try await call(destination: destination, path: path, interface: interface.name, member: method.name, body: body,
                              timeout: timeout, interactive: interactive)
    }
}
