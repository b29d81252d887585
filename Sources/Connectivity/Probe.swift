// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import SystemSupport

/// What a probe's answer must look like for the probe to count as "online".
public indirect enum ProbeExpectation: Sendable, Hashable {
    /// The status code, e.g. 204 for generate_204 endpoints.
    case status(Int)
    /// A 200 whose body contains this text (case-sensitive), e.g. Apple's "Success".
    case bodyContains(String)
    /// A 200 whose body, trimmed of white space, equals this text.
    case bodyEquals(String)
    /// A 200 whose body starts with this text (NetworkManager's `response=`).
    case bodyPrefix(String)
    /// A header whose value starts with `value`, both compared case-insensitively
    /// (`X-NetworkManager-Status: online`). An empty value only asks for the header.
    case header(name: String, value: String)
    /// Any one of these.
    case anyOf([ProbeExpectation])

    /// Whether `answer` meets the expectation.
    public func isMet(by answer: HTTPAnswer) -> Bool {
        switch self {
        case .status(let code): return answer.status == code
        case .bodyContains(let s): return answer.status == 200 && !answer.bodyTruncated && answer.text.contains(s)
        case .bodyEquals(let s):
            return answer.status == 200 && !answer.bodyTruncated && answer.text.trimmingWhitespace == s
        case .bodyPrefix(let s): return answer.status == 200 && !answer.bodyTruncated && answer.text.hasPrefix(s)
        case .header(let name, let value):
            guard let v = answer.header(name) else { return false }
            return value.isEmpty || v.lowercased().hasPrefix(value.lowercased())
        case .anyOf(let list): return list.contains { $0.isMet(by: answer) }
        }
    }
}

/// One connectivity probe: a URL and what it must answer.
public struct ConnectivityProbe: Sendable, Hashable {
    /// The URL, http or https. https probes verify certificates; they tell "partial" from "portal".
    public var url: String
    /// What counts as online.
    public var expectation: ProbeExpectation

    /// A probe.
    public init(url: String, expectation: ProbeExpectation) {
        self.url = url
        self.expectation = expectation
    }

    /// Whether the URL is https.
    public var isHTTPS: Bool { url.lowercased().hasPrefix("https:") }

    /// The default set: diverse across vendors, operators and CDNs, so that one blocked or broken
    /// endpoint (captive.apple.com blocked in some countries, an expired certificate) does not
    /// decide alone, and so that a portal that lets a few well-known probe hosts through is still
    /// seen. Four HTTP probes find portals; two HTTPS probes tell partial connectivity apart.
    public static let defaultSet: [ConnectivityProbe] = [
        ConnectivityProbe(url: "http://connectivitycheck.gstatic.com/generate_204", expectation: .status(204)),
        ConnectivityProbe(url: "http://captive.apple.com/hotspot-detect.html", expectation: .bodyContains("Success")),
        ConnectivityProbe(url: "http://www.msftconnecttest.com/connecttest.txt", expectation: .bodyEquals("Microsoft Connect Test")),
        ConnectivityProbe(url: "http://nmcheck.gnome.org/check_network_status.txt",
                          expectation: .anyOf([.header(name: "X-NetworkManager-Status", value: "online"),
                                               .bodyPrefix("NetworkManager is online")])),
        ConnectivityProbe(url: "https://www.google.com/generate_204", expectation: .status(204)),
        ConnectivityProbe(url: "https://cp.cloudflare.com/generate_204", expectation: .status(204)),
    ]
}

/// Why a probe or a verdict came out as it did.
public enum ProbeReason: Sendable, Hashable, CustomStringConvertible {
    /// The expectation was met.
    case expected
    /// A 3xx redirect (to the sign-in page when Location is present).
    case redirect(status: Int)
    /// A 2xx with content where the expectation was not met: a portal page.
    case unexpectedContent(status: Int)
    /// A WISPr gateway message was found in the answer.
    case wispr
    /// 511 Network Authentication Required (RFC 6585).
    case networkAuthenticationRequired
    /// The RFC 8908 API says captive.
    case capportCaptive
    /// An HTTP status that says nothing about a portal (4xx, 5xx, an empty 200 from a broken proxy).
    case status(Int)
    /// DNS resolution failed.
    case dns
    /// The TLS handshake or certificate check failed.
    case tls
    /// The probe timed out or the peer was too slow.
    case timeout
    /// The connection was refused or the host unreachable.
    case refused
    /// Another transport failure.
    case transport
    /// The check was decided before this probe finished.
    case cancelled
    /// Checked over IPv4 and IPv6 apart: a portal intercepts this family only, the other is online.
    case oneFamilyIntercepted(String)

    public var description: String {
        switch self {
        case .expected: return "expected answer"
        case .redirect(let s): return "redirect (HTTP \(s))"
        case .unexpectedContent(let s): return "unexpected content (HTTP \(s))"
        case .wispr: return "WISPr gateway"
        case .networkAuthenticationRequired: return "HTTP 511 network authentication required"
        case .capportCaptive: return "RFC 8908 API says captive"
        case .status(let s): return "HTTP \(s)"
        case .dns: return "DNS failure"
        case .tls: return "TLS failure"
        case .timeout: return "timeout"
        case .refused: return "connection refused"
        case .transport: return "transport failure"
        case .cancelled: return "not needed"
        case .oneFamilyIntercepted(let family): return "a portal intercepts \(family) only (the other family is online)"
        }
    }
}

