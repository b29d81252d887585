// SPDX-License-Identifier: Apache-2.0
@testable import BuiltInHelpers
import Testing

/// The form rules, each against a page with the trap.
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

    /// A terms page of 64 KiB: one `<label>` holding 9,300 `<input>`s. Each input used to read its
    /// label's whole text again (quadratic: 37 s of CPU in a debug build, 3.2 s in release, on the
    /// daemon's bus thread).
    static func labelHoldingInputs(_ count: Int) -> String {
        "<form method=post action=/ok><label>I accept " + String(repeating: "<input>", count: count) + "</label><input type=submit></form>"
    }

    /// Linear is counted in node visits, not timed: the reader's work stays within its budget,
    /// which is linear in the page (the quadratic reader visited the label's text once per input).
    @Test func aLabelHoldingThousandsOfInputsIsReadInLinearTime() throws {
        let page = Self.labelHoldingInputs(9_300)
        #expect(page.utf8.count > 64_000)
        let reading = HTMLFormReader.read(Array(page.utf8))
        #expect(!reading.exhausted && reading.work <= reading.budget, "the reader ran out of its budget: \(reading.work) of \(reading.budget)")
        let form = try #require(HTMLFormReader.forms(in: page).first)
        #expect(form.controls.count == HTMLFormReader.maxControls)
        #expect(form.controls.first?.label == "I accept")
    }

    /// The work budget: shapes that made the reader walk one part of the page once per control
    /// (a shared label, the words after many checkboxes, labels inside labels) stay linear, so
    /// doubling the page at most doubles the work and the budget is never reached.
    @Test(arguments: [
        { (n: Int) in labelHoldingInputs(n) },
        { (n: Int) in "<form>" + String(repeating: "<input type=checkbox>", count: n) + String(repeating: "<span></span>", count: n) + "</form>" },
        { (n: Int) in "<form>" + String(repeating: "<span><input type=checkbox>", count: n) + String(repeating: "</span>", count: n) + "</form>" },
        { (n: Int) in "<form>" + String(repeating: "<label><input>", count: min(n, 200)) + String(repeating: "<b></b>", count: n) + "</form>" },
        { (n: Int) in "<form><select name=s>" + String(repeating: "<option>" + String(repeating: "<b></b>", count: 50), count: n / 50) + "</select></form>" },
    ] as [@Sendable (Int) -> String])
    func hostileShapesCostWorkLinearInThePage(_ page: @Sendable (Int) -> String) {
        let small = HTMLFormReader.read(Array(page(2_000).utf8))
        let large = HTMLFormReader.read(Array(page(8_000).utf8))
        for reading in [small, large] {
            #expect(!reading.exhausted, "the reader ran out of its budget: \(reading.work) of \(reading.budget)")
            #expect(reading.work <= reading.budget)
        }
        #expect(large.work <= 5 * max(small.work, 1), "4× the page cost \(large.work) visits against \(small.work)")
    }

    /// A page past its budget has no form the reader vouches for (the user signs in with a browser).
    @Test func aPageOverItsBudgetHasNoForm() {
        let page = Array(Self.labelHoldingInputs(40).utf8)
        let enough = HTMLFormReader.read(page)
        #expect(enough.forms.count == 1 && !enough.exhausted)
        let short = HTMLFormReader.read(page, budget: enough.work - 1)
        #expect(short.exhausted)
        #expect(short.forms.isEmpty)
    }
}
