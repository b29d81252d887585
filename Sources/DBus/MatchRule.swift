// SPDX-License-Identifier: Apache-2.0
/// A signal match rule (the D-Bus specification's "Match Rules"), used both to ask the bus for
/// signals (`AddMatch`) and to route received signals to subscribers in Swift, since the bus
/// delivers a message once however many rules it matches.
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    /// `sender=`: a unique or well-known name. A well-known name is resolved to its current owner
    /// by the connection, which tracks it through `NameOwnerChanged`.
    public var sender: BusName?
    public var path: ObjectPath?
    public var pathNamespace: ObjectPath?
    /// Required: the specification asks signal rules to name the interface.
    public var interface: InterfaceName
    public var member: MemberName?
    /// `argN=` string matches.
    public var arguments: [Int: String]

    public init(sender: BusName? = nil, path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil,
                interface: InterfaceName, member: MemberName? = nil, arguments: [Int: String] = [:]) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The rule text for `AddMatch`/`RemoveMatch`.
    public var description: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender=" + Self.quote(sender.rawValue)) }
        if let path { parts.append("path=" + Self.quote(path.rawValue)) }
        if let pathNamespace { parts.append("path_namespace=" + Self.quote(pathNamespace.rawValue)) }
        parts.append("interface=" + Self.quote(interface.rawValue))
        if let member { parts.append("member=" + Self.quote(member.rawValue)) }
        for (n, value) in arguments.sorted(by: { $0.key < $1.key }) {
            parts.append("arg\(n)=" + Self.quote(value))
        }
        return parts.joined(separator: ",")
    }

    /// Validates what the names cannot: argument indices (0…63) and argument text (no NUL).
    func validate() throws(DBusError) {
        for (n, value) in arguments {
            guard (0...63).contains(n) else { throw .invalidValue("match rule argument index \(n) is outside 0…63") }
            try validateWireString(value, what: "match rule argument")
        }
    }

    /// Quotes a value: apostrophes cannot appear inside quotes, so they are written as `\'` between
    /// quoted parts.
    /// Whether a signal with this header can match (the arguments are not looked at): a signal
    /// no rule of ours can match is dropped before its body is decoded.
    func matchesHeader(sender signalSender: String, path signalPath: ObjectPath, interface signalInterface: String, member signalMember: String,
                       owner: (BusName) -> String?) -> Bool {
        if signalInterface != interface.rawValue { return false }
        if let member, signalMember != member.rawValue { return false }
        if let path, signalPath != path { return false }
        if let pathNamespace, !signalPath.isInNamespace(pathNamespace) { return false }
        if let sender {
            if sender.isUnique || sender.rawValue == "org.freedesktop.DBus" {
                if signalSender != sender.rawValue { return false }
            } else if signalSender != owner(sender) {
                return false
            }
        }
        return true
    }

    static func quote(_ s: String) -> String {
        "'" + s.replacingAll("'", with: "'\\''") + "'"
    }

    /// Whether `signal` matches this rule; `owner` resolves a well-known sender to its unique name.
    func matches(_ signal: Signal, owner: (BusName) -> String?) -> Bool {
        guard matchesHeader(sender: signal.sender, path: signal.path, interface: signal.interface, member: signal.member, owner: owner) else {
            return false
        }
        for (n, value) in arguments {
            guard n < signal.body.count, case .string(let s) = signal.body[n], s == value else { return false }
        }
        return true
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        out += rest
        return out
    }
}

extension Substring {
    func range(of target: String) -> Range<Substring.Index>? {
        let t = Array(target.utf8)
        var i = startIndex
        while i < endIndex {
            if self[i...].utf8.starts(with: t) {
                let end = self.utf8.index(i, offsetBy: t.count)
                return i..<end
            }
            i = index(after: i)
        }
        return nil
    }
}