/// What one probe found.
public struct ProbeResult: Sendable, Hashable {
    /// The three outcomes of a single probe.
    public enum Outcome: String, Sendable, Hashable {
        /// The expected answer.
        case online
        /// Something intercepted the request.
        case portal
        /// No usable answer.
        case failed
    }
    /// The probe.
    public var probe: ConnectivityProbe
    /// The outcome.
    public var outcome: Outcome
    /// Why.
    public var reason: ProbeReason
    /// For a portal: where to sign in (Location, WISPr LoginURL, or the probe URL of a portal page).
    public var signInURL: String?
    /// For a WISPr gateway: its message.
    public var wispr: WISPrMessage?
    /// The transport error's text, when there was one.
    public var detail: String?
    /// Time from the check's start to this result.
    public var elapsed: Duration

    /// A result.
    public init(probe: ConnectivityProbe, outcome: Outcome, reason: ProbeReason, signInURL: String? = nil,
                wispr: WISPrMessage? = nil, detail: String? = nil, elapsed: Duration = .zero) {
        self.probe = probe
        self.outcome = outcome
        self.reason = reason
        self.signInURL = signInURL
        self.wispr = wispr
        self.detail = detail
        self.elapsed = elapsed
    }
}

/// Classifies one probe's answer. Pure.
public enum ProbeClassifier {
    /// The rules, in order:
    /// - transport failure → failed with its reason (dns, tls, timeout, refused);
    /// - a WISPr gateway message in a 2xx/3xx body → portal at its LoginURL;
    /// - expectation met → online;
    /// - 3xx → portal at Location (resolved against the probe URL), or the probe URL without one;
    /// - 511 → portal at the probe URL;
    /// - 200 with at most 4 bytes → failed (a broken transparent proxy, as Android judges it);
    /// - other 2xx with content → portal at the probe URL (the page is the portal);
    /// - anything else (4xx, 5xx) → failed with the status;
    /// - over https, an unexpected answer from a verified server is failed(status), never portal:
    ///   a portal cannot present a valid certificate for the probe host.
    public static func classify(_ probe: ConnectivityProbe, _ result: Result<HTTPAnswer, TransferError>,
                                elapsed: Duration = .zero) -> ProbeResult {
        let answer: HTTPAnswer
        switch result {
        case .failure(let e):
            let reason: ProbeReason
            switch e.kind {
            case .dns: reason = .dns
            case .tls: reason = .tls
            case .timeout: reason = .timeout
            case .refused: reason = .refused
            case .cancelled: reason = .cancelled
            case .invalidRequest, .other: reason = .transport
            }
            return ProbeResult(probe: probe, outcome: .failed, reason: reason, detail: e.detail, elapsed: elapsed)
        case .success(let a): answer = a
        }
        let status = answer.status
        if (200...399).contains(status), status != 204, let message = WISPrParser.parse(answer.text), let login = message.loginURL {
            if !probe.isHTTPS || !probe.expectation.isMet(by: answer) {
                return ProbeResult(probe: probe, outcome: .portal, reason: .wispr, signInURL: login, wispr: message, elapsed: elapsed)
            }
        }
        if probe.expectation.isMet(by: answer) {
            return ProbeResult(probe: probe, outcome: .online, reason: .expected, elapsed: elapsed)
        }
        if probe.isHTTPS {
            return ProbeResult(probe: probe, outcome: .failed, reason: .status(status), elapsed: elapsed)
        }
        switch status {
        case 300...399:
            let target = answer.header("Location").flatMap { resolve($0, against: probe.url) } ?? probe.url
            return ProbeResult(probe: probe, outcome: .portal, reason: .redirect(status: status), signInURL: target, elapsed: elapsed)
        case 511:
            return ProbeResult(probe: probe, outcome: .portal, reason: .networkAuthenticationRequired, signInURL: probe.url, elapsed: elapsed)
        case 200 where answer.body.count <= 4 && !answer.bodyTruncated:
            return ProbeResult(probe: probe, outcome: .failed, reason: .status(status), detail: "empty or tiny 200", elapsed: elapsed)
        case 200...299:
            return ProbeResult(probe: probe, outcome: .portal, reason: .unexpectedContent(status: status), signInURL: probe.url, elapsed: elapsed)
        default:
            return ProbeResult(probe: probe, outcome: .failed, reason: .status(status), elapsed: elapsed)
        }
    }

    /// Resolves a possibly relative Location against the URL that was fetched.
    public static func resolve(_ location: String, against base: String) -> String? {
        let trimmed = location.trimmingWhitespace
        guard !trimmed.isEmpty else { return nil }
        guard let b = URL(string: base), let u = URL(string: trimmed, relativeTo: b) else { return nil }
        return u.absoluteString
    }
}
