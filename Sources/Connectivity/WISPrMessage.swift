// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A WISPr 1.0/2.0 gateway message (`<WISPAccessGatewayParam>`), as found in a portal's answer.
public struct WISPrMessage: Sendable, Hashable {
    /// The envelope element that names the message.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// MessageType 100: the initial redirect, with LoginURL.
        case redirect = "Redirect"
        /// MessageType 110: a proxy notification, with NextURL and Delay.
        case proxy = "Proxy"
        /// MessageType 120: the reply to the login POST.
        case authenticationReply = "AuthenticationReply"
        /// MessageType 121 (WISPr 2.0): an EAP authentication reply.
        case eapAuthenticationReply = "EAPAuthenticationReply"
        /// MessageType 130: the reply to a logoff.
        case logoffReply = "LogoffReply"
        /// MessageType 140: the reply to a poll of LoginResultsURL.
        case authenticationPollReply = "AuthenticationPollReply"
        /// MessageType 150: the reply to an abort.
        case abortLoginReply = "AbortLoginReply"
    }

    /// The envelope element, when one was recognised.
    public var kind: Kind?
    /// `MessageType` (100, 110, 120, 121, 130, 140, 150).
    public var messageType: Int?
    /// `ResponseCode` (0, 50, 100, 102, 105, 150, 151, 200, 201, 255).
    public var responseCode: Int?
    /// `AccessProcedure` ("1.0").
    public var accessProcedure: String?
    /// `AccessLocation`.
    public var accessLocation: String?
    /// `LocationName`.
    public var locationName: String?
    /// `LoginURL`, entities decoded.
    public var loginURL: String?
    /// `AbortLoginURL`.
    public var abortLoginURL: String?
    /// `NextURL` (Proxy).
    public var nextURL: String?
    /// `Delay` in seconds (Proxy, pending AuthenticationReply).
    public var delay: Int?
    /// `ReplyMessage`.
    public var replyMessage: String?
    /// `LoginResultsURL` (pending 201).
    public var loginResultsURL: String?
    /// `LogoffURL` (success).
    public var logoffURL: String?
    /// `StatusURL` (WISPr 2.0 / CoovaChilli).
    public var statusURL: String?
    /// `RedirectionURL`.
    public var redirectionURL: String?
    /// `MaxSessionTime` in seconds.
    public var maxSessionTime: Int?
    /// `VersionHigh` (WISPr 2.0: "2.0").
    public var versionHigh: String?
    /// `VersionLow`.
    public var versionLow: String?

    /// An empty message (tests fill it).
    public init() {}

    /// True for a WISPr 2.0 gateway.
    public var isVersion2: Bool { versionHigh?.hasPrefix("2") == true }
}

