// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol
import Testing

/// A helper's answer is held to the command it answers.
@Suite struct HostileHelperAnswerTests {
    func scan(_ ssids: [String]) -> WireCommand {
        WireCommand(type: .filterScanList, interface: "wlan0", network: nil, isChosenHelper: false,
                    networks: ssids.map { Network(ssid: SSID($0), bssid: "", signalStrength: 0.5, securityClass: .open, isSecure: false) },
                    deadline: .seconds(45))
    }

    func claims(_ entries: [[String: DBusValue]]) -> DBusValue {
        .varDict(["result": .string("success"), "networks": .varDicts(entries)])
    }

    @Test func claimForANetworkThatWasNotInTheScanListIsRefused() {
        let answer = claims([["ssid": .bytes(Array("BankWiFi".utf8)), "password": .string("phish1234")]])
        #expect(throws: WireError.self) { try WireResponse.decode(answer, answering: scan(["CityFree"])) }
        #expect((try? WireResponse.decode(claims([["ssid": .bytes(Array("CityFree".utf8))]]), answering: scan(["CityFree"])))?.claims.count == 1)
    }

    @Test func claimsInAnswerToAnotherCommandAreRefused() {
        var evaluate = scan(["CityFree"])
        evaluate.type = .evaluate
        #expect(throws: WireError.self) { try WireResponse.decode(claims([["ssid": .bytes(Array("CityFree".utf8))]]), answering: evaluate) }
    }

    @Test func moreClaimsThanNetworksSentAreRefused() {
        let one: [String: DBusValue] = ["ssid": .bytes(Array("CityFree".utf8))]
        #expect(throws: WireError.self) { try WireResponse.decode(claims(Array(repeating: one, count: 1000)), answering: scan(["CityFree"])) }
    }

    @Test func overlongPasswordAndControlCharactersInDisplayNameAreRefused() {
        let long = claims([["ssid": .bytes(Array("CityFree".utf8)), "password": .string(String(repeating: "p", count: 65))]])
        #expect(throws: WireError.self) { try WireResponse.decode(long, answering: scan(["CityFree"])) }
        let forged = claims([["ssid": .bytes(Array("CityFree".utf8)), "display-name": .string("Free\u{202E}iFW")]])
        #expect(throws: WireError.self) { try WireResponse.decode(forged, answering: scan(["CityFree"])) }
    }

    /// A reason is shown to people (`hotspotctl status`) and logged: a helper cannot forge a log
    /// line or a terminal escape with it, nor fill memory.
    @Test func reasonWithControlCharactersIsEscapedAndAHugeOneIsRefused() throws {
        var auth = scan([])
        auth.type = .authenticate
        func forged(_ v: DBusValue, _ c: WireCommand) throws -> WireResponse { try WireResponse.decode(v, answering: c) }
        let r = try forged(.varDict(["result": .string("ui-required"), "reason": .string("fine\nJan 01 hotspot-helperd: signed in\u{1B}[2J")]), auth)
        #expect(r.reason == "fine\\nJan 01 hotspot-helperd: signed in\\u{1B}[2J")
        let long = try forged(.varDict(["result": .string("failure"), "reason": .string(String(repeating: "x", count: 1000))]), auth)
        #expect(long.reason == String(repeating: "x", count: WireResponse.maximumReasonLength) + "…(+700 more)")
        #expect(throws: WireError.self) {
            try forged(.varDict(["result": .string("failure"), "reason": .string(String(repeating: "x", count: WireResponse.maximumReasonBytes + 1))]), auth)
        }
        #expect(throws: WireError.self) { try forged(.varDict(["result": .string("failure"), "reason": .uint32(7)]), auth) }
        #expect(try forged(.varDict(["result": .string("success"), "reason": .string("")]), auth).reason == nil)
    }
}
