// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore

/// A helper's response (or a command) that does not follow the contract; the message says what
/// is wrong in words a helper author can act on.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problem: String
    public init(_ problem: String) { self.problem = problem }
    public var description: String { problem }
}

/// The wire form of the network in a command (`network` a{sv}) and of scan-list entries.
public enum WireNetwork {
    /// SSIDs are at most 32 bytes (IEEE 802.11).
    public static let maximumSSIDLength = 32

    public static func encode(_ network: Network, isChosenHelper: Bool? = nil) -> DBusValue {
        // In key order, as `.varDict` would sort them (a command is encoded on every join).
        var entries: [(String, DBusValue)] = []
        entries.reserveCapacity(7)
        entries.append(("bssid", .string(network.bssid)))
        entries.append(("did-auto-join", .bool(network.didAutoJoin)))
        entries.append(("did-just-join", .bool(network.didJustJoin)))
        if let isChosenHelper { entries.append(("is-chosen-helper", .bool(isChosenHelper))) }
        entries.append(("secure", .bool(network.isSecure)))
        entries.append(("signal-strength", .double(network.signalStrength)))
        entries.append(("ssid", .bytes(network.ssid.bytes)))
        return .varDict(sorted: entries)
    }

    /// The keys that are location data (docs/ARCHITECTURE.md, "Location data"): they identify the
    /// network the machine is on or near.
    public static let locationKeys: Set<String> = ["ssid", "bssid"]

    /// `network` for everyone (the `Network` property, its PropertiesChanged, UIRequired): without
    /// its SSID and BSSID, which only GetNetwork and GetScanList give, behind read-scan-list.
    public static func encodePublic(_ network: Network) -> DBusValue {
        .varDict(sorted: [("did-auto-join", .bool(network.didAutoJoin)), ("did-just-join", .bool(network.didJustJoin)),
                          ("secure", .bool(network.isSecure)), ("signal-strength", .double(network.signalStrength))])
    }

    /// Decodes a network; the security class is not on the wire, so `secure` maps to personal.
    public static func decode(_ value: DBusValue) throws(WireError) -> Network {
        try decodeWithChosen(value).network
    }

    /// A network and its `is-chosen-helper` flag, read in one pass over the entries (a helper
    /// decodes one with every command; building a dictionary first cost most of its answer).
    static func decodeWithChosen(_ value: DBusValue) throws(WireError) -> (network: Network, chosen: Bool) {
        var ssid: [UInt8]?
        var bssid = "", strength = 0.0, secure = false, autoJoin = false, justJoin = false, chosen = false
        let isDict = forEachEntry(of: value) { key, v in
            switch key {
            case "ssid": ssid = v.byteArray
            case "bssid": bssid = v.string ?? ""
            case "signal-strength": strength = v.double ?? 0
            case "secure": secure = v.bool ?? false
            case "did-auto-join": autoJoin = v.bool ?? false
            case "did-just-join": justJoin = v.bool ?? false
            case "is-chosen-helper": chosen = v.bool ?? false
            default: break
            }
        }
        guard isDict else { throw WireError("a network must be a{sv}, got \(value.signature)") }
        guard let ssid else { throw WireError("a network needs 'ssid' as ay") }
        guard ssid.count <= maximumSSIDLength else {
            throw WireError("SSID of \(ssid.count) bytes: an SSID has at most \(maximumSSIDLength) bytes")
        }
        return (Network(ssid: SSID(bytes: ssid), bssid: bssid, signalStrength: strength, securityClass: secure ? .personal : .open,
                        isSecure: secure, didAutoJoin: autoJoin, didJustJoin: justJoin), chosen)
    }
}

/// Calls `body` with each key and (unwrapped) value of an `a{sv}`, in order (a key given twice:
/// the last one counts, as with `varDict`); false when `value` is not an `a{s…}`.
func forEachEntry(of value: DBusValue, _ body: (String, DBusValue) -> Void) -> Bool {
    guard case .dictionary(.string, _, let entries) = value.unwrapped else { return false }
    for e in entries { if case .string(let k) = e.key { body(k, e.value.unwrapped) } }
    return true
}

/// A command as sent to a helper's `HandleCommand`.
public struct WireCommand: Sendable, Equatable {
    public var type: CommandType
    public var interface: String
    public var network: Network?
    public var isChosenHelper: Bool
    public var networks: [Network]
    /// `deadline-ms`; nil (0 on the wire) for none.
    public var deadline: Duration?

