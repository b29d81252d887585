// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import Testing

/// What a hostile hotspot or helper can put in a sign-in address, a display name or a profile's
/// name, decided without I/O (SignInURL, UntrustedText, LookAlikeNames, MarkupFreeName); a bounded
/// `Reason` is DaemonTests' `PublishedWordsTests`.
@Suite struct HostileNamesAndAddressesTests {
    @Test(arguments: ["smb://198.51.100.7/hotspot-login", "file:///etc/passwd", "ssh://attacker.example/", "javascript:alert(1)",
                      "data:text/html,<script>x</script>", "ftp://portal.example/", "mailto:a@b", "hotspot-login", "//portal.example/",
                      "http:portal.example/login", "http:///login", "http://bank.example@198.51.100.7/login",
                      "http://portal.example:0/", "http://portal.example:65536/", "http://portal.example:80a/",
                      "http://portal .example/", "http://portal.example/\u{202E}nigol", "http://portal.example/\nSet-Cookie: x",
                      "http://[::1/", "http://-portal.example/", "http://portal..example/", "http://portal\\@evil.example/", ""])
    func aSignInAddressThatIsNotHTTPWithAHostIsRefused(_ url: String) {
        #expect(SignInURL.check(url) != nil, "\(url) passed")
        #expect(!SignInURL.isAllowed(url))
    }

    @Test(arguments: ["http://portal.example/login?ssid=x&ap=1#top", "HTTPS://Portal.Example:8443/", "https://10.0.0.1/",
                      "http://[fe80::1]:8080/a", "http://xn--caf-dma.example/", "http://café.example/", "http://portal.example.",
                      "https://portal.example?x=1", "http://portal_gw.local/"])
    func httpAndHTTPSAddressesWithAHostPass(_ url: String) {
        #expect(SignInURL.check(url) == nil, "\(url): \(SignInURL.check(url).map { "\($0)" } ?? "")")
    }

    @Test func aRefusalSaysWhyInWords() {
        #expect("\(SignInURL.check("smb://198.51.100.7/x")!)".contains("only http and https"))
        #expect("\(SignInURL.check("http://bank@evil/")!)".contains("user name"))
        #expect(SignInURL.check(String(repeating: "a", count: 3000)).map { "\($0)" }?.contains("at most 2048") == true)
    }

    @Test func cappingEscapedTextNeverLeavesHalfAnEscape() {
        for limit in 1...40 {
            for text in ["ab\\\\cd\\u{202E}efgh\\u{10FFFF}ij\\nkl", String(repeating: "\\u{202E}", count: 10), String(repeating: "\\\\", count: 30)] {
                let cut = UntrustedText.capped(escaped: text, limit: limit)
                #expect(cut.unicodeScalars.count <= max(limit, 1))
                // Whatever is kept reads as escapes and text: no `\` starting nothing, no `\u{` left open.
                let body = cut.hasSuffix("…") ? String(cut.dropLast()) : cut
                let scalars = Array(body.unicodeScalars)
                var k = 0
                while k < scalars.count {
                    if scalars[k] == "\\" {
                        #expect(k + 1 < scalars.count, "\(cut) ends in a lone backslash")
                        if k + 1 < scalars.count, scalars[k + 1] == "u" {
                            #expect(scalars[(k + 1)...].contains("}"), "\(cut) leaves \\u{ open")
                        }
                        k += 2
                    } else {
                        k += 1
                    }
                }
            }
        }
    }

    @Test func aDisplayNameReadingAsAnotherSSIDInRangeIsFound() {
        let office = SSID("Office2"), coffee = SSID("CoffeeShop"), library = SSID("Library")
        let inRange = [office, coffee, library]
        #expect(LookAlikeNames.impersonated(by: "CoffeeShop", ownSSID: office, others: inRange) == coffee)
        #expect(LookAlikeNames.impersonated(by: "CoffeeSho\u{440}", ownSSID: office, others: inRange) == coffee, "Cyrillic er")
        #expect(LookAlikeNames.impersonated(by: "C\u{43E}ff\u{435}\u{435}Shop", ownSSID: office, others: inRange) == coffee, "Cyrillic o, e")
        #expect(LookAlikeNames.impersonated(by: "ＣｏｆｆｅｅＳｈｏｐ", ownSSID: office, others: inRange) == coffee, "fullwidth")
        #expect(LookAlikeNames.impersonated(by: "coffee shop", ownSSID: office, others: inRange) == coffee, "case and space")
        #expect(LookAlikeNames.impersonated(by: "Libr\u{3B1}ry", ownSSID: office, others: inRange) == library, "Greek alpha")
        #expect(LookAlikeNames.impersonated(by: "L1brary", ownSSID: office, others: inRange) == library, "digit one")
        #expect(LookAlikeNames.impersonated(by: "Office Net", ownSSID: office, others: inRange) == nil)
        #expect(LookAlikeNames.impersonated(by: "Office2", ownSSID: office, others: inRange) == nil, "its own SSID")
        // A network named after itself while a look-alike of it is in range misleads no more than its SSID.
        #expect(LookAlikeNames.impersonated(by: "CoffeeShop", ownSSID: coffee, others: [coffee, SSID("CoffeeSho\u{440}")]) == nil)
        #expect(LookAlikeNames.impersonated(by: "Coffee", ownSSID: office, others: inRange) == nil, "a prefix is another name")
    }

    @Test func screeningReplacesAnImpersonatingDisplayNameWithTheSSID() {
        let networks = ["Office2", "CoffeeShop"].map { Network(ssid: SSID($0), bssid: "0A:00:00:00:00:0\($0.count)") }
        let claims = [ScanClaim(ssid: SSID("Office2"), confidence: .high, displayName: "CoffeeSho\u{440}"),
                      ScanClaim(ssid: SSID("CoffeeShop"), confidence: .high, displayName: "Coffee & Co")]
        let (screened, refused) = LookAlikeNames.screen(claims, inRange: networks)
        #expect(screened.map(\.displayName) == ["Office2", "Coffee & Co"])
        #expect(refused.count == 1 && refused[0].readsAs == SSID("CoffeeShop"))
        #expect("\(refused[0])".contains("reads as CoffeeShop"))
    }

    @Test func namesForNetworkManagerCarryNoMarkup() {
        #expect(MarkupFreeName.of("<span foreground=\"red\">Free</span> Wi-Fi") == "Free Wi-Fi")
        #expect(MarkupFreeName.of("<b>Office</b>") == "Office")
        #expect(MarkupFreeName.of("Barnes & Noble") == "Barnes \u{FF06} Noble")
        #expect(MarkupFreeName.of("a &lt;b&gt;") == "a \u{FF06}lt;b\u{FF06}gt;")
        #expect(MarkupFreeName.of("x > y") == "x y")
        #expect(MarkupFreeName.of("Plain Name") == "Plain Name")
        #expect(MarkupFreeName.hasMarkup("<i>x</i>") && !MarkupFreeName.hasMarkup("x"))
    }
}
