// SPDX-License-Identifier: Apache-2.0
@testable import BuiltInHelpers
import Testing

/// The form rules of issue 11 item 1, each against a page with the trap.
@Suite struct HTMLFormTests {
    func ready(_ html: String, filling: [FormField] = []) -> [FormPair]? {
        guard let f = HTMLFormReader.forms(in: html).first, case .ready(let p) = f.submission(filling: filling) else { return nil }
        return p
    }

    @Test func optionalOptInBoxIsNeverTickedTermsBoxIs() throws {
        let p = try #require(ready("""
        <form method=post action=/ok><label><input type=checkbox name=news value=1 checked> Send me offers</label>
        <input type=checkbox name=tos value=yes> I accept the terms<input type=submit name=go value=Go></form>
        """))
        #expect(p.map(\.name) == ["tos", "go"])
        #expect(p[0].value == "yes")
    }

    @Test func disabledFieldsAreNotSent() throws {
        let p = try #require(ready("<form><input type=hidden name=a value=1><input type=hidden name=b value=2 disabled><fieldset disabled><input type=hidden name=c value=3></fieldset></form>"))
        #expect(p.map(\.name) == ["a"])
    }

    @Test func selectSendsSelectedOrFirstOption() throws {
        let p = try #require(ready("<form><select name=s><option value=x>X<option value=y selected>Y</select><select name=t><option>first</option><option>second</option></select></form>"))
        #expect(p.map(\.value) == ["y", "first"])
    }

    @Test func entityInActionURLIsDecoded() throws {
        let f = try #require(HTMLFormReader.forms(in: "<form action=\"/login?a=1&amp;b=2\" method=post><input type=hidden name=h value=\"x&lt;y\"></form>").first)
        #expect(f.action == "/login?a=1&b=2")
        #expect(f.controls.first?.value == "x<y")
    }

    @Test func inputInsideScriptOrCommentIsIgnored() throws {
        let p = try #require(ready("<form><script>document.write('<input type=hidden name=evil value=1>')</script><!-- <input type=hidden name=old value=1> --><input type=hidden name=real value=1></form>"))
        #expect(p.map(\.name) == ["real"])
    }

    @Test func twoFormsGoToTheUser() {
        let forms = HTMLFormReader.forms(in: "<form action=/a><input type=hidden name=a value=1></form><form action=/b><input type=hidden name=b value=1></form>")
        #expect(forms.count == 2)
        guard case .failure(.needsUser) = PortalSignIn.choose(forms, filling: [], page: "http://p/") else {
            Issue.record("two forms were guessed between"); return
        }
    }

    @Test func unfilledFieldsGoToTheUser() throws {
        let f = try #require(HTMLFormReader.forms(in: "<form><input name=username><input name=room><input type=password name=password></form>").first)
        #expect(f.submission(filling: [FormField(name: "username", value: "u"), FormField(name: "password", value: "p")]) == .needsUser(["room"]))
    }
}