    public init(type: CommandType, interface: String, network: Network?, isChosenHelper: Bool, networks: [Network], deadline: Duration?) {
        self.type = type
        self.interface = interface
        self.network = network
        self.isChosenHelper = isChosenHelper
        self.networks = networks
        self.deadline = deadline
    }

    public func encode() -> DBusValue {
        // In key order, as `.varDict` would sort them.
        var entries: [(String, DBusValue)] = []
        entries.reserveCapacity(5)
        entries.append(("deadline-ms", .uint32(deadline.map { UInt32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? 0)))
        entries.append(("interface", .string(interface)))
        if let network { entries.append(("network", WireNetwork.encode(network, isChosenHelper: isChosenHelper))) }
        if type == .filterScanList {
            entries.append(("networks", .array(element: .dictionary(key: .string, value: .variant), networks.map { WireNetwork.encode($0) })))
        }
        entries.append(("type", .string(type.rawValue)))
        return .varDict(sorted: entries)
    }

    public static func decode(_ value: DBusValue) throws(WireError) -> WireCommand {
        var typeValue: DBusValue?, networkValue: DBusValue?, networksValue: DBusValue?
        var interface = "", ms: UInt32 = 0
        let isDict = forEachEntry(of: value) { key, v in
            switch key {
            case "type": typeValue = v
            case "interface": interface = v.string ?? ""
            case "network": networkValue = v
            case "networks": networksValue = v
            case "deadline-ms": ms = v.uint32 ?? 0
            default: break
            }
        }
        guard isDict else { throw WireError("a command must be a{sv}") }
        guard let typeText = typeValue?.string else { throw WireError("a command needs 'type' as s") }
        guard let type = CommandType(rawValue: typeText) else { throw WireError("unknown command type '\(typeText)'") }
        var network: Network?
        var chosen = false
        if let networkValue { (network, chosen) = try WireNetwork.decodeWithChosen(networkValue) }
        var networks: [Network] = []
        for item in networksValue?.arrayItems ?? [] { networks.append(try WireNetwork.decode(item)) }
        return WireCommand(type: type, interface: interface, network: network, isChosenHelper: chosen,
                           networks: networks, deadline: ms == 0 ? nil : .milliseconds(Int64(ms)))
    }
}

/// A helper's response to `HandleCommand`.
public struct WireResponse: Sendable, Equatable {
    public var result: CommandResult
    public var confidence: Confidence?
    public var claims: [ScanClaim]
    /// Why the helper answered as it did, in its own words (e.g. why it sent no credentials):
    /// untrusted text, escaped and capped at ``maximumReasonLength`` characters when decoded.
    public var reason: String?

    public init(result: CommandResult, confidence: Confidence? = nil, claims: [ScanClaim] = [], reason: String? = nil) {
        self.result = result
        self.confidence = confidence
        self.claims = claims
        self.reason = reason
    }

    public func encode() -> DBusValue {
        // In key order, as `.varDict` would sort them (an answer is encoded for every command).
        var d: [(String, DBusValue)] = []
        if let confidence { d.append(("confidence", .string(confidence.rawValue))) }
        if !claims.isEmpty {
            d.append(("networks", .varDicts(claims.map { c in
                var n: [String: DBusValue] = ["ssid": .bytes(c.ssid.bytes), "confidence": .string(c.confidence.rawValue)]
                if let b = c.bssid { n["bssid"] = .string(b) }
                if let p = c.password { n["password"] = .string(p.secret) }
                if let name = c.displayName { n["display-name"] = .string(name) }
                return n
            })))
        }
        if let reason { d.append(("reason", .string(reason))) }
        d.append(("result", .string(result.rawValue)))
        return .varDict(sorted: d)
    }

    /// The longest password a claim may carry: a WPA passphrase has 8 to 63 characters, a raw
    /// PSK 64 hex digits.
    public static let maximumPasswordLength = 64
    /// The longest display name a claim may carry, in Unicode scalars.
    public static let maximumDisplayNameLength = 64
    /// A claim's display name: 64 Unicode scalars and 256 bytes (never grapheme clusters, which
    /// hold any number of scalars).
    public static let displayNameBound = TextBound(scalars: maximumDisplayNameLength)
    /// The Unicode scalars of a reason kept (escaped, then capped with "…").
    public static let maximumReasonLength = 300
    /// A reason longer than this many bytes is off-contract, not just long.
    public static let maximumReasonBytes = 4096

