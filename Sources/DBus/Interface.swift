// SPDX-License-Identifier: Apache-2.0
/// Exported objects are declared as tables, like sd-bus vtables or ell's interface setup: the
/// same table drives dispatch, argument checking, `Introspect`, `org.freedesktop.DBus.Properties`
/// and signal emission, so they can never disagree.

/// A named argument of a method or signal.
public struct DBusArgument: Sendable, Hashable {
    public var name: String
    public var type: DBusType
    public init(_ name: String, _ type: DBusType) { self.name = name; self.type = type }
    /// From a signature text of one complete type; a bad literal is a programming error.
    public init(_ name: String, _ signature: StaticString) {
        self.name = name
        do { self.type = try DBusType("\(signature)") } catch { preconditionFailure("\(error)") }
    }
}

/// Errors thrown by handlers can choose the D-Bus error name and message sent to the caller.
public protocol DBusErrorConvertible: Error {
    var dbusErrorName: String { get }
    var dbusErrorMessage: String { get }
}

extension DBusError: DBusErrorConvertible {
    public var dbusErrorName: String { name }
    public var dbusErrorMessage: String { message }
}

/// An exported method. The handler runs off the bus thread and may await anything.
public struct DBusMethod: Sendable {
    public typealias Handler = @Sendable (MethodCall) async throws -> [DBusValue]
    /// A handler that may answer at once, on the connection's thread (see ``immediate``).
    public typealias ImmediateHandler = @Sendable (MethodCall) -> ImmediateAnswer
    public var name: MemberName
    public var inputs: [DBusArgument] { didSet { inputSignature = Self.signature(of: inputs) } }
    public var outputs: [DBusArgument] { didSet { outputSignature = Self.signature(of: outputs) } }
    /// The signatures of ``inputs`` and ``outputs``, kept with them (checked on every call).
    public private(set) var inputSignature: String
    public private(set) var outputSignature: String
    /// Set by the initialisers only: the immediate handler, when there is one, is what answers
    /// on the bus, and `handler` is built from it.
    public private(set) var handler: Handler
    /// Called on the connection's thread as the call is read, when set: its answer is sent from
    /// there, with no task and no hand-off between threads (a hotspot helper answering a command
    /// at once). It must not block; what has to wait returns `.later`.
    public private(set) var immediate: ImmediateHandler?

    public init(_ name: MemberName, inputs: [DBusArgument] = [], outputs: [DBusArgument] = [], handler: @escaping Handler) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.inputSignature = Self.signature(of: inputs)
        self.outputSignature = Self.signature(of: outputs)
        self.handler = handler
    }

    public init(_ name: MemberName, inputs: [DBusArgument] = [], outputs: [DBusArgument] = [], immediate: @escaping ImmediateHandler) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.inputSignature = Self.signature(of: inputs)
        self.outputSignature = Self.signature(of: outputs)
        self.immediate = immediate
        self.handler = { call in
            switch immediate(call) {
            case .reply(let values): return values
            case .failure(let error): throw error
            case .later(let work): return try await work()
            }
        }
    }

    static func signature(of arguments: [DBusArgument]) -> String { arguments.map(\.type.signature).joined() }

    /// Whether `values` are what ``outputs`` declares (without building their signature).
    func returns(_ values: [DBusValue]) -> Bool {
        values.count == outputs.count && zip(values, outputs).allSatisfy { $0.hasType($1.type) }
    }
}

/// What an ``DBusMethod/ImmediateHandler`` answers: the reply or the error now, or work whose
/// result is the reply.
public enum ImmediateAnswer: Sendable {
    case reply([DBusValue])
    case failure(any Error)
    case later(@Sendable () async throws -> [DBusValue])
}

/// How a property announces changes (`org.freedesktop.DBus.Property.EmitsChangedSignal`).
public enum EmitsChanged: String, Sendable {
    case yes = "true", invalidates, const, no = "false"
}

/// An exported property.
public struct DBusProperty: Sendable {
    public enum Access: String, Sendable { case read, write, readwrite }
    public typealias Getter = @Sendable () async throws -> DBusValue
    /// Receives the new value and the caller (for authorisation).
    public typealias Setter = @Sendable (DBusValue, MethodCall) async throws -> Void

    public var name: MemberName
    public var type: DBusType
    public var emitsChanged: EmitsChanged
    public var get: Getter?
    public var set: Setter?

    public var access: Access {
        switch (get != nil, set != nil) {
        case (true, true): return .readwrite
        case (false, true): return .write
        default: return .read
        }
    }

    public init(_ name: MemberName, _ type: DBusType, emitsChanged: EmitsChanged = .yes, get: Getter?, set: Setter? = nil) {
        self.name = name
        self.type = type
        self.emitsChanged = emitsChanged
        self.get = get
        self.set = set
    }
}

