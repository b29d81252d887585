// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol

/// A portal's sign-in form as the daemon publishes it (an interface's `SignInForm`): what the
/// page asks the user for, never a value the user typed. Every string came from the network
/// (escaped and bounded by the daemon); print it as text.
public struct SignInForm: Sendable, Equatable {
    public struct Option: Sendable, Equatable {
        public var value: String
        public var label: String
    }

    public struct Field: Sendable, Equatable {
        public var name: String
        /// text, email, number, tel, password, checkbox, select.
        public var kind: String
        public var label: String
        public var required: Bool
        /// The page's preset value (never given for a password).
        public var value: String
        public var options: [Option]
        public var terms: String
        public var termsURL: String

        init(_ d: [String: DBusValue]) {
            name = d["name"]?.string ?? ""
            kind = d["kind"]?.string ?? "text"
            label = d["label"]?.string ?? ""
            required = d["required"]?.bool ?? false
            value = d["value"]?.string ?? ""
            options = (d["options"]?.arrayItems ?? []).compactMap {
                guard let f = $0.structFields, f.count == 2, let v = f[0].string, let l = f[1].string else { return nil }
                return Option(value: v, label: l)
            }
            terms = d["terms"]?.string ?? ""
            termsURL = d["terms-url"]?.string ?? ""
        }
    }

    /// "form", "browser", or "" when no sign-in waits for the user.
    public var kind: String
    public var reason: String
    public var portalURL: String
    public var actionHost: String
    public var actionScheme: String
    public var plainHTTP: Bool
    public var fields: [Field]
    public var message: String
    public var remembered: Bool

    public init(_ d: [String: DBusValue]) {
        kind = d["kind"]?.string ?? ""
        reason = d["reason"]?.string ?? ""
        portalURL = d["portal-url"]?.string ?? ""
        actionHost = d["action-host"]?.string ?? ""
        actionScheme = d["action-scheme"]?.string ?? ""
        plainHTTP = d["plain-http"]?.bool ?? false
        fields = (d["fields"]?.arrayItems ?? []).compactMap(\.varDict).map(Field.init).filter { !$0.name.isEmpty }
        message = d["message"]?.string ?? ""
        remembered = d["remembered"]?.bool ?? false
    }
}

/// What the user gives one field.
public enum SignInValue: Sendable, Equatable {
    case text(String)
    case checked(Bool)

    var dbus: DBusValue {
        switch self {
        case .text(let s): return .string(s)
        case .checked(let b): return .bool(b)
        }
    }
}

/// A network whose sign-in the daemon remembers: its SSID, the host the form posts to and the
/// names of the fields remembered (never their values).
public struct RememberedSignIn: Sendable, Equatable {
    public var ssid: [UInt8]
    public var host: String
    public var fields: [String]
    /// CLOCK_REALTIME seconds when it was saved.
    public var saved: UInt64

    public init(_ d: [String: DBusValue]) {
        ssid = d["ssid"]?.byteArray ?? []
        host = d["host"]?.string ?? ""
        fields = d["fields"]?.strings ?? []
        saved = d["saved"]?.integer.map { UInt64(max(0, $0)) } ?? 0
    }
}

extension DaemonClient {
    /// The sign-in form waiting for the user on an interface (empty `kind` when none).
    public func signInForm(at path: ObjectPath) async throws -> SignInForm {
        let reply = try await connection.call(destination: HotspotContract.busName, path: path, interface: "org.freedesktop.DBus.Properties",
                                              member: "Get", body: [.string(HotspotContract.interfaceInterface.rawValue), .string("SignInForm")],
                                              timeout: timeout)
        return SignInForm(reply.first?.varDict ?? [:])
    }

    /// Signs in with the waiting form (SignIn; the sign-in polkit action). Answers the result
    /// (signed-in, rejected, needs-browser, form-changed) and the portal's or daemon's message.
    /// A portal may take its time: the call waits up to two minutes.
    public func signIn(at path: ObjectPath, values: [String: SignInValue], remember: Bool, allowPlainHTTP: Bool) async throws
        -> (result: String, message: String) {
        let reply = try await connection.call(destination: HotspotContract.busName, path: path, interface: HotspotContract.interfaceInterface,
                                              member: "SignIn",
                                              body: [.varDict(values.mapValues(\.dbus)),
                                                     .varDict(["remember": .bool(remember), "allow-plain-http": .bool(allowPlainHTTP)])],
                                              timeout: max(timeout, .seconds(120)), interactive: true)
        guard reply.count == 2, let result = reply[0].string, let message = reply[1].string else {
            throw ClientFailure.failed("the daemon answered SignIn with \(reply.count) values")
        }
        return (result, message)
    }

    /// The networks whose sign-in the daemon remembers (ListRememberedSignIns; read-scan-list).
    public func rememberedSignIns() async throws -> [RememberedSignIn] {
        let reply = try await connection.call(destination: HotspotContract.busName, path: HotspotContract.managerPath,
                                              interface: HotspotContract.managerInterface, member: "ListRememberedSignIns", timeout: timeout)
        return (reply.first?.arrayItems ?? []).compactMap(\.varDict).map(RememberedSignIn.init)
    }
}
