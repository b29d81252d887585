// SPDX-License-Identifier: Apache-2.0
import CDBus
#if canImport(Glibc)
import Glibc
#endif

// Exported objects: the interface tables, and dispatching incoming method calls to them
// (Introspectable, Properties and Peer answered from the same tables). Runs on the bus thread.
extension Connection {
    /// Exports `interfaces` at `path` (replacing what was there). Introspection, Properties and
    /// Peer are answered from the same tables.
    public func export(_ interfaces: [DBusInterface], at path: ObjectPath) throws {
        var seen = Set<InterfaceName>()
        for iface in interfaces {
            try iface.validate()
            guard seen.insert(iface.name).inserted else {
                throw DBusError.invalidValue("interface \(iface.name) is exported twice at \(path)")
            }
        }
        objects[path] = interfaces
    }

    /// Removes the object at `path`.
    public func unexport(_ path: ObjectPath) {
        objects[path] = nil
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for declared properties:
    /// values of `emitsChanged: .yes` properties are sent, `.invalidates` ones are listed as
    /// invalidated; `const` and `no` properties are refused.
    public func propertiesChanged(path: ObjectPath, interface: InterfaceName, _ changed: [String: DBusValue]) throws {
        guard let iface = objects[path]?.first(where: { $0.name == interface }) else {
            throw DBusError.invalidValue("no interface \(interface) is exported at \(path)")
        }
        var values: [String: DBusValue] = [:]
        var invalidated: [String] = []
        for (name, value) in changed {
            guard let prop = iface.property(name) else {
                throw DBusError.invalidValue("interface \(interface) has no property \(quoted(name))")
            }
            guard value.type == prop.type else {
                throw DBusError.invalidValue("property \(interface).\(name) has type \(prop.type.signature), not \(value.signature)")
            }
            switch prop.emitsChanged {
            case .yes: values[name] = value
            case .invalidates: invalidated.append(name)
            case .const, .no:
                throw DBusError.invalidValue("property \(interface).\(name) is declared not to emit changes")
            }
        }
        try emit(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                 body: [.string(interface.rawValue), .varDict(values), .strings(invalidated.sorted())])
    }

    /// Announces that the named properties changed. Each value is read through the exported
    /// table's getter, as sd-bus's `sd_bus_emit_properties_changed` does, so what is sent is what
    /// `Get` returns and no caller encodes a value a second time.
    public func propertiesChanged(path: ObjectPath, interface: InterfaceName, names: [String]) async throws {
        guard let iface = objects[path]?.first(where: { $0.name == interface }) else {
            throw DBusError.invalidValue("no interface \(interface) is exported at \(path)")
        }
        var values: [String: DBusValue] = [:]
        for name in Set(names) {
            guard let prop = iface.property(name), let get = prop.get else {
                throw DBusError.invalidValue("interface \(interface) has no readable property \(quoted(name))")
            }
            values[name] = try await get()
        }
        guard !values.isEmpty else { return }
        try propertiesChanged(path: path, interface: interface, values)
    }

    func dispatch(_ message: Message) {
        let serial = message.serial
        let sender = message.sender
        let reply: @Sendable (Result<[DBusValue], any Error>) async -> Void = { [weak self] result in
            guard !message.noReplyExpected else { return }
            await self?.sendReply(serial: serial, to: sender, result)
        }
        guard let path = message.path, let memberText = message.member, let member = try? MemberName(memberText) else {
            return replyError(serial: serial, to: sender, name: DBusErrorName.unknownMethod, text: "the call names no valid member")
        }
        let interfaceText = message.interface
        let sig = message.signature

        func argsError(_ expected: String) {
            replyError(serial: serial, to: sender, name: DBusErrorName.invalidArgs,
                       text: "\(interfaceText ?? "")\(interfaceText == nil ? "" : ".")\(memberText) expects arguments of signature '\(expected)', got '\(sig)'")
        }

        switch interfaceText {
        case StandardInterfaces.peer?:
            switch memberText {
            case "Ping":
                guard sig.isEmpty else { return argsError("") }
                return replyNow(serial: serial, to: sender, [])
            case "GetMachineId":
                guard sig.isEmpty else { return argsError("") }
                let err = DBusErrorStruct()
                let id = dbus_try_get_local_machine_id(&err.raw)
                guard let id else {
                    return replyError(serial: serial, to: sender, name: DBusErrorName.failed, text: err.takeMessage() ?? "no machine id")
                }
                let text = String(cString: id)
                dbus_free(id)
                return replyNow(serial: serial, to: sender, [.string(text)])
            default:
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownMethod, text: "org.freedesktop.DBus.Peer has no method \(quoted(memberText))")
            }
        case StandardInterfaces.introspectable?:
            guard memberText == "Introspect" else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownMethod, text: "org.freedesktop.DBus.Introspectable has no method \(quoted(memberText))")
            }
            guard sig.isEmpty else { return argsError("") }
            let children = childNames(of: path)
            guard objects[path] != nil || !children.isEmpty || path == .root else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownObject, text: "no object at \(path)")
            }
            let xml = IntrospectionXML.render(objects[path] ?? [], children: children, standard: objects[path] != nil)
            return replyNow(serial: serial, to: sender, [.string(xml)])
        case StandardInterfaces.properties?:
            guard let interfaces = objects[path] else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownObject, text: "no object at \(path)")
            }
            return dispatchProperties(message, interfaces: interfaces, path: path, argsError: argsError, reply: reply)
        default:
            break
        }

        guard let interfaces = objects[path] else {
            return replyError(serial: serial, to: sender, name: DBusErrorName.unknownObject, text: "no object at \(path)")
        }
        let method: DBusMethod
        let ifaceName: InterfaceName
        if let interfaceText {
            guard let iface = interfaces.first(where: { $0.name.rawValue == interfaceText }) else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownInterface, text: "object \(path) has no interface \(quoted(interfaceText))")
            }
            guard let m = iface.method(memberText) else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownMethod, text: "interface \(interfaceText) has no method \(quoted(memberText))")
            }
            method = m
            ifaceName = iface.name
        } else {
            guard let iface = interfaces.first(where: { $0.method(memberText) != nil }), let m = iface.method(memberText) else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownMethod, text: "object \(path) has no method \(quoted(memberText))")
            }
            method = m
            ifaceName = iface.name
        }
        guard sig == method.inputSignature else { return argsError(method.inputSignature) }
        let call = MethodCall(sender: sender, path: path, interface: ifaceName, member: member, body: message.body,
                              allowsInteractiveAuthorization: message.allowsInteractiveAuthorization)
        let outSig = method.outputSignature
        @Sendable func checked(_ out: [DBusValue]) throws -> [DBusValue] {
            guard method.returns(out) else {
                throw DBusError.remote(name: DBusErrorName.failed,
                                       message: "internal error: \(ifaceName).\(member) returned '\(out.map(\.signature).joined())' instead of '\(outSig)'")
            }
            return out
        }
        var work = method.handler
        if let immediate = method.immediate {
            switch immediate(call) {
            case .reply(let out):
                if !message.noReplyExpected { sendReply(serial: serial, to: sender, Result { try checked(out) }) }
                return
            case .failure(let error):
                if !message.noReplyExpected { sendReply(serial: serial, to: sender, .failure(error)) }
                return
            case .later(let later):
                work = { _ in try await later() }
            }
        }
        Task.detached { [work] in
            do {
                await reply(.success(try checked(try await work(call))))
            } catch {
                await reply(.failure(error))
            }
        }
    }

    func dispatchProperties(_ message: Message, interfaces: [DBusInterface], path: ObjectPath,
                                    argsError: (String) -> Void,
                                    reply: @escaping @Sendable (Result<[DBusValue], any Error>) async -> Void) {
        let serial = message.serial
        let sender = message.sender
        let body = message.body
        func find(_ name: DBusValue) -> DBusInterface? {
            guard case .string(let n) = name else { return nil }
            return interfaces.first { $0.name.rawValue == n }
        }
        switch message.member {
        case "Get":
            guard message.signature == "ss" else { return argsError("ss") }
            guard let iface = find(body[0]) else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownInterface, text: "object \(path) has no interface \(body[0])")
            }
            guard let prop = iface.property(body[1].string ?? ""), let get = prop.get else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownProperty, text: "interface \(iface.name) has no readable property \(body[1])")
            }
            let type = prop.type
            let name = "\(iface.name).\(prop.name)"
            Task.detached {
                do {
                    let value = try await get()
                    guard value.type == type else {
                        throw DBusError.remote(name: DBusErrorName.failed, message: "internal error: property \(name) produced \(value.signature), declared \(type.signature)")
                    }
                    await reply(.success([.variant(value)]))
                } catch { await reply(.failure(error)) }
            }
        case "GetAll":
            guard message.signature == "s" else { return argsError("s") }
            guard let iface = find(body[0]) else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownInterface, text: "object \(path) has no interface \(body[0])")
            }
            let readable = iface.properties.filter { $0.get != nil }
            Task.detached {
                // One failing property must not fail GetAll: busctl introspect gives up if it does.
                var values: [String: DBusValue] = [:]
                for prop in readable {
                    if let v = try? await prop.get!(), v.type == prop.type { values[prop.name.rawValue] = v }
                }
                await reply(.success([.varDict(values)]))
            }
        case "Set":
            guard message.signature == "ssv" else { return argsError("ssv") }
            guard let iface = find(body[0]) else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownInterface, text: "object \(path) has no interface \(body[0])")
            }
            guard let prop = iface.property(body[1].string ?? "") else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.unknownProperty, text: "interface \(iface.name) has no property \(body[1])")
            }
            guard let set = prop.set else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.propertyReadOnly, text: "property \(iface.name).\(prop.name) is read-only")
            }
            guard case .variant(let value) = body[2], value.type == prop.type else {
                return replyError(serial: serial, to: sender, name: DBusErrorName.invalidArgs,
                                  text: "property \(iface.name).\(prop.name) has type \(prop.type.signature), got \(body[2].unwrapped.signature)")
            }
            let call = MethodCall(sender: sender, path: path, interface: "org.freedesktop.DBus.Properties", member: "Set", body: body)
            let ifaceName = iface.name
            let emits = prop.emitsChanged
            let propName = prop.name.rawValue
            Task.detached { [weak self] in
                do {
                    try await set(value, call)
                    if emits == .yes || emits == .invalidates {
                        try? await self?.propertiesChanged(path: path, interface: ifaceName, [propName: value])
                    }
                    await reply(.success([]))
                } catch { await reply(.failure(error)) }
            }
        default:
            replyError(serial: serial, to: sender, name: DBusErrorName.unknownMethod, text: "org.freedesktop.DBus.Properties has no method \(quoted(message.member ?? ""))")
        }
    }

    func childNames(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for p in objects.keys where p.rawValue.hasPrefix(prefix) && p != path {
            let rest = p.rawValue.dropFirst(prefix.count)
            if let first = rest.split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    func sendReply(serial: UInt32, to sender: String, _ result: Result<[DBusValue], any Error>) {
        switch result {
        case .success(let values): replyNow(serial: serial, to: sender, values)
        case .failure(let error as any DBusErrorConvertible):
            replyError(serial: serial, to: sender, name: error.dbusErrorName, text: error.dbusErrorMessage)
        case .failure(let error):
            replyError(serial: serial, to: sender, name: DBusErrorName.failed, text: "\(error)")
        }
    }

    func replyNow(serial: UInt32, to sender: String, _ values: [DBusValue]) {
        do {
            try Marshal.validateBody(values)
            let msg = try RawMessage.methodReturn(replySerial: serial, destination: answerDestination(sender))
            try Marshal.append(values, to: msg.pointer)
            transmitAnswer(msg, to: sender)
        } catch {
            replyError(serial: serial, to: sender, name: DBusErrorName.failed, text: "internal error: invalid reply: \(error)")
        }
    }

    func replyError(serial: UInt32, to sender: String, name: String, text: String) {
        guard let msg = try? RawMessage.errorReply(replySerial: serial, destination: answerDestination(sender), name: name, text: text) else { return }
        transmitAnswer(msg, to: sender)
    }

    /// An answer to a call read from a peer link carries no destination: there is no bus to route it.
    private func answerDestination(_ sender: String) -> String { links[sender] == nil ? sender : "" }

    /// Sends an answer the way its call came: on the peer link it was read from, or on the bus.
    private func transmitAnswer(_ msg: RawMessage, to sender: String) {
        if let link = links[sender] {
            _ = try? sendOnLink(link, msg)  // a link that closes meanwhile has failed its calls already
            return
        }
        guard let conn = raw else { return }
        WireTrace.note("out", msg.pointer, on: uniqueName)
        _ = dbus_connection_send(conn, msg.pointer, nil)
    }
}
