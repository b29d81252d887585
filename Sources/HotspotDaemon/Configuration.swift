// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import BuiltInHelpers
import Connectivity
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore

/// The daemon's configuration: a key file, NetworkManager's own format (read as GKeyFile reads
/// it: `KeyFile`).
///
/// ```ini
/// [daemon]
/// state-dir=/var/lib/hotspot-helper
/// command-timeout=45
/// maintain-interval=300
/// filter-interval=5
/// # an authenticate answered temporary-failure is sent again, 2 s, 4 s, 8 s… later
/// authenticate-retries=4
/// authenticate-retry-delay=2
/// authenticate-retry-window=60
/// profiles-dir=/etc/hotspot-helper/profiles.d
/// builtin-helpers=profiles;portal
/// # in-memory NetworkManager profiles for helpers' passwords
/// provision-profiles=true
///
/// [connectivity]
/// enabled=true
/// # replaces the default probe set (ProbePolicy)
/// probes=http://127.0.0.1:8080/generate_204 status=204;…
/// # when NetworkManager reports none for the link
/// dns-servers=127.0.0.1:5353
/// capport-url=https://capport.example/api
/// ca-file=/path/ca.pem
/// bind-interface=true
/// interval=300
/// probe-timeout=5
/// # a join's refused or timed-out checks are repeated this long before "none" is believed
/// join-patience=20
/// ```
/// Durations are seconds and may have decimals (tests run with fractions of a second). Key files
/// have no inline comments (`interval=300  # five minutes` is not a number): comments go on lines
/// of their own, and a value with ` #` in it is reported in ``warnings``.
public struct DaemonConfiguration: Sendable, Equatable {
    public var stateDirectory: String = "/var/lib/hotspot-helper"
    public var commandTimeout: Duration = .seconds(45)
    public var maintainInterval: Duration = .seconds(300)
    public var filterInterval: Duration = .seconds(5)
    /// How long NetworkManager's pre-up dispatcher script may hold a join while the helpers sign
    /// in (``Engine/settleJoin(_:)``): well inside nm-dispatcher's own 600 s per script, and short
    /// enough that a join the daemon cannot settle reaches the desktop soon.
    public var joinHold: Duration = .seconds(15)
    /// Repeats of an authenticate answered temporary-failure (``HotspotConfiguration``).
    public var authenticateRetries = 4
    /// The first repeat's wait; it doubles for each further one.
    public var authenticateRetryDelay: Duration = .seconds(2)
    /// No repeat later than this after the first temporary failure.
    public var authenticateRetryWindow: Duration = .seconds(60)
    /// Where profile files (`*.conf`) are read from.
    public var profilesDirectory: String = "/etc/hotspot-helper/profiles.d"
    /// The built-in helpers to run: "profiles", "portal".
    public var builtinHelpers: [String] = ["profiles", "portal"]
    /// Whether helpers' passwords are provisioned as in-memory NetworkManager profiles
    /// (docs/NETWORKMANAGER.md, "Provisioning"); off leaves only the secret agent.
    public var provisionProfiles = true
    /// How far apart two sightings of a network must be before it gets a profile (`provision-after`;
    /// zero: at the first): a burst of beacons mints none (docs/NETWORKMANAGER.md, "Provisioning").
    public var provisionAfter: Duration = .seconds(15)
    /// The connectivity monitor's settings (`[connectivity]`).
    public var connectivity = ConnectivitySettings()
    /// Keys the daemon did not recognise, for a warning (`group.key`).
    public var unknownKeys: [String] = []
    /// Values that look like they end in an inline comment, for a warning (file, line and key;
    /// never the value).
    public var warnings: [String] = []

    public init() {}

    /// The core's timings.
    public var core: HotspotConfiguration {
        HotspotConfiguration(maintainInterval: maintainInterval, commandDeadline: commandTimeout, filterScanListInterval: filterInterval,
                             authenticateRetries: authenticateRetries, authenticateRetryDelay: authenticateRetryDelay,
                             authenticateRetryWindow: authenticateRetryWindow)
    }

