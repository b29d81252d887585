// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Foundation
import HotspotCore
import HotspotTesting
import Testing

/// A broken profile is reported by file, line and what is wrong, never by quoting
/// its content, which may be a secret (a `password secret` line with no `=`; a mistyped value).
@Suite struct ProfileSecretInLogTests {
    @Test func aLineWithoutEqualsHoldingASecretIsReportedByLineNotQuoted() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let path = try d.write("leak.conf", "[Office]\nssid=Office\n\npassword correct-horse-leak-1\n")
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        let problem = try #require(set.problems.first)
        #expect(problem.hasPrefix("profile \(path): line 4 is neither"), "\(problem)")
        #expect(!problem.contains("correct-horse-leak-1"), "\(problem)")
        #expect(!problem.contains("password correct"), "\(problem)")
    }

    @Test(arguments: [
        ("[A]\nssid=A\nconfidence=leak-value-2\n", 3),
        ("[A]\nssid=A\nsign-in=leak-value-3\n", 3),
        ("[A]\nssid=A\nsign-in=form\nform-field-pin=1\nform-url=leak-value-4\n", 5),
        ("[A]\nssid=A\nsign-in=capport\ncapport-url=http://leak-value-5/api\n", 4),
        ("[A]\nssid=A-leak-value-6-and-far-too-long-for-an-SSID\n", 2),
        ("[A]\nssid=A\nleak-value-7=x\n", 3),
        ("[A]\nssid=A\nsign-in=wispr\nusername=u\nuser-password=p\nlogin-hosts=https://leak-value-8/\n", 6),
    ])
    func aBadValueIsReportedByKeyAndLineNotQuoted(text: String, line: Int) throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let path = try d.write("a.conf", text)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        let problem = try #require(set.problems.first)
        #expect(problem.hasPrefix("profile \(path) line \(line): [A] "), "\(problem)")
        #expect(!problem.contains("leak-value"), "\(problem)")
    }
}
