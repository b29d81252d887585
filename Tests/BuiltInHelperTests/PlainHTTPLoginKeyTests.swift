// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Foundation
import HotspotCore
import HotspotTesting
import Testing

/// A profile's credentials go over plain http only when that profile says so.
@Suite struct PlainHTTPLoginKeyTests {
    @Test func plainHTTPLoginIsPerProfileAndOffByDefault() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        try d.write("p.conf", """
            [Plain]
            ssid=Plain
            sign-in=form
            form-field-name=Ada
            login-hosts=gw.example
            plain-http-login=true

            [Strict]
            ssid=Strict
            sign-in=wispr
            username=u
            user-password=p
            login-hosts=gw.example
            """)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.problems.isEmpty, "\(set.problems)")
        #expect(set.index.profile(for: SSID("Plain"))?.plainHTTPLogin == true)
        #expect(set.index.profile(for: SSID("Strict"))?.plainHTTPLogin == false)
    }

    @Test func plainHTTPLoginWithoutCredentialsOrWithABadValueIsRefusedWithTheFix() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        try d.write("p.conf", """
            [Terms]
            ssid=Terms
            sign-in=click-through
            plain-http-login=true

            [Typo]
            ssid=Typo
            sign-in=form
            form-field-name=Ada
            login-hosts=gw.example
            plain-http-login=maybe
            """)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.index.profile(for: SSID("Terms")) == nil)
        #expect(set.index.profile(for: SSID("Typo")) == nil)
        let problems = set.problems.joined(separator: "\n")
        #expect(problems.contains("plain-http-login= is used only with sign-in=form or sign-in=wispr"), "\(problems)")
        #expect(problems.contains("plain-http-login= must be true or false"), "\(problems)")
    }
}