/// A signal an interface may emit.
public struct DBusSignalDescription: Sendable {
    public var name: MemberName
    public var arguments: [DBusArgument] { didSet { signature = DBusMethod.signature(of: arguments) } }
    /// The signature of ``arguments``, kept with them.
    public private(set) var signature: String
    public init(_ name: MemberName, _ arguments: [DBusArgument] = []) {
        self.name = name
        self.arguments = arguments
        self.signature = DBusMethod.signature(of: arguments)
    }

    /// Whether `body` is what ``arguments`` declares (without building its signature).
    func matches(_ body: [DBusValue]) -> Bool {
        body.count == arguments.count && zip(body, arguments).allSatisfy { $0.hasType($1.type) }
    }
}

/// One interface of an exported object.
public struct DBusInterface: Sendable {
    public var name: InterfaceName
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignalDescription]

    public init(_ name: InterfaceName, methods: [DBusMethod] = [], properties: [DBusProperty] = [], signals: [DBusSignalDescription] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    func method(_ name: String) -> DBusMethod? { methods.first { $0.name.rawValue == name } }
    func property(_ name: String) -> DBusProperty? { properties.first { $0.name.rawValue == name } }
    func signal(_ name: String) -> DBusSignalDescription? { signals.first { $0.name.rawValue == name } }

    /// Refuses duplicate member names (busctl rejects such objects) and reserved interfaces.
    func validate() throws(DBusError) {
        if StandardInterfaces.names.contains(name.rawValue) {
            throw .invalidValue("interface \(name) is implemented by the D-Bus layer itself and cannot be exported")
        }
        var seen = Set<String>()
        for m in methods.map(\.name.rawValue) + properties.map(\.name.rawValue) + signals.map(\.name.rawValue) {
            guard seen.insert(m).inserted else {
                throw .invalidValue("interface \(name) declares the member \(m) twice")
            }
        }
    }
}

enum StandardInterfaces {
    static let peer = "org.freedesktop.DBus.Peer"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let properties = "org.freedesktop.DBus.Properties"
    static let names: Set<String> = [peer, introspectable, properties]
}

/// Renders introspection XML from interface tables (the format `busctl introspect` and
/// `gdbus introspect` read).
public enum IntrospectionXML {
    public static let doctype = """
    <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
    """

    /// The document for one object: its interfaces (plus the standard ones when `standard`) and
    /// the names of its direct children.
    public static func render(_ interfaces: [DBusInterface], children: [String], standard: Bool = true) -> String {
        var out = doctype + "\n<node>\n"
        if standard { out += standardXML }
        for iface in interfaces { out += render(iface) }
        for child in children.sorted() { out += "  <node name=\"\(escape(child))\"/>\n" }
        out += "</node>\n"
        return out
    }

    /// One `<interface>` element.
    public static func render(_ iface: DBusInterface) -> String {
        var out = "  <interface name=\"\(escape(iface.name.rawValue))\">\n"
        for m in iface.methods {
            out += "    <method name=\"\(escape(m.name.rawValue))\">\n"
            for a in m.inputs { out += "      <arg name=\"\(escape(a.name))\" type=\"\(escape(a.type.signature))\" direction=\"in\"/>\n" }
            for a in m.outputs { out += "      <arg name=\"\(escape(a.name))\" type=\"\(escape(a.type.signature))\" direction=\"out\"/>\n" }
            out += "    </method>\n"
        }
        for s in iface.signals {
            out += "    <signal name=\"\(escape(s.name.rawValue))\">\n"
            for a in s.arguments { out += "      <arg name=\"\(escape(a.name))\" type=\"\(escape(a.type.signature))\"/>\n" }
            out += "    </signal>\n"
        }
        for p in iface.properties {
            let open = "    <property name=\"\(escape(p.name.rawValue))\" type=\"\(escape(p.type.signature))\" access=\"\(p.access.rawValue)\""
            if p.emitsChanged == .yes {
                out += open + "/>\n"
            } else {
                out += open + ">\n      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(p.emitsChanged.rawValue)\"/>\n    </property>\n"
            }
        }
        out += "  </interface>\n"
        return out
    }

    static let standardXML = """
      <interface name="org.freedesktop.DBus.Peer">
        <method name="Ping"/>
        <method name="GetMachineId">
          <arg name="machine_uuid" type="s" direction="out"/>
        </method>
      </interface>
      <interface name="org.freedesktop.DBus.Introspectable">
        <method name="Introspect">
          <arg name="xml_data" type="s" direction="out"/>
        </method>
      </interface>
      <interface name="org.freedesktop.DBus.Properties">
        <method name="Get">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="property_name" type="s" direction="in"/>
          <arg name="value" type="v" direction="out"/>
        </method>
        <method name="GetAll">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="props" type="a{sv}" direction="out"/>
        </method>
        <method name="Set">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="property_name" type="s" direction="in"/>
          <arg name="value" type="v" direction="in"/>
        </method>
        <signal name="PropertiesChanged">
          <arg name="interface_name" type="s"/>
          <arg name="changed_properties" type="a{sv}"/>
          <arg name="invalidated_properties" type="as"/>
        </signal>
      </interface>

    """

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