/// Finds and reads `WISPAccessGatewayParam` in any body: inside or outside an HTML comment, in
/// 200 and 3xx answers, tolerating the quirks real gateways have (Wi2's broken closing tag
/// `-->ISPAccessGatewayParam>`, unquoted attributes, line-wrapped tags such as `<\n/ResponseCode>`,
/// `&amp;` in URLs, literal `CDATA[[…]]`). A tolerant scanner, not an XML parser: a strict parser
/// rejects exactly the documents these gateways send. Pure.
public enum WISPrParser {
    /// The message in `body`, or nil when there is none.
    public static func parse(_ body: String) -> WISPrMessage? {
        guard let start = body.range(of: "<WISPAccessGatewayParam", options: .caseInsensitive) else { return nil }
        var rest = String(body[start.upperBound...])
        if let end = firstMatch(rest, #"(<\s*/\s*WISPAccessGatewayParam\s*>?|-->\s*ISPAccessGatewayParam\s*>|-->\s*WISPAccessGatewayParam\s*>)"#) {
            rest = String(rest[..<end.lowerBound])
        } else if let comment = rest.range(of: "-->") {
            rest = String(rest[..<comment.lowerBound])
        }
        var m = WISPrMessage()
        for kind in WISPrMessage.Kind.allCases where firstMatch(rest, #"<\s*"# + kind.rawValue + #"[\s>/]"#) != nil {
            m.kind = kind
            break
        }
        m.messageType = element(rest, "MessageType").flatMap { Int($0) }
        m.responseCode = element(rest, "ResponseCode").flatMap { Int($0) }
        m.accessProcedure = element(rest, "AccessProcedure")
        m.accessLocation = element(rest, "AccessLocation")
        m.locationName = element(rest, "LocationName")
        m.loginURL = element(rest, "LoginURL")
        m.abortLoginURL = element(rest, "AbortLoginURL")
        m.nextURL = element(rest, "NextURL")
        m.delay = element(rest, "Delay").flatMap { Int($0) }
        m.replyMessage = element(rest, "ReplyMessage")
        m.loginResultsURL = element(rest, "LoginResultsURL")
        m.logoffURL = element(rest, "LogoffURL")
        m.statusURL = element(rest, "StatusURL")
        m.redirectionURL = element(rest, "RedirectionURL")
        m.maxSessionTime = element(rest, "MaxSessionTime").flatMap { Int($0) }
        m.versionHigh = element(rest, "VersionHigh")
        m.versionLow = element(rest, "VersionLow")
        if m.kind == nil, let type = m.messageType {
            m.kind = [100: .redirect, 110: .proxy, 120: .authenticationReply, 121: .eapAuthenticationReply,
                      130: .logoffReply, 140: .authenticationPollReply, 150: .abortLoginReply][type]
        }
        if m.messageType == nil && m.responseCode == nil && m.loginURL == nil { return nil }
        return m
    }

    /// The text of element `name`, trimmed, CDATA unwrapped and entities decoded.
    static func element(_ s: String, _ name: String) -> String? {
        let pattern = #"<\s*"# + name + #"(\s[^>]*)?>([\s\S]*?)<\s*/\s*"# + name + #"\s*>"#
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return nil }
        let ns = s as NSString
        guard let match = regex.firstMatch(in: s, range: NSRange(location: 0, length: ns.length)) else { return nil }
        var value = ns.substring(with: match.range(at: 2)).trimmingCharacters(in: .whitespacesAndNewlines)
        if value.hasPrefix("<![CDATA["), value.hasSuffix("]]>") {
            value = String(value.dropFirst(9).dropLast(3))
        } else if value.hasPrefix("CDATA[["), value.hasSuffix("]]") {
            value = String(value.dropFirst(7).dropLast(2))
        } else if value.hasPrefix("CDATA["), value.hasSuffix("]") {
            value = String(value.dropFirst(6).dropLast(1))
        }
        value = decodeEntities(value).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// Decodes the XML entities gateways use (`&amp;` in URLs, numeric references).
    public static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == "&", let semi = s[i...].firstIndex(of: ";"), s.distance(from: i, to: semi) <= 10 {
                let entity = String(s[s.index(after: i)..<semi])
                var replacement: String?
                switch entity.lowercased() {
                case "amp": replacement = "&"
                case "lt": replacement = "<"
                case "gt": replacement = ">"
                case "quot": replacement = "\""
                case "apos": replacement = "'"
                default:
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let v = UInt32(entity.dropFirst(2), radix: 16), let u = Unicode.Scalar(v) {
                        replacement = String(Character(u))
                    } else if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()), let u = Unicode.Scalar(v) {
                        replacement = String(Character(u))
                    }
                }
                if let replacement {
                    out += replacement
                    i = s.index(after: semi)
                    continue
                }
            }
            out.append(s[i])
            i = s.index(after: i)
        }
        return out
    }

    static func firstMatch(_ s: String, _ pattern: String) -> Range<String.Index>? {
        s.range(of: pattern, options: [.regularExpression, .caseInsensitive])
    }
}