    /// A configuration file larger than this is refused.
    public static let maximumSize = 1 << 20

    /// Reads `path` (not through a symbolic link, a regular file only). Errors name the file,
    /// the line, the key and what is wrong — never the text of the line.
    public static func load(path: String) throws(ConfigurationError) -> DaemonConfiguration {
        let bytes: [UInt8]?
        do { bytes = try RegularFile.read(path, maximumSize: maximumSize) } catch { throw ConfigurationError(error.message) }
        guard let bytes else {
            throw ConfigurationError("\(path): cannot read the file: it does not exist. Fix: create it (hotspot-helperd(8) lists the keys), or start the daemon without --config to use the defaults")
        }
        return try parse(bytes, path: path)
    }

    /// Reads and checks `path`: ``check(_:path:)``, or one problem saying why it cannot be read.
    public static func check(path: String) -> (DaemonConfiguration, [ConfigurationProblem]) {
        do {
            guard let bytes = try RegularFile.read(path, maximumSize: maximumSize) else {
                return (DaemonConfiguration(), [ConfigurationProblem(path: path, line: nil, message: "cannot read the configuration: it does not exist. "
                    + "Fix: create it (hotspot-helperd(8) lists the keys), or leave out --config to use the defaults", severity: .error)])
            }
            return check(bytes, path: path)
        } catch {
            return (DaemonConfiguration(), [ConfigurationProblem(path: path, line: nil, message: "cannot read the configuration: \(error.message)", severity: .error)])
        }
    }

    /// The profiles this configuration would load, checked as the daemon loads them: their
    /// problems and warnings (a profiles directory that does not exist among the latter).
    public func checkProfiles() -> ProfileSet {
        ProfileLoader.load(directory: profilesDirectory)
    }

    /// Parses keyfile text; `path` names it in errors. Every problem of the file is found, not
    /// only the first: the error holds them all, in line order (``ConfigurationError/problems``).
    /// An unknown group or key is an error, not a warning: a typo in `[connectivity]
    /// enabled=false` must not leave the daemon probing what the administrator turned off.
    public static func parse(_ bytes: [UInt8], path: String) throws(ConfigurationError) -> DaemonConfiguration {
        let (config, problems) = check(bytes, path: path)
        let errors = problems.filter { $0.severity == .error }
        guard errors.isEmpty else { throw ConfigurationError(problems: errors) }
        return config
    }

