// SPDX-License-Identifier: Apache-2.0
import CDBus

/// The four kinds of D-Bus message.
public enum MessageKind: Sendable, Equatable {
    case methodCall, methodReturn, error, signal
}

/// A received message, decoded into Sendable Swift values on the connection's thread.
public struct Message: Sendable {
    public var kind: MessageKind
    public var serial: UInt32
    public var replySerial: UInt32
    /// The sender's unique name (`:1.42`), or `org.freedesktop.DBus` for the bus itself.
    public var sender: String
    public var destination: String?
    public var path: ObjectPath?
    public var interface: String?
    public var member: String?
    public var errorName: String?
    /// The body's signature as sent.
    public var signature: String
    public var body: [DBusValue]
    public var noReplyExpected: Bool
    /// The caller set ALLOW_INTERACTIVE_AUTHORIZATION: it is ready to wait while polkit asks
    /// the user (`busctl --allow-interactive-authorization`, GDBus's flag of that name).
    public var allowsInteractiveAuthorization: Bool = false

    /// The first body value, when it is a string (the text of an error reply).
    var errorText: String { body.first?.string ?? "" }
}

/// A signal as delivered to subscribers.
public struct Signal: Sendable {
    public var sender: String
    public var path: ObjectPath
    public var interface: String
    public var member: String
    public var body: [DBusValue]
}

/// A method call as handed to an exported method's handler.
public struct MethodCall: Sendable {
    /// The caller's unique name; use ``Connection/credentials(of:)`` to learn its uid and pid.
    public var sender: String
    public var path: ObjectPath
    public var interface: InterfaceName
    public var member: MemberName
    public var body: [DBusValue]
    /// Whether the caller allows polkit to ask the user while this call waits; a handler passes
    /// it on as polkit's AllowUserInteraction flag, never more.
    public var allowsInteractiveAuthorization: Bool = false
}

/// An owned `DBusMessage*`, unreferenced on deinit. Never leaves the connection's thread.
final class RawMessage {
    let pointer: OpaquePointer
    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { dbus_message_unref(pointer) }

    static func methodCall(destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName) throws(DBusError) -> RawMessage {
        let m: OpaquePointer? = destination?.rawValue.withCString { d in
            path.rawValue.withCString { p in
                member.rawValue.withCString { mem in
                    if let interface { return interface.rawValue.withCString { dbus_message_new_method_call(d, p, $0, mem) } }
                    return dbus_message_new_method_call(d, p, nil, mem)
                }
            }
        } ?? path.rawValue.withCString { p in
            member.rawValue.withCString { mem in
                if let interface { return interface.rawValue.withCString { dbus_message_new_method_call(nil, p, $0, mem) } }
                return dbus_message_new_method_call(nil, p, nil, mem)
            }
        }
        guard let m else { throw .invalidValue("out of memory while building a method call") }
        return RawMessage(owning: m)
    }

    static func signal(path: ObjectPath, interface: InterfaceName, member: MemberName) throws(DBusError) -> RawMessage {
        let m = path.rawValue.withCString { p in
            interface.rawValue.withCString { i in member.rawValue.withCString { dbus_message_new_signal(p, i, $0) } }
        }
        guard let m else { throw .invalidValue("out of memory while building a signal") }
        return RawMessage(owning: m)
    }

