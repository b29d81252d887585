// SPDX-License-Identifier: Apache-2.0
@testable import BuiltInHelpers
import HotspotCore
import Testing

/// How a portal page becomes the `SignInForm` a person sees: labels found each way a page gives
/// them, what needs a browser, and hostile pages bounded, escaped or refused.
struct SignInFormReaderTests {
    let ssid = SSID(bytes: Array("Hotel".utf8))

    func describe(_ html: String, url: String = "http://portal.example/login") -> PendingSignIn {
        SignInFormReader.describe(body: Array(html.utf8), url: url, ssid: ssid)
    }

    @Test func labelsComeFromEachPlaceAPageGivesThem() {
        let p = describe("""
            <form method=post action="https://auth.example/go">
            <input type=hidden name=csrf value=t0k3n>
            <label for=r>Room</label><input id=r name=room>
            <label>Surname <input name=surname required></label>
            <input name=code placeholder="Voucher code">
            <input name=mail type=email aria-label="E-mail address">
            <table><tr><td>Phone</td><td><input name=phone type=tel></td></tr></table>
            Company: <input name=company value="ACME">
            <input name=pw type=password value="preset-secret">
            <select name=nights><option value=1>One night</option><option value=2 selected>Two</option></select>
            <input type=checkbox name=tos value=yes> I agree to the <a href="/terms">rules</a>
            <input type=submit value=Go></form>
            """)
        let d = p.description
        #expect(d.kind == .form)
        #expect(d.fields.map(\.name) == ["room", "surname", "code", "mail", "phone", "company", "pw", "nights", "tos"])
        #expect(d.fields.map(\.label) == ["Room", "Surname", "Voucher code", "E-mail address", "Phone", "Company", "pw", "nights", "I agree to the rules"])
        #expect(d.fields.map(\.kind) == ["text", "text", "text", "email", "tel", "text", "password", "select", "checkbox"])
        #expect(d.fields[1].required && !d.fields[0].required)
        #expect(d.fields[5].value == "ACME")
        #expect(d.fields[6].value == "", "a password's preset value is never given")
        #expect(d.fields[8].termsURL == "http://portal.example/terms")
        #expect(d.fields[7].options.map(\.value) == ["1", "2"] && d.fields[7].options.first?.label == "One night")
        #expect(d.actionHost == "auth.example" && d.actionScheme == "https" && !d.plainHTTP)
        #expect(p.form?.controls.contains { $0.name == "csrf" && $0.type == "hidden" } == true, "hidden fields are kept, not shown")
        #expect(!d.fields.contains { $0.name == "csrf" })
    }

    @Test func pagesOnlyABrowserCanHandleSayWhy() {
        #expect(describe("<html><script src=/app.js></script><div id=app></div></html>").description.reason.contains("scripts"))
        #expect(describe("<form><input name=u><div class=g-recaptcha></div></form>").description.reason.contains("captcha"))
        #expect(describe("<form method=post><input name=u><input type=file name=id></form>").description.reason.contains("file"))
        #expect(describe("<html><iframe src=https://login.example/></iframe></html>").description.reason.contains("frame"))
        #expect(describe("<form onsubmit='return go()'><input name=u></form>").description.reason.contains("script"))
        #expect(describe("<p>Welcome</p>").description.reason.contains("no form"))
        for html in ["<html><script></script></html>", "<form><input name=u><div class=g-recaptcha></div></form>"] {
            #expect(describe(html).description.kind == .browser)
        }
    }

