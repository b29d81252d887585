// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import Testing

/// The Foundation-free text helpers the shipped binary uses instead of full Foundation's.
@Suite struct TextTrimmingTests {
    @Test func whitespaceAndNewlinesGoFromBothEndsOnly() {
        #expect(" \t Success \r\n".trimmingWhitespace == "Success")
        #expect("a b".trimmingWhitespace == "a b")
        #expect(" \u{00A0}x\u{2003}".trimmingWhitespace == "x", "Unicode spaces too, as Foundation's whitespacesAndNewlines")
        #expect(" \n\t ".trimmingWhitespace == "")
        #expect("".trimmingWhitespace == "")
        #expect("  Content-Type "[...].trimmingWhitespace == "Content-Type")
    }

    @Test func asciiCaseIsIgnoredAndNothingElse() {
        #expect("Content-Type".equalsIgnoringASCIICase("content-type"))
        #expect(!"Content-Type".equalsIgnoringASCIICase("content-typ"))
        #expect(!"straße".equalsIgnoringASCIICase("STRASSE"), "no Unicode folding: header names are ASCII")
        #expect("<html><WISPAccessGatewayParam x>".rangeIgnoringASCIICase(of: "<wispaccessgatewayparam").map { "<html><WISPAccessGatewayParam x>"[$0] } == "<WISPAccessGatewayParam")
        #expect("abc".rangeIgnoringASCIICase(of: "abcd") == nil)
        #expect("éA".rangeIgnoringASCIICase(of: "a") != nil)
    }
}
