// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import SystemSupport

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
        guard let start = body.rangeIgnoringASCIICase(of: "<WISPAccessGatewayParam") else { return nil }
        var rest = String(body[start.upperBound...])
        if let end = Scanner.endOfMessage(Array(rest.utf8)) {
            rest = String(decoding: Array(rest.utf8)[..<end], as: UTF8.self)
        } else if let comment = rest.firstRange(of: "-->") {
            rest = String(rest[..<comment.lowerBound])
        }
        var m = WISPrMessage()
        let bytes = Array(rest.utf8)
        for kind in WISPrMessage.Kind.allCases where Scanner.openTag(bytes, kind.rawValue, requireEnd: false) != nil {
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
        let b = Array(s.utf8)
        guard let open = Scanner.openTag(b, name, requireEnd: true),
              let close = Scanner.closeTag(b, name, from: open.upperBound, requireEnd: true) else { return nil }
        var value = String(decoding: b[open.upperBound..<close.lowerBound], as: UTF8.self).trimmingWhitespace
        if value.hasPrefix("<![CDATA["), value.hasSuffix("]]>") {
            value = String(value.dropFirst(9).dropLast(3))
        } else if value.hasPrefix("CDATA[["), value.hasSuffix("]]") {
            value = String(value.dropFirst(7).dropLast(2))
        } else if value.hasPrefix("CDATA["), value.hasSuffix("]") {
            value = String(value.dropFirst(6).dropLast(1))
        }
        value = decodeEntities(value).trimmingWhitespace
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

    /// The tolerant tag scanner: `<`, optional whitespace, the name in any ASCII case, then what
    /// may follow it. Works on UTF-8 bytes; a gateway's page is bounded before it gets here.
    enum Scanner {
        static let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), slash = UInt8(ascii: "/")

        static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C || c == 0x0B }
        static func skipSpace(_ b: [UInt8], _ i: Int) -> Int {
            var i = i
            while i < b.count, isSpace(b[i]) { i += 1 }
            return i
        }
        static func lower(_ c: UInt8) -> UInt8 { (c >= 65 && c <= 90) ? c + 32 : c }
        /// Whether `word` stands at `i`, ignoring ASCII case.
        static func matches(_ b: [UInt8], _ i: Int, _ word: String) -> Bool {
            let w = Array(word.utf8)
            guard i + w.count <= b.count else { return false }
            for k in 0..<w.count where lower(b[i + k]) != lower(w[k]) { return false }
            return true
        }

        /// `<\s*name` followed by `>` or by whitespace and attributes up to `>` (requireEnd), or
        /// by whitespace, `>` or `/` (not requireEnd: the tag's start is enough). The range covers
        /// the whole tag when requireEnd, else up to the name's end.
        static func openTag(_ b: [UInt8], _ name: String, requireEnd: Bool, from: Int = 0) -> Range<Int>? {
            var i = from
            while let at = b[i...].firstIndex(of: lt) {
                var j = skipSpace(b, at + 1)
                defer { i = at + 1 }
                guard matches(b, j, name) else { continue }
                j += name.utf8.count
                guard j < b.count else { return nil }
                if !requireEnd {
                    if isSpace(b[j]) || b[j] == gt || b[j] == slash { return at..<j }
                    continue
                }
                if b[j] == gt { return at..<(j + 1) }
                guard isSpace(b[j]) else { continue }
                guard let end = b[j...].firstIndex(of: gt) else { return nil }
                return at..<(end + 1)
            }
            return nil
        }

        /// `<\s*/\s*name\s*>` (the `>` optional unless requireEnd), from `from`.
        static func closeTag(_ b: [UInt8], _ name: String, from: Int, requireEnd: Bool) -> Range<Int>? {
            var i = from
            while i < b.count, let at = b[i...].firstIndex(of: lt) {
                defer { i = at + 1 }
                var j = skipSpace(b, at + 1)
                guard j < b.count, b[j] == slash else { continue }
                j = skipSpace(b, j + 1)
                guard matches(b, j, name) else { continue }
                j = skipSpace(b, j + name.utf8.count)
                if j < b.count, b[j] == gt { return at..<(j + 1) }
                if !requireEnd { return at..<j }
            }
            return nil
        }

        /// Where the message ends: its closing tag (`>` optional), or a comment's end that
        /// swallowed the tag's start (`-->ISPAccessGatewayParam>`, `-->WISPAccessGatewayParam>`),
        /// whichever comes first.
        static func endOfMessage(_ b: [UInt8]) -> Int? {
            var best = closeTag(b, "WISPAccessGatewayParam", from: 0, requireEnd: false)?.lowerBound
            var i = 0
            while i + 3 <= b.count, let at = b[i...].firstIndex(of: UInt8(ascii: "-")) {
                defer { i = at + 1 }
                if let best, at >= best { break }
                guard matches(b, at, "-->") else { continue }
                let j = skipSpace(b, at + 3)
                for name in ["ISPAccessGatewayParam", "WISPAccessGatewayParam"] where matches(b, j, name) {
                    let k = skipSpace(b, j + name.utf8.count)
                    if k < b.count, b[k] == gt { best = min(best ?? at, at) }
                }
            }
            return best
        }
    }
}
