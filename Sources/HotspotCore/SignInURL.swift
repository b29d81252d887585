// SPDX-License-Identifier: Apache-2.0
/// The one rule for a sign-in page's address before it is published (`PortalUrl`,
/// `VenueInfoUrl`, a helper's answer) or opened (the session agent, `hotspotctl`, the Shell
/// extension): `http` or `https`, with a host, and nothing a desktop could read as something else.
///
/// Every such address comes from the network or from a helper: a probe's redirect or page, RFC
/// 8908's `user-portal-url`, DHCP option 114 or the RA option, WISPr's `LoginURL`. A hotspot that
/// answers `302 Location: smb://198.51.100.7/x` must not make a desktop open an SMB share, a
/// `file:` path, `ssh:` or any other handler the desktop registers (`xdg-open` runs whatever is
/// registered for the scheme). What passes:
/// - scheme `http` or `https` (any case), then `//`;
/// - a host: a DNS name (letters, digits, `-`, `.`, `_`; non-ASCII letters of an IDN are allowed,
///   as browsers take them), an IPv4 address, or an IPv6 literal in brackets; no user
///   information (`http://bank.example@198.51.100.7/` shows one host and opens another);
/// - an optional port of 1–65535 digits' value;
/// - a path, query and fragment of anything but white space, control and format characters
///   (they could hide what follows or break a line), at most ``maximumBytes`` in all.
///
/// Pure, Foundation-free: the daemon (one check where it learns an address), the agent,
/// `hotspotctl` and the sign-in dialog all call ``check(_:)``; the Shell extension carries the same
/// rule in JavaScript (packaging/gnome-shell-extension/common/urls.js).
public enum SignInURL {
    /// Longest address accepted, in UTF-8 bytes: browsers take far longer, portals send short ones,
    /// and a published property should stay small.
    public static let maximumBytes = 2048

    /// Why an address is not a sign-in page.
    public enum Refusal: Equatable, Sendable, CustomStringConvertible {
        case empty
        case tooLong(bytes: Int)
        case scheme(String)
        case noHost
        case userInfo
        case badHost
        case badPort
        case badCharacter(Unicode.Scalar)

        public var description: String {
            switch self {
            case .empty: return "it is empty"
            case .tooLong(let n): return "it is \(n) bytes long (at most \(SignInURL.maximumBytes))"
            case .scheme(let s):
                return s.isEmpty ? "it has no scheme (only http and https are opened)"
                    : "its scheme is '\(UntrustedText.forLog(s, limit: 20))', and only http and https are opened"
            case .noHost: return "it names no host"
            case .userInfo: return "it carries a user name before the host ('user@host'), which hides the host it opens"
            case .badHost: return "its host is not a host name or IP address"
            case .badPort: return "its port is not a number from 1 to 65535"
            case .badCharacter(let c):
                return "it contains \(UntrustedText.forLog(String(c))) (white space, control and format characters are not allowed)"
            }
        }
    }

    /// nil when `url` may be published and opened; otherwise why not.
    public static func check(_ url: String) -> Refusal? {
        if url.isEmpty { return .empty }
        let bytes = url.utf8.count
        if bytes > maximumBytes { return .tooLong(bytes: bytes) }
        if let bad = url.unicodeScalars.first(where: { $0.properties.isWhitespace || UntrustedText.needsEscape($0) }) {
            return .badCharacter(bad)
        }
        guard let colon = url.firstIndex(of: ":") else { return .scheme("") }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return .scheme(String(url[..<colon])) }
        let rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { return .noHost }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "\\" }) ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        if authorityEnd < afterSlashes.endIndex, afterSlashes[authorityEnd] == "\\" { return .badHost }
        if authority.contains("@") { return .userInfo }
        if authority.isEmpty { return .noHost }
        var host = authority[...]
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .badHost }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .badHost }
                port = after.dropFirst()
            }
            guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isASCIIHexDigit || $0 == ":" || $0 == ".") }),
                  host.contains(":") else { return .badHost }
        } else {
            if let c = authority.lastIndex(of: ":") {
                host = authority[..<c]
                port = authority[authority.index(after: c)...]
            }
            if host.isEmpty { return .noHost }
            guard isHostName(host) else { return .badHost }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(port), (1...65535).contains(n) else {
                return .badPort
            }
        }
        return nil
    }

    /// Whether `url` may be published and opened (``check(_:)`` finds nothing wrong).
    public static func isAllowed(_ url: String) -> Bool { check(url) == nil }

    /// Labels of letters, digits, `-` and `_` (and non-ASCII letters and digits, for IDNs),
    /// separated by single dots, not starting or ending with `-`; a trailing dot is allowed.
    static func isHostName(_ host: Substring) -> Bool {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard !labels.isEmpty, host.utf8.count <= 253 else { return false }
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63, label.first != "-", label.last != "-" else { return false }
            for s in label.unicodeScalars {
                if s.isASCII {
                    guard s.properties.isAlphabetic || (48...57).contains(s.value) || s == "-" || s == "_" else { return false }
                } else {
                    switch s.properties.generalCategory {
                    case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .otherLetter, .modifierLetter, .decimalNumber,
                         .nonspacingMark, .spacingMark:
                        continue
                    default:
                        return false
                    }
                }
            }
        }
        return true
    }
}
