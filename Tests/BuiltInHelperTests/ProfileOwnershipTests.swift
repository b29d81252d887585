// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Foundation
import HotspotCore
import HotspotTesting
import Testing

/// Who may change a profile decides which network gets which password: a profile owned by another
/// user, or writable by group or others, is refused (with or without a secret), and so is every
/// profile of a directory such a user could write. A refused file never shadows root's.
@Suite(.enabled(if: geteuid() == 0, "needs root (to give files to nobody)"))
struct ProfileOwnershipTests {
    static let rootProfile = "[Office]\nssid=Office\npassword=correct horse battery\n"
    static let planted = "[Office]\nssid=Office\ndisplay-name=Office (planted)\n"

    @Test func aNobodyOwnedWorldWritableProfileDoesNotShadowRootsProfile() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        // Read first by name, as the attacker chose: before, the first file by name won the SSID.
        let evil = try d.write("00-office.conf", Self.planted, mode: 0o666)
        chown(evil, 65534, 65534)
        chmod(evil, 0o666)
        try d.write("50-office.conf", Self.rootProfile)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: true)
        let office = try #require(set.index.profile(for: SSID("Office")))
        #expect(office.password != nil, "root's profile with the password wins: \(office)")
        #expect(office.displayName == "Office")
        #expect(set.problems.count == 1, "\(set.problems)")
        let problem = set.problems.first ?? ""
        #expect(problem.contains(evil) && problem.contains("owned by uid 65534, not root") && problem.contains("REFUSED")
                && problem.contains("Fix: chown root:root \(evil)"), "\(problem)")
    }

    @Test func aRootOwnedProfileWritableByOthersIsRefusedEvenWithoutSecrets() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let writable = try d.write("00-cafe.conf", "[Cafe]\nssid=Cafe\nsign-in=click-through\n", mode: 0o664)
        chmod(writable, 0o664)
        try d.write("10-readable.conf", "[Library]\nssid=Library\n", mode: 0o644)
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: true)
        #expect(set.index.profile(for: SSID("Cafe")) == nil)
        #expect(set.index.profile(for: SSID("Library")) != nil, "a file without secrets may still be readable by all")
        #expect(set.problems == ["profile \(writable): is mode 0664, writable by group or others; it is REFUSED. Fix: chmod go-w \(writable)"],
                "\(set.problems)")
    }

    @Test func aDirectoryOthersCanWriteOrOwnIsRefusedWhole() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        try d.write("50-office.conf", Self.rootProfile)
        chmod(d.path, 0o777)
        var set = ProfileLoader.load(directory: d.path, requireRootOwner: true)
        #expect(set.index.count == 0)
        #expect(set.problems == ["profiles directory \(d.path) is mode 0777, writable by group or others, so they could add or replace profiles; "
                                 + "every profile in it is REFUSED. Fix: chmod go-w \(d.path)"], "\(set.problems)")
        chmod(d.path, 0o755)
        chown(d.path, 65534, 65534)
        set = ProfileLoader.load(directory: d.path, requireRootOwner: true)
        #expect(set.index.count == 0)
        #expect(set.problems.first?.contains("is owned by uid 65534, not root") == true, "\(set.problems)")
        chown(d.path, 0, 0)
        set = ProfileLoader.load(directory: d.path, requireRootOwner: true)
        #expect(set.index.profile(for: SSID("Office"))?.password != nil && set.problems.isEmpty, "\(set.problems)")
    }
}