    /// Parses keyfile text and lists every problem, errors and warnings, in line order; the
    /// configuration is what the file says where it can be read, the defaults elsewhere.
    /// `hotspot-helperd --check-config` prints these.
    public static func check(_ bytes: [UInt8], path: String) -> (DaemonConfiguration, [ConfigurationProblem]) {
        var problems: [ConfigurationProblem] = []
        func error(_ line: Int?, _ message: String) { problems.append(ConfigurationProblem(path: path, line: line, message: message, severity: .error)) }
        func warning(_ line: Int?, _ message: String) { problems.append(ConfigurationProblem(path: path, line: line, message: message, severity: .warning)) }

        // Where and what, never the line itself (it may hold a secret).
        let (file, syntax) = KeyFile.diagnosing(bytes)
        for p in syntax { error(p.line, "this line \(p.reason)") }
        var config = DaemonConfiguration()
        for assignment in file.assignments {
            let blankHash = zip(assignment.rawValue, assignment.rawValue.dropFirst()).contains {
                ($0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t")) && $1 == UInt8(ascii: "#")
            }
            if blankHash {
                warning(assignment.line, "[\(assignment.group)] \(assignment.key): the value contains ' #', which a key file keeps as part of the value "
                        + "(there are no inline comments); if it is meant as a comment, move it to a line of its own starting with #")
            }
        }
        let known = knownKeys
        for group in file.groups {
            guard let keys = known[group] else {
                let line = file.line(ofGroup: group)
                error(line, "unknown group [\(UntrustedText.forLog(group, limit: 64))]\(Suggestion.didYouMean(group, among: known.keys.sorted(), format: { "[\($0)]" })); "
                      + "none of its keys is read. The groups are [daemon] and [connectivity] (hotspot-helperd(8))")
                continue
            }
            var seen: Set<String> = []
            for key in file.keys(in: group) where !KeyFile.isTranslation(key) && !keys.contains(key) && !obsoleteKeys.keys.contains("\(group).\(key)") && seen.insert(key).inserted {
                let suggestion = Suggestion.didYouMean(key, among: keys.sorted(), format: { "'\($0)'" })
                error(file.line(ofKey: key, in: group),
                      "unknown key '\(UntrustedText.forLog(key, limit: 64))' in [\(group)]" + (suggestion.isEmpty ? " (the keys of [\(group)] are: \(keys.sorted().joined(separator: ", ")))" : suggestion))
                config.unknownKeys.append("\(group).\(UntrustedText.forLog(key, limit: 64))")
            }
        }
        for (name, advice) in obsoleteKeys.sorted(by: { $0.key < $1.key }) {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            if let line = file.line(ofKey: parts[1], in: parts[0]) { warning(line, "[\(parts[0])] \(parts[1]) is no longer read: \(advice)") }
        }

        func text(_ key: String, _ group: String = "daemon") -> String? {
            file.string(key, in: group).map { trimmed($0) }
        }
        func list(_ key: String, _ group: String) -> [String]? {
            guard let t = text(key, group) else { return nil }
            return t.split(separator: ";").map { trimmed($0) }.filter { !$0.isEmpty }
        }
        func line(_ group: String, _ key: String) -> Int? { file.line(ofKey: key, in: group) }
        func bad(_ group: String, _ key: String, _ what: String) { error(line(group, key), "[\(group)] \(key) \(what)") }
        func seconds(_ key: String, _ group: String = "daemon") -> Duration? {
            guard let t = text(key, group) else { return nil }
            guard let v = Double(t), v.isFinite, v > 0, v < 31_536_000 else {
                bad(group, key, "is not a number of seconds greater than 0 (decimals allowed, e.g. \(key)=0.5)")
                return nil
            }
            return .milliseconds(Int64((v * 1000).rounded()))
        }
        func boolean(_ key: String, _ group: String) -> Bool? {
            guard let t = text(key, group) else { return nil }
            switch t.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default:
                bad(group, key, "must be true or false")
                return nil
            }
        }
        if let dir = text("profiles-dir") {
            if dir.hasPrefix("/") { config.profilesDirectory = dir } else { bad("daemon", "profiles-dir", "must be an absolute path, e.g. profiles-dir=/etc/hotspot-helper/profiles.d") }
        }
        if let names = list("builtin-helpers", "daemon") {
            let unknown = names.filter { !["profiles", "portal"].contains($0) }
            if unknown.isEmpty { config.builtinHelpers = names } else {
                bad("daemon", "builtin-helpers", "names an unknown helper, '\(UntrustedText.forLog(unknown[0], limit: 64))'\(Suggestion.didYouMean(unknown[0], among: ["portal", "profiles"], format: { "'\($0)'" })) "
                    + "(expected: profiles, portal; empty for none)")
            }
        }
        var c = ConnectivitySettings()
        if let v = boolean("provision-profiles", "daemon") { config.provisionProfiles = v }
        if let t = text("provision-after", "daemon") {
            if let v = Double(t), v.isFinite, v >= 0, v <= 3600 { config.provisionAfter = .milliseconds(Int64((v * 1000).rounded())) } else {
                bad("daemon", "provision-after", "is not a number of seconds from 0 to 3600 (e.g. provision-after=15)")
            }
        }
        if let v = boolean("enabled", "connectivity") { c.enabled = v }
        if let v = boolean("bind-interface", "connectivity") { c.bindInterface = v }
        if let v = seconds("interval", "connectivity") { c.interval = v }
        if let v = seconds("probe-timeout", "connectivity") { c.probeTimeout = v }
        if let v = seconds("join-patience", "connectivity") { c.joinPatience = v }
        if let v = list("dns-servers", "connectivity") { c.dnsServers = v }
        if let v = text("ca-file", "connectivity") {
            if v.hasPrefix("/") { c.caFile = v } else { bad("connectivity", "ca-file", "must be an absolute path, e.g. ca-file=/etc/hotspot-helper/ca.pem") }
        }
        if let v = text("capport-url", "connectivity"), !v.isEmpty {
            if v.hasPrefix("https://") { c.capportURL = v } else { bad("connectivity", "capport-url", "must be an https URL (RFC 8908 allows no other)") }
        }
        if let entries = list("probes", "connectivity") {
            var probes: [ConnectivityProbe] = []
            for (n, e) in entries.enumerated() {
                do throws(ConfigurationError) { probes.append(try ConnectivitySettings.probe(e)) } catch {
                    bad("connectivity", "probes", "entry \(n + 1): \(error.message)")
                }
            }
            if entries.isEmpty {
                bad("connectivity", "probes", "is empty; remove it to use the default set")
            } else if probes.count == entries.count {
                c.probes = probes
            }
        }
        config.connectivity = c
        if let dir = text("state-dir") {
            if dir.hasPrefix("/") { config.stateDirectory = dir } else { bad("daemon", "state-dir", "must be an absolute path, e.g. state-dir=/var/lib/hotspot-helper") }
        }
        if let v = seconds("command-timeout") { config.commandTimeout = v }
        if let v = seconds("maintain-interval") { config.maintainInterval = v }
        if let v = seconds("filter-interval") { config.filterInterval = v }
        if let v = seconds("join-hold") {
            if v <= .seconds(60) { config.joinHold = v } else { bad("daemon", "join-hold", "is over 60 s, the longest the pre-up script waits; use at most 60") }
        }
        if let v = seconds("authenticate-retry-delay") { config.authenticateRetryDelay = v }
        if let v = seconds("authenticate-retry-window") { config.authenticateRetryWindow = v }
        if let t = text("authenticate-retries") {
            if let n = Int(t), (0...100).contains(n) { config.authenticateRetries = n } else {
                bad("daemon", "authenticate-retries", "is not a whole number from 0 to 100 (0: a temporary failure disconnects at once)")
            }
        }
        // In line order, as an editor shows the file; problems without a line first.
        let ordered = problems.enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }.map(\.element)
        config.warnings = ordered.filter { $0.severity == .warning }.map(\.description)
        return (config, ordered)
    }

    /// Keys an earlier version read, and what to do instead: warned about, never refused, so an
    /// upgrade does not stop the daemon.
    public static let obsoleteKeys: [String: String] = [
        "connectivity.allow-plain-http-login": "a profile whose portal has no https says so itself with plain-http-login=true (docs/CONNECTIVITY.md); remove the key",
    ]

    /// The keys the loader reads, by group.
    public static let knownKeys: [String: Set<String>] = [
        "daemon": ["state-dir", "command-timeout", "maintain-interval", "filter-interval", "profiles-dir", "builtin-helpers", "provision-profiles",
                   "provision-after",
                   "join-hold", "authenticate-retries", "authenticate-retry-delay", "authenticate-retry-window"],
        "connectivity": ["enabled", "probes", "dns-servers", "capport-url", "ca-file", "bind-interface",
                         "interval", "probe-timeout", "join-patience"],
    ]
}

/// Spaces and tabs removed from both ends (GKeyFile, and so `KeyFile`, keeps a value's trailing blanks).
func trimmed(_ text: some StringProtocol) -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
    return String(text[first...last])
}
