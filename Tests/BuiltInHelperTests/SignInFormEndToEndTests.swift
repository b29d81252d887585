// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Testing

/// The portal's own form, described on the interface (`SignInForm`) and signed in with
/// (`SignIn`), through the real daemon, its portal helper, the mock NetworkManager and the
/// simulator's venue forms on loopback; remembered sign-ins used at the next join.
extension DaemonEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct SignInFormEndToEndTests {
        static func venue(_ form: VenueForm) -> PortalSimulatorConfiguration {
            var c = PortalSimulatorConfiguration(mode: .venue)
            c.venue = form
            return c
        }

        /// Joins CityFree and waits for presenting-ui with a SignInForm of `kind`.
        static func waitForForm(_ s: PortalScenario, kind: String = "form") async throws -> [String: DBusValue] {
            try await s.waitFor("presenting-ui")
            var form: [String: DBusValue] = [:]
            try await s.waitUntil("SignInForm has kind \(kind)") {
                form = try await s.property("SignInForm")?.varDict ?? [:]
                return form["kind"]?.string == kind
            }
            return form
        }

        static func fields(_ form: [String: DBusValue]) -> [[String: DBusValue]] {
            form["fields"]?.arrayItems?.compactMap(\.varDict) ?? []
        }

        static func signIn(_ s: PortalScenario, _ values: [String: DBusValue], remember: Bool = false,
                           plainHTTP: Bool = true) async throws -> (String, String) {
            let answer = try await s.client.call(destination: HotspotContract.busName, path: s.interfacePath,
                                                 interface: HotspotContract.interfaceInterface, member: "SignIn",
                                                 body: [.varDict(values), .varDict(["remember": .bool(remember), "allow-plain-http": .bool(plainHTTP)])],
                                                 timeout: .seconds(60))
            return (answer.first?.string ?? "", answer.dropFirst().first?.string ?? "")
        }

        /// The error SignIn answers with; an issue when it signs in or answers instead.
        static func signInError(_ s: PortalScenario, _ values: [String: DBusValue], plainHTTP: Bool = true,
                                sourceLocation: SourceLocation = #_sourceLocation) async -> DBusError? {
            await #expect(throws: DBusError.self, sourceLocation: sourceLocation) { _ = try await signIn(s, values, plainHTTP: plainHTTP) }
        }

        static func remembered(_ s: PortalScenario) async throws -> [[String: DBusValue]] {
            try await s.manager("ListRememberedSignIns").first?.arrayItems?.compactMap(\.varDict) ?? []
        }

        @Test func hotelFormIsDescribedARejectionShowsThePortalsMessageAndARetrySignsIn() async throws {
            try await PortalScenario.run(Self.venue(.hotel)) { s in
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                let fields = Self.fields(form)
                #expect(fields.map { $0["name"]?.string } == ["room", "surname"], "\(form)")
                #expect(fields.first?["label"]?.string == "Room number", "<label for>: \(fields)")
                #expect(fields.first?["kind"]?.string == "number")
                #expect(fields.last?["label"]?.string == "Surname", "a wrapping <label>: \(fields)")
                #expect(fields.allSatisfy { $0["required"]?.bool == true })
                #expect(!fields.contains { $0["name"]?.string == "token" }, "hidden fields stay in the daemon")
                #expect(form["action-scheme"]?.string == "http" && form["plain-http"]?.bool == true)
                #expect(form["portal-url"]?.string?.hasPrefix("http://") == true, "\(form)")
                #expect(form["message"]?.string == "")

                let wrong = try await Self.signIn(s, ["room": .string("412"), "surname": .string("Wrong-Guest-Name")])
                #expect(wrong.0 == "rejected")
                #expect(wrong.1 == "Room number and surname do not match a guest.", "\(wrong)")
                #expect(try await s.property("SignInForm")?.varDict?["message"]?.string == wrong.1)
                #expect(try await s.state() == "presenting-ui")

                let right = try await Self.signIn(s, ["room": .string("412"), "surname": .string("Martin")])
                #expect(right.0 == "signed-in", "\(right) \(s.diagnostics)")
                try await s.waitFor(state: "authenticated")
                #expect(try await s.string("Helper") == "Portal")
                try await s.waitUntil("SignInForm is cleared") { try await s.property("SignInForm")?.varDict?.isEmpty == true }
                #expect(s.events.filter { $0 == "login-ok" }.count == 1)
                #expect(!s.daemon.log.contains("Wrong-Guest-Name"), "what the user typed is never logged")
                #expect(try await Self.remembered(s).isEmpty, "remember false remembers nothing")
            }
        }

