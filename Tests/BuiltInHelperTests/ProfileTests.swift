// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Foundation
import HotspotCore
import HotspotTesting
import Testing

@Suite struct ProfileTests {
    @Test func validProfilesOfEveryMethodLoad() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        try d.write("city.conf", """
            # City networks
            [CityFree]
            ssid=CityFree
            display-name=City Free Wi-Fi
            sign-in=click-through

            [Office]
            ssid=Office
            password=correct horse battery
            confidence=low

            [Hotel]
            ssid-prefix=Hotel-
            sign-in=form
            form-field-room=101
            form-field-surname=Smith
            login-hosts=portal.hotel.example

            [Roam]
            ssid=RoamNet
            sign-in=wispr
            username=alice
            user-password=wonderland
            login-hosts=wispr.roam.example;*.roam.example.org

            [Airport]
            ssid=AirportFree
            sign-in=capport
            capport-url=https://capport.test/api
            """)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.problems.isEmpty, "\(set.problems)")
        #expect(set.index.count == 5)
        let city = try #require(set.index.profile(for: SSID("CityFree")))
        #expect(city.displayName == "City Free Wi-Fi")
        #expect(city.signIn == .clickThrough)
        #expect(city.line == 2)
        let office = try #require(set.index.profile(for: SSID("Office")))
        #expect(office.password?.secret == "correct horse battery")
        #expect(office.confidence == .low)
        #expect(office.displayName == "Office", "the group name when display-name is absent")
        #expect(set.index.profile(for: SSID("Hotel-Lobby"))?.name == "Hotel")
        guard case .form(nil, let fields, let formHosts)? = set.index.profile(for: SSID("Hotel-2F"))?.signIn else { Issue.record("form"); return }
        #expect(fields.map(\.name).sorted() == ["room", "surname"])
        #expect(formHosts?.entries == ["portal.hotel.example"])
        guard case .wispr(let c, let wisprHosts)? = set.index.profile(for: SSID("RoamNet"))?.signIn else { Issue.record("wispr"); return }
        #expect(c.username == "alice" && c.password == "wonderland")
        #expect(wisprHosts?.entries == ["wispr.roam.example", "*.roam.example.org"])
        #expect(set.index.profile(for: SSID("AirportFree"))?.signIn == .capport(apiURL: "https://capport.test/api"))
        #expect(set.index.profile(for: SSID("Hotel")) == nil, "a prefix matches only longer or equal SSIDs starting with it")
        #expect(set.index.profile(for: SSID("Unknown")) == nil)
    }

    @Test(arguments: [
        ("[A]\nssid=A\nsign-in=wisp\n", 3, "sign-in= names an unknown method (expected: none, click-through, form, wispr, capport)"),
        ("[A]\nssid=A\nconfidence=medium\n", 3, "confidence= is neither low nor high"),
        ("[A]\n\ndisplay-name=x\n", 1, "has neither ssid= nor ssid-prefix="),
        ("[A]\nssid=A\nssid-prefix=B\n", 3, "has both ssid= and ssid-prefix="),
        ("[A]\nssid=A\ncolour=red\n", 3, "has an unknown key (the keys are: "),
        ("[A]\nssid=A\nsign_in=form\n\nlogin_hosts=x\n", 3, "has an unknown key (did you mean 'sign-in'?), and another on line 5 (did you mean 'login-hosts'?) (the keys are: "),
        ("[A]\nssid=A\nsign-in=wisp\n", 3, "(did you mean sign-in=wispr?)"),
        ("[A]\nssid=A\nsign-in=wispr\nusername=u\n", 3, "sign-in=wispr needs user-password="),
        ("[A]\nssid=A\nsign-in=capport\ncapport-url=http://x/api\n", 4, "capport-url= must be an https URL"),
        ("[A]\nssid=A\n\n\npassword=short\n", 5, "password must be 8 to 63 characters"),
        ("[A]\nssid=A\nsign-in=form\n", 3, "sign-in=form needs at least one form-field-NAME=VALUE"),
        ("[A]\nssid=ThisSSIDIsFarTooLongForAnyWiFiNetwork\n", 2, "must have 1 to 32 bytes"),
    ])
    func brokenProfilesAreReportedWithFileAndLineAndTheOthersLoad(text: String, line: Int, message: String) throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let bad = try d.write("a-bad.conf", text + "\n[Good]\nssid=Good\n")
        try d.write("b-other.conf", "[Other]\nssid=Other\n", mode: 0o644)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.problems.count == 1, "\(set.problems)")
        let problem = try #require(set.problems.first)
        #expect(problem.hasPrefix("profile \(bad) line \(line): [A] "), "\(problem)")
        #expect(problem.contains(message), "\(problem)")
        #expect(set.index.profile(for: SSID("Good")) != nil, "the rest of the file loads")
        #expect(set.index.profile(for: SSID("Other")) != nil, "other files load")
    }

    /// A translation (`key[locale]`) is read by no locale: the profile loads as if it were absent,
    /// whatever language the daemon runs in (GLib, as the daemon called it, kept it or dropped it
    /// by the locale, and kept, it made the profile fail as an unknown key).
    @Test func translationsAreIgnoredWhateverTheLocale() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        try d.write("t.conf", "[T]\nssid=T\ndisplay-name=Town\ndisplay-name[de]=Stadt\n")
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.problems.isEmpty, "\(set.problems)")
        #expect(set.index.profile(for: SSID("T"))?.displayName == "Town")
    }

    @Test func aFileThatIsNotAKeyfileIsSkippedWithItsLine() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let bad = try d.write("bad.conf", "[A]\nssid=A\nthis line has no equals sign\n")
        try d.write("good.conf", "[B]\nssid=B\n")
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.problems.count == 1)
        #expect(set.problems.first?.hasPrefix("profile \(bad): line 3 is neither a [group] header, a comment nor key=value") == true, "\(set.problems)")
        #expect(set.index.profile(for: SSID("B")) != nil)
        #expect(set.index.profile(for: SSID("A")) == nil)
    }

    @Test func aFileWithSecretsReadableByOthersIsRefusedWithTheFix() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let open = try d.write("open.conf", "[Office]\nssid=Office\npassword=correct horse battery\n", mode: 0o644)
        try d.write("public.conf", "[Cafe]\nssid=Cafe\nsign-in=click-through\n", mode: 0o644)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.index.profile(for: SSID("Office")) == nil)
        #expect(set.index.profile(for: SSID("Cafe")) != nil, "a file without secrets may be world-readable")
        let problem = try #require(set.problems.first)
        #expect(problem.contains("holds secrets ([Office] password) but is mode 0644"), "\(problem)")
        #expect(problem.contains("REFUSED. Fix: chmod 600 \(open)"))
        #expect(!problem.contains("correct horse"), "the message never shows the secret")
        chmod(open, 0o600)
        #expect(ProfileLoader.load(directory: d.path, requireRootOwner: false).index.profile(for: SSID("Office")) != nil)
    }

    @Test func whenRunningAsRootAFileWithSecretsMustBeRootOwned() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let path = try d.write("wispr.conf", "[Roam]\nssid=Roam\nsign-in=wispr\nusername=u\nuser-password=secret-pw\n")
        chown(path, 1000, 1000)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: true)
        let problem = try #require(set.problems.first)
        #expect(problem.contains("owned by uid 1000, not root"), "\(problem)")
        #expect(problem.contains("Fix: chown root:root \(path)"))
        #expect(!problem.contains("secret-pw"))
    }

    @Test func exactBeatsPrefixLongestPrefixWinsAndConflictsAreReported() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let first = try d.write("1.conf", "[Chain]\nssid-prefix=Cafe\n\n[ChainBerlin]\nssid-prefix=Cafe-Berlin\n\n[Exact]\nssid=Cafe-Berlin-1\n")
        let second = try d.write("2.conf", "[Again]\nssid=Cafe-Berlin-1\n[AgainPrefix]\nssid-prefix=Cafe\n")
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.index.profile(for: SSID("Cafe-Berlin-1"))?.name == "Exact")
        #expect(set.index.profile(for: SSID("Cafe-Berlin-2"))?.name == "ChainBerlin")
        #expect(set.index.profile(for: SSID("Cafe-Paris"))?.name == "Chain")
        #expect(set.problems.count == 2, "\(set.problems)")
        #expect(set.problems.contains("profile \(second) line 1: [Again] is ignored: its SSID 'Cafe-Berlin-1' is already used by [Exact] (\(first) line 7); rename or remove one of them"))
        #expect(set.problems.contains { $0.hasPrefix("profile \(second) line 3: [AgainPrefix] is ignored") })
    }

    @Test func descriptionsNeverShowSecrets() throws {
        let p = Profile(name: "X", file: "/f", line: 1, match: .exact(SSID("X")), displayName: "X", password: Password("wifi-secret-1"),
                        signIn: .form(url: nil, fields: [FormField(name: "pin", value: "4711-secret")], loginHosts: nil))
        let text = "\(p) \(String(reflecting: p))"
        #expect(!text.contains("wifi-secret-1") && !text.contains("4711-secret"), "\(text)")
    }

    @Test func claimsCarryTheProfilesDisplayNameAndPasswordOnlyForSecureNetworks() {
        let index = ProfileIndex([
            Profile(name: "O", file: "/f", line: 1, match: .exact(SSID("Office")), displayName: "Office Net", password: Password("12345678")),
            Profile(name: "H", file: "/f", line: 4, match: .prefix(Array("Hotel".utf8)), displayName: "Hotel", password: Password("abcdefgh"),
                    confidence: .low),
        ])
        let claims = ProfileHelper.claims(for: [
            Network(ssid: SSID("Office"), bssid: "aa", securityClass: .personal, isSecure: true),
            Network(ssid: SSID("Hotel-1"), bssid: "bb"),
            Network(ssid: SSID("Other"), bssid: "cc"),
        ], index: index)
        #expect(claims.count == 2)
        #expect(claims[0].displayName == "Office Net" && claims[0].password?.secret == "12345678" && claims[0].confidence == .high)
        #expect(claims[1].displayName == "Hotel" && claims[1].password == nil && claims[1].confidence == .low)
    }
}
