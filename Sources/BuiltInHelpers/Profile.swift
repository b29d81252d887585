// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore

/// How a profile signs in to its network's captive portal.
public enum SignInMethod: Sendable, Hashable, CustomStringConvertible {
    /// No sign-in: the profile only names the network and may give its Wi-Fi password.
    case none
    /// Accept the portal's terms form (its checkboxes ticked, hidden fields kept).
    case clickThrough
    /// Post named fields to the portal's form (`url` overrides the form's action). The fields go
    /// only to `loginHosts` (`login-hosts=`); without it none are sent.
    case form(url: String?, fields: [FormField], loginHosts: LoginHosts?)
    /// A WISPr 1.0/2.0 smart-client login. The credentials go only to `loginHosts`
    /// (`login-hosts=`); without it none are sent.
    case wispr(WISPrCredentials, loginHosts: LoginHosts?)
    /// An RFC 8908 network: the API at `apiURL` tells whether the session is up and where to sign
    /// in; its user portal's terms form is accepted.
    case capport(apiURL: String)

    /// The names accepted for `sign-in=`.
    public static let names = ["none", "click-through", "form", "wispr", "capport"]

    /// Whether the method sends credentials (and so needs `login-hosts=`).
    public var sendsCredentials: Bool {
        switch self {
        case .form, .wispr: true
        default: false
        }
    }

    /// The `sign-in=` name.
    public var name: String {
        switch self {
        case .none: "none"
        case .clickThrough: "click-through"
        case .form: "form"
        case .wispr: "wispr"
        case .capport: "capport"
        }
    }

    public var description: String {
        switch self {
        case .form(let url, let fields, let hosts):
            "form(\(url ?? "the portal's form"), fields: \(fields.map(\.name).joined(separator: ",")), login hosts: \(hosts?.description ?? "none"))"
        case .wispr(let c, let hosts): "wispr(\(c.username), login hosts: \(hosts?.description ?? "none"))"
        case .capport(let url): "capport(\(url))"
        default: name
        }
    }
}

/// One form field a profile posts. Its value may be a credential, so descriptions hide it.
public struct FormField: Sendable, Hashable, CustomStringConvertible {
    /// The field's name.
    public var name: String
    /// The value posted.
    public var value: String

    /// A field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=<redacted>" }
}

/// Which SSIDs a profile matches.
public enum SSIDMatch: Sendable, Hashable, CustomStringConvertible {
    /// Exactly this SSID (`ssid=`).
    case exact(SSID)
    /// Every SSID starting with these bytes (`ssid-prefix=`).
    case prefix([UInt8])

    public var description: String {
        switch self {
        case .exact(let s): "SSID '\(s.displayForm)'"
        case .prefix(let p): "SSID prefix '\(SSID(bytes: p).displayForm)'"
        }
    }
}

/// A known network from a profile file: how to recognise it, what to call it, its Wi-Fi password
/// and how to sign in. Descriptions never show a secret.
public struct Profile: Sendable, Hashable, CustomStringConvertible {
    /// The group name in the file (`[CityFree]`).
    public var name: String
    /// The file it came from.
    public var file: String
    /// The line of its group header.
    public var line: Int
    /// Which SSIDs it matches.
    public var match: SSIDMatch
    /// The name shown beside the network; the group name when `display-name=` is absent.
    public var displayName: String
    /// The Wi-Fi password handed to NetworkManager (filter-scan-list).
    public var password: Password?
    /// How sure the profile is that it can sign in (evaluate and filter-scan-list).
    public var confidence: Confidence
    /// How to sign in.
    public var signIn: SignInMethod
    /// Whether the sign-in's credentials may go over plain http (`plain-http-login=true`: a portal
    /// that has no https). Steps with no credentials (terms pages) may always.
    public var plainHTTPLogin: Bool

    /// A profile.
    public init(name: String, file: String, line: Int, match: SSIDMatch, displayName: String, password: Password? = nil,
                confidence: Confidence = .high, signIn: SignInMethod = .none, plainHTTPLogin: Bool = false) {
        self.name = name
        self.file = file
        self.line = line
        self.match = match
        self.displayName = displayName
        self.password = password
        self.confidence = confidence
        self.signIn = signIn
        self.plainHTTPLogin = plainHTTPLogin
    }

    /// Where it is defined, for messages.
    public var location: String { "\(file) line \(line)" }

    public var description: String {
        "profile [\(name)] (\(location)): \(match), \(displayName), sign-in \(signIn)\(password == nil ? "" : ", Wi-Fi password set")"
    }
}