        @Test func plainHTTPWithoutTheUsersAcceptanceIsNotAllowedAndSendsNothing() async throws {
            try await PortalScenario.run(Self.venue(.voucher)) { s in
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                #expect(form["plain-http"]?.bool == true)
                #expect(Self.fields(form).first?["label"]?.string == "Voucher code", "placeholder: \(form)")
                let plain = await Self.signInError(s, ["code": .string("WIFI-2026")], plainHTTP: false)
                #expect(plain?.name.hasSuffix("NotAllowed") == true, "\(String(describing: plain))")
                #expect(plain?.message.contains("plain http") == true && plain?.message.contains("WIFI-2026") == false)
                // A name not in the form, a wrong type: InvalidArgs; nothing was posted.
                #expect(await Self.signInError(s, ["nope": .string("x")])?.name.hasSuffix("InvalidArgs") == true)
                #expect(await Self.signInError(s, ["code": .int32(5)])?.name.hasSuffix("InvalidArgs") == true)
                #expect(!s.events.contains { $0.hasPrefix("login") }, "\(s.events)")
                // The portal's refusal repeats the code typed: the message shows the rest of it, not the code.
                let refused = try await Self.signIn(s, ["code": .string("BAD-CODE-77")])
                #expect(refused.0 == "rejected" && refused.1 == "The voucher code … is not valid.", "\(refused)")
                #expect(try await s.property("SignInForm")?.varDict?["message"]?.string == refused.1)
                #expect(!s.daemon.log.contains("BAD-CODE-77"))
            }
        }

        @Test func cafeAndConferenceFormsCarryTheirLabelsTermsAndOptions() async throws {
            do {
                try await PortalScenario.run(Self.venue(.cafe)) { s in
                    try await s.join("CityFree")
                    let fields = Self.fields(try await Self.waitForForm(s))
                    #expect(fields.map { $0["kind"]?.string } == ["email", "checkbox"], "\(fields)")
                    #expect(fields.first?["label"]?.string == "E-mail address", "aria-label: \(fields)")
                    #expect(fields.last?["terms"]?.string == "I accept the terms of use", "\(fields)")
                    #expect(fields.last?["terms-url"]?.string?.hasSuffix("/terms") == true, "\(fields)")
                    #expect(fields.last?["required"]?.bool == true)
                    // The required box unticked: InvalidArgs, nothing sent; an address the portal refuses: its message.
                    let unticked = await Self.signInError(s, ["email": .string("guest@example.org"), "terms": .bool(false)])
                    #expect(unticked?.name.hasSuffix("InvalidArgs") == true && unticked?.message.contains("terms") == true, "\(String(describing: unticked))")
                    #expect(!s.events.contains { $0.hasPrefix("login") })
                    let refused = try await Self.signIn(s, ["email": .string("no-address"), "terms": .bool(true)])
                    #expect(refused.0 == "rejected" && refused.1 == "Please enter your e-mail address.", "\(refused)")
                    let ticked = try await Self.signIn(s, ["email": .string("guest@example.org"), "terms": .bool(true)])
                    #expect(ticked.0 == "signed-in", "\(ticked)")
                    try await s.waitFor(state: "authenticated")
                }
            }
            do {
                try await PortalScenario.run(Self.venue(.conference)) { s in
                    try await s.join("CityFree")
                    let fields = Self.fields(try await Self.waitForForm(s))
                    #expect(fields.map { $0["name"]?.string } == ["fullname", "email", "badge"], "\(fields)")
                    #expect(fields.map { $0["label"]?.string } == ["Full name", "E-mail", "Badge"], "text before, <label for>: \(fields)")
                    let options = fields.last?["options"]?.arrayItems?.compactMap { $0.structFields?.compactMap(\.string) } ?? []
                    #expect(options.map { $0.first } == ["", "attendee", "speaker", "staff"], "\(options)")
                    #expect(options.dropFirst().first?.last == "Attendee")
                    let notAnOption = await Self.signInError(s, ["fullname": .string("Ada"), "email": .string("a@b.c"), "badge": .string("root")])
                    #expect(notAnOption?.name.hasSuffix("InvalidArgs") == true, "a value not among the options")
                    // The refusal names the badge chosen: a select's value is the page's, not blanked as typed.
                    let staff = try await Self.signIn(s, ["fullname": .string("Ada"), "email": .string("ada@example.org"), "badge": .string("staff")])
                    #expect(staff.0 == "rejected" && staff.1 == "A staff badge needs your venue.example e-mail address.", "\(staff)")
                    let done = try await Self.signIn(s, ["fullname": .string("Ada"), "email": .string("a@b.c"), "badge": .string("speaker")])
                    #expect(done.0 == "signed-in", "\(done)")
                }
            }
        }