    /// Decodes a helper's answer to `command` and holds it to that command:
    /// claims only in answer to filter-scan-list, only for networks in the scan list that was
    /// sent, at most one per network sent.
    public static func decode(_ value: DBusValue, answering command: WireCommand) throws(WireError) -> WireResponse {
        let response = try decode(value)
        guard !response.claims.isEmpty else { return response }
        guard command.type == .filterScanList else {
            throw WireError("claimed networks are only allowed in answer to filter-scan-list, not \(command.type.rawValue)")
        }
        guard response.claims.count <= command.networks.count else {
            throw WireError("claimed \(response.claims.count) networks but the scan list sent has \(command.networks.count)")
        }
        let sent = Set(command.networks.map(\.ssid))
        for claim in response.claims where !sent.contains(claim.ssid) {
            throw WireError("claimed a network that is not in the scan list sent (SSID of \(claim.ssid.bytes.count) bytes)")
        }
        return response
    }

    /// Decodes a helper's response; anything off-contract throws with the reason (the daemon
    /// then counts the answer as failure and reports a helper protocol error).
    public static func decode(_ value: DBusValue) throws(WireError) -> WireResponse {
        // One pass over the entries, without a dictionary (the daemon decodes every answer).
        var resultValue: DBusValue?, confidenceValue: DBusValue?, networksValue: DBusValue?, reasonValue: DBusValue?
        let isDict = forEachEntry(of: value) { key, v in
            switch key {
            case "result": resultValue = v
            case "confidence": confidenceValue = v
            case "networks": networksValue = v
            case "reason": reasonValue = v
            default: break
            }
        }
        guard isDict else { throw WireError("the response must be a{sv}, got \(value.signature)") }
        guard let resultText = resultValue?.string else { throw WireError("the response needs 'result' as s") }
        guard let result = CommandResult(rawValue: resultText) else {
            throw WireError("unknown result '\(UntrustedText.forLog(resultText, limit: 40))' (expected one of \(CommandResult.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var confidence: Confidence?
        if let c = confidenceValue {
            guard let text = c.string, let parsed = Confidence(rawValue: text) else {
                throw WireError("unknown confidence \(UntrustedText.forLog(c.description, limit: 40)) (expected none, low or high)")
            }
            confidence = parsed
        }
        var claims: [ScanClaim] = []
        if let list = networksValue {
            guard let items = list.arrayItems else { throw WireError("'networks' must be aa{sv}") }
            for item in items {
                guard let n = item.varDict, let ssid = n["ssid"]?.byteArray else {
                    throw WireError("each claimed network needs 'ssid' as ay")
                }
                guard ssid.count <= WireNetwork.maximumSSIDLength else {
                    throw WireError("claimed SSID of \(ssid.count) bytes: an SSID has at most \(WireNetwork.maximumSSIDLength) bytes")
                }
                let confText = n["confidence"]?.string ?? "low"
                guard let conf = Confidence(rawValue: confText) else {
                    throw WireError("unknown confidence '\(UntrustedText.forLog(confText, limit: 40))' for a claimed network")
                }
                var password: Password?
                if let p = n["password"] {
                    guard let text = p.string, !text.isEmpty, text.utf8.count <= maximumPasswordLength else {
                        throw WireError("a claimed network's 'password' must be a non-empty s of at most \(maximumPasswordLength) bytes")
                    }
                    password = Password(text)
                }
                var displayName: String?
                if let d = n["display-name"] {
                    guard let text = d.string, !text.isEmpty, displayNameBound.admits(text), UntrustedText.isPlain(text) else {
                        throw WireError("a claimed network's 'display-name' must be a non-empty s of \(displayNameBound), without control "
                                        + "or format characters or a long run of combining marks")
                    }
                    displayName = text
                }
                claims.append(ScanClaim(ssid: SSID(bytes: ssid), bssid: n["bssid"]?.string, confidence: conf, password: password,
                                        displayName: displayName))
            }
        }
        var reason: String?
        if let r = reasonValue {
            guard let text = r.string, text.utf8.count <= maximumReasonBytes else {
                throw WireError("'reason' must be an s of at most \(maximumReasonBytes) bytes")
            }
            if !text.isEmpty { reason = UntrustedText.forLog(text, limit: maximumReasonLength) }
        }
        return WireResponse(result: result, confidence: confidence, claims: claims, reason: reason)
    }
}