    @Test func hostilePagesAreBoundedEscapedOrRefused() {
        // 10,000 fields: more than the dialog shows, so the browser.
        let many = "<form method=post>" + (0..<10_000).map { "<input name=f\($0)>" }.joined() + "</form>"
        let crowd = describe(many)
        #expect(crowd.description.kind == .browser && crowd.description.reason.contains("32"), "\(crowd.description.reason)")
        // Markup and bidi overrides in a label: text only, the controls escaped.
        let tricky = describe("<form method=post><label for=a><b>Room</b>\u{202E}rebmun<script>alert(1)</script></label><input id=a name=a></form>")
        let label = tricky.description.fields.first?.label ?? ""
        #expect(label.hasPrefix("Room") && label.contains("\\u{202E}") && !label.contains("\u{202E}") && !label.contains("<") && !label.contains("alert"),
                "\(label)")
        // A 1 MiB label: at most 200 characters.
        let huge = String(repeating: "A", count: 1 << 20)
        let long = describe("<form method=post><label for=a>\(huge)</label><input id=a name=a placeholder='\(huge)'></form>")
        #expect(long.description.kind == .form)
        #expect((long.description.fields.first?.label.count ?? 999) <= SignInFormReader.labelLimit)
        // A field name with a control character cannot be shown as it is: the browser.
        #expect(describe("<form method=post><input name='a&#10;b'></form>").description.kind == .browser)
        // A form posting off the page's host says where it posts.
        let off = describe("<form method=post action='http://elsewhere.example/steal'><input name=u></form>")
        #expect(off.description.actionHost == "elsewhere.example" && off.actionHost == "elsewhere.example")
        // A password on plain http: plain-http, so the user must accept it (SignIn refuses otherwise).
        let plain = describe("<form method=post action='/login'><input name=u><input type=password name=p></form>")
        #expect(plain.description.plainHTTP)
        // A form sending somewhere that is not http(s).
        #expect(describe("<form method=post action='javascript:go()'><input name=u></form>").description.kind == .browser)
        // A portal-url that is not http(s) is not published.
        #expect(describe("<form><input name=u></form>", url: "file:///etc/passwd").description.portalURL == "")
    }

    @Test func thePortalsErrorTextIsFoundEscapedAndBounded() {
        #expect(SignInFormReader.message(in: Array("<p class=error>Wrong room</p><form></form>".utf8)) == "Wrong room")
        #expect(SignInFormReader.message(in: Array("<div role=alert>No\u{202E}pe</div>".utf8)) == "No\\u{202E}pe")
        let long = SignInFormReader.message(in: Array("<div class=alert>\(String(repeating: "x", count: 100_000))</div>".utf8))
        #expect(long.count <= SignInFormReader.messageLimit)
    }
}

extension SignInFormReaderTests {
    /// A portal's refusal may repeat what was typed; it is blanked before anyone sees the message.
    /// What the page itself offered (a checkbox's value, a select's options) is not the user's
    /// and stays in the portal's words.
    @Test func aRefusalBlanksWhatWasTypedNotWhatThePageOffered() {
        let p = describe("""
            <form method=post action="https://auth.example/go">
            <label for=n>Name</label><input id=n name=name>
            <label for=e>E-mail</label><input id=e type=email name=email>
            <label for=r>Room</label><input id=r type=number name=room>
            <label for=t>Phone</label><input id=t type=tel name=phone>
            <label for=w>PIN</label><input id=w type=password name=pin>
            <label for=b>Badge</label><select id=b name=badge><option value=staff>Staff</option><option value=guest>Guest</option></select>
            <input type=checkbox name=terms value=agreed> I accept the terms
            </form>
            """)
        #expect(p.description.fields.map(\.kind) == ["text", "email", "number", "tel", "password", "select", "checkbox"])
        let values = ["name": "Ada Lovelace", "email": "ada@example.org", "room": "412", "phone": "5550100", "pin": "9731",
                      "badge": "staff", "terms": "agreed"]
        let said = "Ada Lovelace (ada@example.org, room 412, phone 5550100, PIN 9731): a staff badge needs the terms agreed."
        #expect(SignInFormReader.blankingTyped(said, values: values, fields: p.description.fields)
                == "… (…, room …, phone …, PIN …): a staff badge needs the terms agreed.")
        // Two characters or fewer are left (they would blank ordinary words); a name the form does
        // not describe is treated as typed.
        #expect(SignInFormReader.blankingTyped("Room 12 is not yours; code XYZ-1 expired", values: ["room": "12", "code": "XYZ-1"],
                                               fields: p.description.fields) == "Room 12 is not yours; code … expired")
        // What is typed is blanked however the portal escaped it into its message.
        #expect(SignInFormReader.blankingTyped("Unknown name Ada\\u{202E}x", values: ["name": "Ada\u{202E}x"], fields: p.description.fields)
                == "Unknown name …")
    }
}