        @Test(.enabled(if: TLSFront.available, "needs socat and openssl"))
        func aFormPostingOverHTTPSSignsInWithoutAskingAboutPlainHTTP() async throws {
            try await PortalScenario.run(Self.venue(.voucher), tls: true) { s in
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                #expect(form["action-scheme"]?.string == "https" && form["plain-http"]?.bool == false, "\(form)")
                #expect(form["action-host"]?.string == "capport.test")
                let done = try await Self.signIn(s, ["code": .string("WIFI-2026")], plainHTTP: false)
                #expect(done.0 == "signed-in", "\(done) \(s.diagnostics)")
                try await s.waitFor(state: "authenticated")
            }
        }

        @Test func aPageThatSignsInOnlyWithScriptsNeedsTheBrowser() async throws {
            try await PortalScenario.run(Self.venue(.scripted)) { s in
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s, kind: "browser")
                #expect(form["reason"]?.string?.contains("scripts") == true, "\(form)")
                #expect(await Self.signInError(s, [:])?.name.hasSuffix("NotAllowed") == true)
            }
        }

        @Test func hostilePagesArePublishedEscapedAndBoundedOrLeftToTheBrowser() async throws {
            do {
                try await PortalScenario.run(Self.venue(.hostileLabels)) { s in
                    try await s.join("CityFree")
                    let form = try await Self.waitForForm(s)
                    let fields = Self.fields(form)
                    let label = fields.first?["label"]?.string ?? ""
                    #expect(label.hasPrefix("Voucher") && label.contains("\\u{202E}") && !label.contains("\u{202E}"), "\(label)")
                    #expect(!label.contains("<") && !label.contains("alert"), "markup and scripts are not text: \(label)")
                    let pin = try #require(fields.last)
                    #expect(pin["kind"]?.string == "password" && (pin["label"]?.string?.count ?? 999) <= 200, "\(pin)")
                    #expect(form["plain-http"]?.bool == true)
                    #expect(await Self.signInError(s, ["code": .string("WIFI-2026"), "pin": .string("1234")], plainHTTP: false)?
                        .name.hasSuffix("NotAllowed") == true, "a password over plain http needs the user's acceptance")
                    #expect(try await Self.signIn(s, ["code": .string("WIFI-2026"), "pin": .string("1234")]).0 == "signed-in")
                }
            }
            do {
                try await PortalScenario.run(Self.venue(.manyFields)) { s in
                    try await s.join("CityFree")
                    let form = try await Self.waitForForm(s, kind: "browser")
                    #expect(form["reason"]?.string?.contains("more than 32 fields") == true, "\(form)")
                    #expect(Self.fields(form).isEmpty)
                }
            }
        }

        @Test func aRememberedSignInIsUsedSilentlyAtTheNextJoinAndAfterARestartAndForgetNetworkForgetsIt() async throws {
            try await PortalScenario.run(Self.venue(.hotel)) { s in
                try await s.join("CityFree")
                _ = try await Self.waitForForm(s)
                let done = try await Self.signIn(s, ["room": .string("412"), "surname": .string("Martin")], remember: true)
                #expect(done.0 == "signed-in", "\(done)")
                try await s.waitFor(state: "authenticated")
                let list = try await Self.remembered(s)
                #expect(list.count == 1)
                #expect(list.first?["ssid"]?.byteArray == Array("CityFree".utf8))
                #expect(list.first?["fields"]?.arrayItems?.compactMap(\.string) == ["room", "surname"])
                if case .uint64(let saved)? = list.first?["saved"]?.unwrapped { #expect(saved > 0) } else { Issue.record("saved is not a t: \(list)") }
                #expect(!"\(list)".contains("Martin"), "no value is listed")
                // One root-only file per network in the state directory.
                let dir = s.daemon.stateDirectory.appendingPathComponent("sign-ins")
                let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }
                #expect(files.count == 1)
                let mode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(files[0]).path)[.posixPermissions] as? Int
                #expect(mode == 0o600)
                #expect(!s.daemon.log.contains("Martin"), "values are never logged")

                // The next join: signed in by the remembered sign-in, never asking the user.
                try await s.leave()
                try await s.waitFor("inactive")
                s.sim.reset()
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated")
                #expect(s.events.contains("login-ok"), "\(s.diagnostics)")
                #expect(!s.daemon.log.contains("→ presenting-ui") || s.daemon.log.components(separatedBy: "→ presenting-ui").count == 2,
                        "the second join never asked the user")

                // After a restart of the daemon, the same.
                try await s.leave()
                try await s.waitFor("inactive")
                _ = await s.daemon.stop()
                s.sim.reset()
                let again = try ManagedProcess.launch(TestKitPaths.product("hotspot-helperd").path, ["--config", s.daemon.configPath.path, "--log-level", "debug"],
                                                      environment: s.bus.environment, name: "hotspot-helperd")
                defer { again.stop() }
                try await s.bus.waitForName(DaemonProcess.busName)
                try await s.waitForInterface()
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated")
                #expect(s.events.contains("login-ok"), "\(again.output)")
                #expect(!again.output.contains("presenting-ui"), "\(again.output)")

                // ForgetNetwork forgets it.
                _ = try await s.manager("ForgetNetwork", [.bytes(Array("CityFree".utf8))])
                #expect(try await Self.remembered(s).isEmpty)
            }
        }

        @Test func aRememberedSignInThePortalRejectsAsksAgainOnceWithThePortalsMessage() async throws {
            let config = Self.venue(.hotel)
            try await PortalScenario.run(config) { s in
                try await s.join("CityFree")
                _ = try await Self.waitForForm(s)
                #expect(try await Self.signIn(s, ["room": .string("412"), "surname": .string("Martin")], remember: true).0 == "signed-in")
                try await s.waitFor(state: "authenticated")
                try await s.leave()
                try await s.waitFor("inactive")
                config.venueSwitch.change()  // the guest moved to room 415
                s.sim.reset()
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                #expect(form["remembered"]?.bool == true)
                #expect(form["message"]?.string == "This room has been checked out.", "\(form)")
                #expect(s.sim.events().filter { $0.kind.hasPrefix("login") }.count == 1, "one try per join: \(s.events)")
                let done = try await Self.signIn(s, ["room": .string("415"), "surname": .string("Martin")], remember: true)
                #expect(done.0 == "signed-in", "\(done)")
                try await s.waitFor(state: "authenticated")
                // The new values are remembered: the next join is silent again.
                try await s.leave()
                try await s.waitFor("inactive")
                s.sim.reset()
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated")
                #expect(s.events.filter { $0 == "login-ok" }.count == 1 && !s.events.contains("login-failed"), "\(s.events)")
            }
        }

        @Test func anAdministratorsProfileWinsOverARememberedSignIn() async throws {
            try await PortalScenario.run(Self.venue(.voucher)) { s in
                try await s.join("CityFree")
                _ = try await Self.waitForForm(s)
                #expect(try await Self.signIn(s, ["code": .string("WIFI-2026")], remember: true).0 == "signed-in")
                try await s.waitFor(state: "authenticated")
                #expect(try await s.string("Helper") == "Portal")
                try await s.leave()
                try await s.waitFor("inactive")
                // The administrator writes a profile for the network: it signs in, not the remembered one.
                _ = try s.profiles.write("10-cafe.conf", "[CityFree]\nssid=CityFree\ndisplay-name=Cafe\nsign-in=form\nform-field-code=WIFI-2026\n"
                                         + "login-hosts=portal.venue.test\nplain-http-login=true\n")
                s.daemon.process.send(SIGHUP)
                try await s.waitUntil("the profile is loaded") { s.daemon.log.contains("1 added, 0 changed, 0 removed") }
                s.sim.reset()
                try await s.join("CityFree")
                try await s.waitFor(state: "authenticated")
                #expect(try await s.string("Helper") == "Known Networks", "\(s.diagnostics)")
                #expect(!s.daemon.log.contains("signed in with the remembered sign-in"))
            }
        }

        @Test func aProfileWhoseFormAsksForMoreGivesTheUserThePortalsForm() async throws {
            // The profile fills the room, not the surname: the user is asked with the whole form.
            try await PortalScenario.run(Self.venue(.hotel), profile: "[CityFree]\nssid=CityFree\nsign-in=form\nform-field-room=412\n"
                                         + "login-hosts=portal.venue.test\nplain-http-login=true\n") { s in
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                #expect(Self.fields(form).map { $0["name"]?.string } == ["room", "surname"])
                #expect(try await s.string("Helper") == "Known Networks")
                let done = try await Self.signIn(s, ["room": .string("412"), "surname": .string("Martin")])
                #expect(done.0 == "signed-in", "\(done)")
                try await s.waitFor(state: "authenticated")
                #expect(try await s.string("Helper") == "Known Networks")
            }
        }

        @Test func aRememberedSignInWhoseFormChangedAsksAgainAndPostsNothingToTheOldNames() async throws {
            let config = Self.venue(.changingFields)
            try await PortalScenario.run(config) { s in
                try await s.join("CityFree")
                _ = try await Self.waitForForm(s)
                #expect(try await Self.signIn(s, ["room": .string("412"), "surname": .string("Martin")], remember: true).0 == "signed-in")
                try await s.waitFor(state: "authenticated")
                try await s.leave()
                try await s.waitFor("inactive")
                config.venueSwitch.change()
                s.sim.reset()
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                #expect(Self.fields(form).map { $0["name"]?.string } == ["room_number", "last_name"], "\(form)")
                #expect(form["remembered"]?.bool == true)
                #expect(form["message"]?.string?.contains("changed") == true, "\(form)")
                #expect(!s.events.contains { $0.hasPrefix("login") }, "nothing was posted: \(s.sim.events())")
                // The user signs in with the new form.
                let done = try await Self.signIn(s, ["room_number": .string("412"), "last_name": .string("Martin")], remember: true)
                #expect(done.0 == "signed-in", "\(done)")
            }
        }

        @Test func aRememberedSignInWhoseFormNowPostsToAnotherHostAsksAgain() async throws {
            let config = Self.venue(.movingHost)
            try await PortalScenario.run(config) { s in
                try await s.join("CityFree")
                let first = try await Self.waitForForm(s)
                let host = first["action-host"]?.string ?? ""
                #expect(try await Self.signIn(s, ["code": .string("WIFI-2026")], remember: true).0 == "signed-in")
                try await s.waitFor(state: "authenticated")
                try await s.leave()
                try await s.waitFor("inactive")
                config.venueSwitch.change()
                s.sim.reset()
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                #expect(form["action-host"]?.string == "login.venue-other.test", "\(form)")
                #expect(host == "portal.venue.test" && form["action-host"]?.string != host, "\(host)")
                #expect(form["remembered"]?.bool == true)
                #expect(!s.sim.events().contains { $0.host == "login.venue-other.test" }, "nothing was sent to the other host")
            }
        }

        @Test func aFormPostingToAnotherHostShowsThatHostAndSendsOnlyThere() async throws {
            try await PortalScenario.run(Self.venue(.otherHost)) { s in
                try await s.join("CityFree")
                let form = try await Self.waitForForm(s)
                #expect(form["action-host"]?.string == "login.venue-other.test", "the dialog shows where it goes: \(form)")
                let done = try await Self.signIn(s, ["code": .string("WIFI-2026")])
                #expect(done.0 == "signed-in", "\(done)")
                let posts = s.sim.events().filter { $0.method == "POST" }
                #expect(posts.allSatisfy { $0.host == "login.venue-other.test" }, "\(posts)")
            }
        }
    }
}
