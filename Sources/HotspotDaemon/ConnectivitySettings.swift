// SPDX-License-Identifier: Apache-2.0
import Connectivity

/// The connectivity monitor's settings (`[connectivity]`).
public struct ConnectivitySettings: Sendable, Equatable {
    /// Whether the daemon probes at all.
    public var enabled = true
    /// The probe set; nil for `ConnectivityProbe.defaultSet`.
    public var probes: [ConnectivityProbe]?
    /// DNS servers used when NetworkManager reports none for a link.
    public var dnsServers: [String] = []
    /// The RFC 8908 API used for every network without a profile naming one.
    public var capportURL: String?
    /// A CA bundle replacing the system store (tests' CA).
    public var caFile: String?
    /// Bind probes to the interface (SO_BINDTODEVICE); false only for loopback tests and the demo.
    public var bindInterface = true
    /// The re-check interval while online (the backoff cap while not).
    public var interval: Duration = .seconds(300)
    /// Each probe's overall timeout.
    public var probeTimeout: Duration = .seconds(5)
    /// How long after a join a check that found no connectivity (refused, timed out) is repeated
    /// before it is believed: a gateway may let a new client through, or answer, only seconds
    /// after its first packets.
    public var joinPatience: Duration = .seconds(20)

    public init() {}

    /// Parses one `probes=` entry: `URL EXPECTATION` with EXPECTATION one of `status=204`,
    /// `contains=TEXT`, `equals=TEXT`, `prefix=TEXT`, `header=NAME:VALUE`.
    public static func probe(_ entry: String) throws(ConfigurationError) -> ConnectivityProbe {
        let parts = entry.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].hasPrefix("http://") || parts[0].hasPrefix("https://") else {
            throw ConfigurationError("each entry must be 'URL EXPECTATION', e.g. 'http://example.test/generate_204 status=204'")
        }
        let spec = trimmed(parts[1])
        guard let eq = spec.firstIndex(of: "=") else { throw ConfigurationError("the expectation needs KIND=VALUE, e.g. status=204") }
        let kind = String(spec[..<eq]), value = String(spec[spec.index(after: eq)...])
        let expectation: ProbeExpectation
        switch kind {
        case "status":
            guard let code = Int(value), (100..<600).contains(code) else { throw ConfigurationError("status= is not an HTTP status (100 to 599)") }
            expectation = .status(code)
        case "contains": expectation = .bodyContains(value)
        case "equals": expectation = .bodyEquals(value)
        case "prefix": expectation = .bodyPrefix(value)
        case "header":
            let hv = value.split(separator: ":", maxSplits: 1).map { trimmed($0) }
            guard let name = hv.first, !name.isEmpty else { throw ConfigurationError("header= needs NAME:VALUE") }
            expectation = .header(name: name, value: hv.count > 1 ? hv[1] : "")
        default:
            throw ConfigurationError("unknown expectation kind (expected: status, contains, equals, prefix, header)")
        }
        return ConnectivityProbe(url: parts[0], expectation: expectation)
    }
}