    /// A method return for a call identified by serial and sender.
    static func methodReturn(replySerial: UInt32, destination: String) throws(DBusError) -> RawMessage {
        guard let m = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN) else { throw .invalidValue("out of memory") }
        let raw = RawMessage(owning: m)
        dbus_message_set_reply_serial(m, replySerial)
        dbus_message_set_no_reply(m, 1)
        if BusName.isValid(destination) { _ = destination.withCString { dbus_message_set_destination(m, $0) } }
        return raw
    }

    static func errorReply(replySerial: UInt32, destination: String, name: String, text: String) throws(DBusError) -> RawMessage {
        guard let m = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR) else { throw .invalidValue("out of memory") }
        let raw = RawMessage(owning: m)
        let safeName = isDottedName(name) ? name : DBusErrorName.failed
        _ = safeName.withCString { dbus_message_set_error_name(m, $0) }
        dbus_message_set_reply_serial(m, replySerial)
        dbus_message_set_no_reply(m, 1)
        if BusName.isValid(destination) { _ = destination.withCString { dbus_message_set_destination(m, $0) } }
        // The text may come from anywhere: never let a NUL reach libdbus.
        let safeText = text.utf8.contains(0) ? String(text.split(separator: "\0", omittingEmptySubsequences: false).joined(separator: "\\0")) : text
        try Marshal.append([.string(safeText)], to: m)
        return raw
    }

    /// Decodes header and body into a Sendable ``Message``, the body within `limits`.
    func decoded(limits: DecodingLimits = .standard) throws(DBusError) -> Message {
        let m = pointer
        let kind: MessageKind
        switch dbus_message_get_type(m) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: kind = .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: kind = .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: kind = .error
        default: kind = .signal
        }
        func str(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        let path = str(dbus_message_get_path(m)).map { ObjectPath(validatedByLibdbus: $0) }  // libdbus validated the header
        return Message(
            kind: kind,
            serial: dbus_message_get_serial(m),
            replySerial: dbus_message_get_reply_serial(m),
            sender: str(dbus_message_get_sender(m)) ?? "",
            destination: str(dbus_message_get_destination(m)),
            path: path,
            interface: str(dbus_message_get_interface(m)),
            member: str(dbus_message_get_member(m)),
            errorName: str(dbus_message_get_error_name(m)),
            signature: str(dbus_message_get_signature(m)) ?? "",
            body: try Marshal.decodeBody(m, limits: limits),
            noReplyExpected: dbus_message_get_no_reply(m) != 0,
            allowsInteractiveAuthorization: dbus_message_get_allow_interactive_authorization(m) != 0)
    }
}

/// Entry points for the fuzzers (`hotspot-fuzz`); not API.
@_spi(Fuzzing) public enum DBusFuzzEntry {
    /// Parses `bytes` as a whole D-Bus message the way a received one is parsed (libdbus's
    /// validation, then this layer's decoding within `limits`); nil when either refuses it.
    public static func decodeMessage(_ bytes: [UInt8], limits: DecodingLimits = .standard) -> Message? {
        let err = DBusErrorStruct()
        let parsed = bytes.withUnsafeBufferPointer { buf -> OpaquePointer? in
            buf.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buf.count) { dbus_message_demarshal($0, Int32(clamping: buf.count), &err.raw) }
            } ?? nil
        }
        guard let parsed else { return nil }
        return try? RawMessage(owning: parsed).decoded(limits: limits)
    }

    /// Whether libdbus takes `bytes` as one whole D-Bus message (`dbus_message_demarshal`, as a
    /// peer link does with each frame).
    public static func demarshals(_ bytes: ArraySlice<UInt8>) -> Bool {
        let err = DBusErrorStruct()
        let parsed = bytes.withUnsafeBufferPointer { buf -> OpaquePointer? in
            buf.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buf.count) { dbus_message_demarshal($0, Int32(clamping: buf.count), &err.raw) }
            } ?? nil
        }
        guard let parsed else { return false }
        dbus_message_unref(parsed)
        return true
    }

    /// Marshals `values` into a method call and returns its wire bytes (seeds for the fuzzer).
    public static func encodeMessage(_ values: [DBusValue]) -> [UInt8]? {
        guard let msg = try? RawMessage.methodCall(destination: "org.example.Fuzz", path: "/", interface: "org.example.Fuzz", member: "M"),
              (try? Marshal.validateBody(values)) != nil, (try? Marshal.append(values, to: msg.pointer)) != nil else { return nil }
        dbus_message_set_serial(msg.pointer, 1)
        var bytes: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(msg.pointer, &bytes, &length) != 0, let bytes else { return nil }
        defer { dbus_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }
}
