// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity
@_spi(Fuzzing) import DBus
import Foundation
import HotspotCore
@_spi(Fuzzing) import HotspotDaemon
@_spi(Fuzzing) import NetworkManager
import HotspotProtocol
import Synchronization

/// Everything the daemon parses from outside, as fuzz targets: each takes arbitrary bytes and
/// must return (never crash, never hang) whatever they are.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A whole D-Bus message as received (libdbus validation, then this project's decoding).
    case dbusMessage = "dbus-message"
    /// A helper's HandleCommand response (and the command decoder HotspotHelperKit uses).
    case helperResponse = "helper-response"
    /// NetworkManager property values, managed objects and connection settings.
    case networkManager = "networkmanager"
    /// WISPr documents in portal pages.
    case wispr
    /// RFC 8908 captive-portal API documents.
    case capport
    /// The daemon's configuration keyfile.
    case keyfile
    /// Hotspot profiles (keyfiles in the profiles directory).
    case profile
    /// HTTP answers to connectivity probes.
    case probeResponse = "probe-response"
    /// DHCPACK replies to the daemon's DHCPINFORM (RFC 8910 option 114).
    case dhcp
    /// RegisterHelper's options from a local user, who may be hostile: what is accepted is
    /// bounded and free of control characters; nobody registers a built-in identifier.
    case registerHelper = "register-helper"
    /// Text from networks and helpers made safe for logs and properties (UntrustedText).
    case untrustedText = "untrusted-text"
    /// Portal sign-in pages through libxml2's HTML parser and the form choice, then a whole sign-in
    /// through fuzzed pages: chains of GET and POST forms, redirects, meta refresh (FormChainFuzz).
    case htmlForm = "html-form"
    /// What a command channel's peer sends: the authentication exchange and the framing of
    /// messages (PeerLinkReader, and libdbus on each frame), in pieces of any size (PeerLinkFuzz).
    case peerLink = "peer-link"
    /// Router Advertisements' captive-portal option as rtnetlink delivers it (RFC 8910 §2.3).
    case routerAdvertisement = "router-advertisement"
    /// Sign-in addresses before they are published or opened (SignInURL): whatever passes is
    /// http or https with a host, and nothing that can hide text.
    case signInURL = "sign-in-url"
    /// Display names against SSIDs in range (LookAlikeNames' skeleton) and names made free of
    /// markup for NetworkManager (MarkupFreeName).
    case lookAlike = "look-alike"

    /// How many fuzzed RegisterHelper calls were accepted (their invariants checked), so a test can
    /// tell the target reaches past the first refusal.
    public static let acceptedRegistrations = Atomic<Int>(0)

    /// The transaction id the fuzzed replies answer.
    static let dhcpXID: UInt32 = 0x4854_4854
    static let helperKeys = ["result", "confidence", "networks", "ssid", "bssid", "password", "type", "interface", "network",
                             "deadline-ms", "signal-strength", "secure", "did-auto-join", "did-just-join", "is-chosen-helper",
                             "success", "failure", "ui-required", "high", "low", "none", "evaluate", "filter-scan-list", "reason"]
    static let registrationKeys = ["DisplayName", "Identifier", "Purpose", "Commands", "builtin.profiles", "evaluate", "maintain",
                                   "com.example.cafe", "Cafe"]
    static let networkManagerKeys = ["Ssid", "HwAddress", "Strength", "Flags", "WpaFlags", "RsnFlags", "Frequency", "Mode", "LastSeen",
                                     "Interface", "State", "DeviceType", "ActiveAccessPoint", "ActiveConnection", "AccessPoints",
                                     "AddressData", "NameserverData", "Nameservers", "Gateway", "address", "prefix",
                                     "connection", "802-11-wireless", "802-11-wireless-security", "ssid", "autoconnect", "key-mgmt", "uuid", "id",
                                     "org.freedesktop.NetworkManager.Device", "org.freedesktop.NetworkManager.AccessPoint",
                                     "org.freedesktop.NetworkManager.Device.Wireless"]

    static let tightLimits = DecodingLimits(maximumByteArray: 64, maximumArrayItems: 8, maximumString: 64, maximumValues: 64, maximumDepth: 4)
    static let scanCommand = WireCommand(type: .filterScanList, interface: "wlan0", network: nil, isChosenHelper: false,
                                         networks: [Network(ssid: SSID("CityFree")), Network(ssid: SSID("Cafe"))], deadline: nil)

    static func checkWithinTightLimits(_ v: DBusValue, depth: Int, count: inout Int) {
        count += 1
        precondition(depth <= tightLimits.maximumDepth, "decoded past maximumDepth")
        switch v {
        case .string(let s): precondition(s.utf8.count <= tightLimits.maximumString, "decoded a string past maximumString")
        case .byteArray(let b): precondition(b.count <= tightLimits.maximumByteArray, "decoded an ay past maximumByteArray")
        case .array(_, let items):
            precondition(items.count <= tightLimits.maximumArrayItems, "decoded an array past maximumArrayItems")
            for i in items { checkWithinTightLimits(i, depth: depth + 1, count: &count) }
        case .dictionary(_, _, let entries):
            precondition(entries.count <= tightLimits.maximumArrayItems, "decoded a dictionary past maximumArrayItems")
            for e in entries {
                checkWithinTightLimits(e.key, depth: depth + 2, count: &count)
                checkWithinTightLimits(e.value, depth: depth + 2, count: &count)
            }
        case .structure(let fields): for f in fields { checkWithinTightLimits(f, depth: depth + 1, count: &count) }
        case .variant(let inner): checkWithinTightLimits(inner, depth: depth + 1, count: &count)
        default: break
        }
    }

    /// Runs the target on `bytes`.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .dbusMessage:
            if let m = DBusFuzzEntry.decodeMessage(bytes) {
                for v in m.body { _ = v.signature; try? v.validate() }
            }
            // The decoding limits a hostile peer meets: what tight limits let through stays within them, and
            // the standard limits accept it too.
            if let m = DBusFuzzEntry.decodeMessage(bytes, limits: Self.tightLimits) {
                var count = 0
                for v in m.body { Self.checkWithinTightLimits(v, depth: 0, count: &count) }
                precondition(count <= Self.tightLimits.maximumValues, "decoded \(count) values past maximumValues")
                precondition(DBusFuzzEntry.decodeMessage(bytes) != nil, "the standard limits refused what tight limits accepted")
            }
        case .helperResponse:
            var values = FuzzValues(FuzzInput(bytes), keys: Self.helperKeys)
            let v = values.dictionaryLike()
            _ = try? WireResponse.decode(v)
            if let held = try? WireResponse.decode(v, answering: Self.scanCommand) {
                let sent = Set(Self.scanCommand.networks.map(\.ssid))
                precondition(held.claims.allSatisfy { sent.contains($0.ssid) }, "a claim outside the scan list sent got through")
                precondition(held.claims.allSatisfy { ($0.password?.secret.utf8.count ?? 0) <= WireResponse.maximumPasswordLength })
            }
            if let reason = (try? WireResponse.decode(v))?.reason {
                Self.checkSafe(reason, limit: WireResponse.maximumReasonLength, what: "a helper's reason")
            }
            _ = try? WireCommand.decode(v)
            _ = try? WireNetwork.decode(v)
        case .registerHelper:
            var input = FuzzInput(bytes)
            let uid: UInt32? = input.pick([0, 1000, 65534, nil])
            // Each option present or not, mostly of its own type (so calls get past the first
            // refusal and the bounds on what is accepted are checked), sometimes of any type.
            var options: [String: DBusValue] = [:]
            for key in ["DisplayName", "Identifier", "Purpose", "Commands"] where input.int(0...3) > 0 {
                switch input.int(0...7) {
                case 0:
                    var values = FuzzValues(input, keys: Self.registrationKeys)
                    options[key] = values.dictionaryLike()
                    input = values.input
                case 1 where key == "Identifier": options[key] = .string(input.pick(["builtin.profiles", "builtin.x", "com.example.cafe"]))
                case 2 where key == "Commands": options[key] = .strings((0..<input.int(0...4)).map { _ in input.pick(["evaluate", "maintain", "bogus", input.string(max: 12)]) })
                default: options[key] = .string(input.string(max: input.pick([16, 80, 300])))
                }
            }
            if let r = RegistrationFuzzEntry.accepted(options, uid: uid) {
                Self.acceptedRegistrations.add(1, ordering: .relaxed)
                // Bounds in Unicode scalars and bytes: a Character can hold any number of scalars.
                precondition(!r.displayName.isEmpty && r.displayName.unicodeScalars.count <= RegistrationFuzzEntry.maximumDisplayNameLength
                             && r.displayName.utf8.count <= 4 * RegistrationFuzzEntry.maximumDisplayNameLength, "DisplayName past its bound")
                precondition(NameFolding.key(r.displayName) != NameFolding.key("Known Networks"), "a built-in helper's name was registered")
                precondition(r.identifier.utf8.count <= RegistrationFuzzEntry.maximumIdentifierLength, "Identifier past its bound")
                precondition(!r.identifier.hasPrefix("builtin."), "a built-in identifier was registered over the bus")
                precondition(uid == 0 || r.purpose != nil, "a non-root helper registered without a purpose")
                for text in [r.displayName, r.identifier, r.purpose ?? ""] {
                    precondition(!text.unicodeScalars.contains(where: UntrustedText.needsEscape), "control characters accepted in RegisterHelper")
                }
                precondition(UntrustedText.isPlain(r.displayName) && UntrustedText.isPlain(r.purpose ?? ""), "a combining stack accepted in RegisterHelper")
                precondition((r.purpose?.unicodeScalars.count ?? 0) <= RegistrationFuzzEntry.maximumPurposeLength
                             && (r.purpose?.utf8.count ?? 0) <= 4 * RegistrationFuzzEntry.maximumPurposeLength, "Purpose past its bound")
            }
        case .untrustedText:
            var input = FuzzInput(bytes)
            let limit = input.int(0...300)
            let text = String(decoding: input.rest(), as: UTF8.self)
            Self.checkSafe(UntrustedText.forLog(text, limit: limit), limit: limit, what: "UntrustedText.forLog")
        case .htmlForm:
            // The work budget per input: a reading that runs out of it did more than linear work
            // (the reader gives up, so the daemon is safe, but the fuzz run fails on it).
            let reading = HTMLFormReader.read(bytes)
            precondition(!reading.exhausted && reading.work <= reading.budget,
                         "the form reader used \(reading.work) node visits on \(bytes.count) bytes (budget \(reading.budget)): more than linear work")
            for form in reading.forms {
                _ = form.isClickThrough
                for c in form.controls { _ = c.name }
            }
            FormChainFuzz.run(bytes)
        case .peerLink:
            PeerLinkFuzz.run(bytes)
        case .routerAdvertisement:
            for heard in RouterAdvertisementOption.parse(bytes) { _ = "\(heard)" }
        case .signInURL:
            let url = String(decoding: bytes, as: UTF8.self)
            if SignInURL.check(url) == nil {
                let lower = url.lowercased()
                precondition(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "SignInURL let another scheme through")
                precondition(!url.unicodeScalars.contains(where: { $0.properties.isWhitespace || UntrustedText.needsEscape($0) }),
                             "SignInURL let white space or a control character through")
                precondition(url.utf8.count <= SignInURL.maximumBytes, "SignInURL let a long address through")
            } else {
                _ = "\(SignInURL.check(url)!)"
            }
        case .lookAlike:
            var input = FuzzInput(bytes)
            let name = input.string(max: 64)
            let ssids = (0..<input.int(0...4)).map { _ in SSID(bytes: Array(input.string(max: 32).utf8.prefix(32))) }
            _ = LookAlikeNames.impersonated(by: name, ownSSID: ssids.first ?? SSID("x"), others: ssids)
            let stripped = MarkupFreeName.of(name)
            precondition(!stripped.contains("<") && !stripped.contains(">") && !stripped.contains("&"), "MarkupFreeName left markup")
        case .networkManager:
            var values = FuzzValues(FuzzInput(bytes), keys: Self.networkManagerKeys)
            NetworkManagerFuzzEntry.decode(values.dictionaryLike())
        case .wispr:
            if let message = WISPrParser.parse(String(decoding: bytes, as: UTF8.self)) { _ = "\(message)" }
        case .capport:
            _ = CaptivePortalAPIDocument.parse(Data(bytes))
        case .keyfile:
            _ = try? DaemonConfiguration.parse(bytes, path: "fuzz.conf")
        case .profile:
            // What the loader does once it has read a file (root's, mode 600), without writing one.
            let (profiles, problems, warnings) = ProfileLoader.load(bytes: bytes, mode: 0o600, owner: 0, path: "fuzz.conf", requireRootOwner: false)
            _ = ProfileIndex(profiles).conflicts
            _ = problems.count + warnings.count
        case .dhcp:
            if case .success(let answer) = DHCPInform.parseReply(bytes, xid: Self.dhcpXID) { _ = "\(answer)" }
        case .probeResponse:
            var input = FuzzInput(bytes)
            let status = input.pick([200, 204, 301, 302, 303, 307, 308, 404, 500, 511, input.int(0...999)])
            let headers = (0..<input.int(0...6)).map { _ in
                HTTPField(input.pick(["Location", "Content-Type", "X-NetworkManager-Status", "Content-Length", input.string(max: 12)]),
                          input.string(max: 80))
            }
            let answer = HTTPAnswer(status: status, headers: headers, body: Data(input.rest()), bodyTruncated: false,
                                    url: "http://probe.example/check")
            for probe in ConnectivityProbe.defaultSet {
                _ = ProbeClassifier.classify(probe, .success(answer), elapsed: .milliseconds(1))
            }
        }
    }

    /// `text` came out of UntrustedText: one line, nothing that can hide or reorder text, at most
    /// `limit` characters kept (an escape counts as one) plus the "…(+N more)" note.
    static func checkSafe(_ text: String, limit: Int, what: String) {
        precondition(!text.unicodeScalars.contains(where: UntrustedText.needsEscape), "\(what) let a control character through")
        precondition(UntrustedText.longestCombiningRun(text) <= UntrustedText.maximumCombiningRun, "\(what) let a long run of combining marks through")
        let kept = text.firstRange(of: "…(+").map { text[..<$0.lowerBound] } ?? text[...]
        // Each kept character is at most one escape (`\u{10FFFF}` is 10 scalars).
        precondition(kept.unicodeScalars.count <= limit * 10, "\(what) kept more than \(limit) characters")
    }

    /// Seed inputs: valid examples the mutations start from.
    public var seeds: [[UInt8]] {
        switch self {
        case .dbusMessage:
            let samples: [[DBusValue]] = [
                [.string("hello"), .uint32(7)],
                [.varDict(["result": "success", "confidence": "high"])],
                [.varDicts([["ssid": .bytes(Array("CoffeeShop".utf8)), "bssid": "0A:00:00:00:00:01"]])],
                [.structure([.objectPath("/a"), .signature("a{sv}"), .variant(.double(0.5))])],
            ]
            return samples.compactMap { DBusFuzzEntry.encodeMessage($0) }
        case .helperResponse, .networkManager:
            return [Array("\u{1}\u{5}\u{0}\u{2}success\u{1}high".utf8), [6, 3, 1, 0, 9, 2, 4, 1, 1], [UInt8](repeating: 3, count: 64)]
        case .wispr:
            return [Array("""
            <html><!--<?xml version="1.0" encoding="UTF-8"?>
            <WISPAccessGatewayParam xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
            <Redirect><AccessProcedure>1.0</AccessProcedure><AccessLocation>CDATA</AccessLocation>
            <LocationName>Cafe</LocationName><LoginURL>https://portal.example/login?a=1&amp;b=2</LoginURL>
            <AbortLoginURL>https://portal.example/abort</AbortLoginURL><MessageType>100</MessageType><ResponseCode>0</ResponseCode>
            </Redirect></WISPAccessGatewayParam>--></html>
            """.utf8), Array("<WISPAccessGatewayParam><AuthenticationReply><MessageType>120</MessageType><ResponseCode>50</ResponseCode><LogoffURL>http://p/logoff</LogoffURL></AuthenticationReply></WISPAccessGatewayParam>".utf8)]
        case .capport:
            return [Array(#"{"captive": true, "user-portal-url": "https://portal.example/", "seconds-remaining": 300, "can-extend-session": true}"#.utf8),
                    Array(#"{"captive": false, "bytes-remaining": 1000000, "venue-info-url": "https://venue.example/"}"#.utf8)]
        case .keyfile:
            return [Array("[daemon]\nstate-dir=/var/lib/hotspot-helper\ncommand-timeout=45\nmaintain-interval=300\nfilter-interval=0.5\n".utf8),
                    Array("# comment\n[other]\nkey=value\n".utf8)]
        case .profile:
            return [Array("""
            [CityFree]
            ssid=CityFree
            display-name=City Free Wi-Fi
            sign-in=click-through
            confidence=high

            [Hotel]
            ssid-prefix=Hotel-
            sign-in=form
            form-field-room=101
            password=correct horse

            [Roaming]
            ssid=RoamNet
            sign-in=wispr
            username=alice
            user-password=wonderland

            [Airport]
            ssid=AirportFree
            sign-in=capport
            capport-url=https://capport.example/api
            """.utf8)]
        case .dhcp:
            // A DHCPACK with the server identifier and option 114, and one without 114.
            func reply(_ options: [UInt8]) -> [UInt8] {
                var p = [UInt8](repeating: 0, count: 236)
                p[0] = 2; p[1] = 1; p[2] = 6
                withUnsafeBytes(of: Self.dhcpXID.bigEndian) { p.replaceSubrange(4..<8, with: $0) }
                return p + [99, 130, 83, 99] + [53, 1, 5, 54, 4, 10, 8, 0, 1] + options + [255]
            }
            let uri = Array("https://capport.lab/api/captive".utf8)
            return [reply([114, UInt8(uri.count)] + uri), reply([])]
        case .registerHelper, .untrustedText:
            return [Array("\u{1}\u{5}\u{0}\u{2}Cafe\u{1}Purpose".utf8), [2, 3, 1, 0, 9, 2, 4, 1, 1], Array("Free\u{202E}iFW\nline two\u{1B}[2J".utf8),
                    Array(("Known\u{200B}Net\u{061C}works e" + String(repeating: "\u{301}", count: 40)).utf8)]
        case .htmlForm:
            return [Array("""
            <html><body><script>document.write('<input name="trap">')</script><!-- <form action="/x"> -->
            <form action="/login?a=1&amp;b=2" method="post"><input type="hidden" name="token" value="a&lt;b">
            <input type="checkbox" name="terms" required><input type="checkbox" name="news">
            <select name="plan"><option>free</option><option selected>day</option></select>
            <textarea name="note">hi</textarea><input name="off" disabled><button name="go" value="1">Go</button></form>
            <template><form action="/t"></form></template></body></html>
            """.utf8),
                    // The shapes that cost quadratic work: one label around many inputs, many
                    // checkboxes before many elements without text, checkboxes nested in spans.
                    Array(("<form method=post><label>I accept " + String(repeating: "<input>", count: 600) + "</label></form>").utf8),
                    Array(("<form>" + String(repeating: "<input type=checkbox>", count: 300) + String(repeating: "<span></span>", count: 300)
                           + String(repeating: "<span><input type=checkbox>", count: 200) + "</form>").utf8),
            // A chain: mode 1 (form), not online, three pages: a GET terms form, a POST form with
            // the profile's fields, a meta refresh.
            [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 90]
                + Array("<form method=get action=/terms?x=1><input type=hidden name=t value=1><input type=submit name=c value=Go></form>".utf8)
                + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 110]
                + Array("<form method=post action=https://gw.test/login><input name=user><input type=password name=pass><button name=go value=1>".utf8)
                + Array("<meta http-equiv=refresh content='0;url=/done'>".utf8)]
        case .peerLink:
            return PeerLinkFuzz.seeds
        case .routerAdvertisement:
            // One RTM_NEWNDUSEROPT (68) message: nlmsghdr, nduseroptmsg (AF_INET6, RA), option 37.
            let uri = Array("https://capport.lab/api".utf8)
            let option = [37, UInt8((2 + uri.count + 7) / 8)] + uri + [UInt8](repeating: 0, count: (8 - (2 + uri.count) % 8) % 8)
            var user: [UInt8] = [10, 0, UInt8(option.count & 0xFF), UInt8(option.count >> 8), 3, 0, 0, 0, 134, 0, 0, 0, 0, 0, 0, 0]
            user += option
            let length = 16 + user.count
            let header: [UInt8] = [UInt8(length & 0xFF), UInt8(length >> 8), 0, 0, 68, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            return [header + user]
        case .signInURL:
            return ["http://portal.example/login?a=1#x", "HTTPS://[fe80::1]:8443/", "smb://198.51.100.7/hotspot-login",
                    "http://bank.example@198.51.100.7/", "http://café.example/", "file:///etc/passwd"].map { Array($0.utf8) }
        case .lookAlike:
            return [Array("\u{8}CoffeeShoр\u{3}\u{a}CoffeeShop\u{6}Office".utf8), Array("\u{10}<span foreground='red'>Free</span> &amp;\u{2}\u{4}Free".utf8)]
        case .probeResponse:
            return [[0, 0, 0, 1, 0] + Array("Success".utf8), [0, 0, 0, 4, 1, 0, 0, 0, 0, 20] + Array("http://portal.example/".utf8)]
        }
    }
}
