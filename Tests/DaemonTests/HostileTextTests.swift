// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
@testable import HotspotDaemon
import HotspotProtocol
import HotspotTesting
import Testing

/// Text that is long in bytes but short in grapheme clusters, and names that pass for a built-in
/// helper's: limits count Unicode scalars and bytes, and reserved names are compared folded.
@Suite struct HostileTextTests {
    /// One `Character`: a letter and `marks` combining acute accents (2 bytes each).
    static func stack(_ marks: Int) -> String { "e" + String(repeating: "\u{301}", count: marks) }

    func request(_ options: [String: DBusValue], uid: UInt32? = 65534) -> Result<HelperRegistrationRequest, HotspotError> {
        Result { () throws(HotspotError) in try HelperRegistrationRequest(options: options, uid: uid) }
    }

    @Test func displayNameOfOneGraphemeButThousandsOfBytesIsRefused() throws {
        let name = Self.stack(3_000)
        #expect(name.count == 1 && name.utf8.count == 6_001)
        guard case .failure(let e) = request(["DisplayName": .string(name), "Identifier": "org.example.x", "Purpose": "Signs in"]) else {
            Issue.record("a 6,001-byte DisplayName was accepted"); return
        }
        #expect(e.kind == .invalidArgs)
        #expect(e.message.contains("3001 Unicode scalars, 6001 bytes"), "\(e.message)")
    }

    @Test func purposeOfFewGraphemesButAMegabyteIsRefused() throws {
        let purpose = String(repeating: Self.stack(5_000), count: 100)
        #expect(purpose.count == 100 && purpose.utf8.count > 1_000_000)
        guard case .failure(let e) = request(["DisplayName": "Cafe", "Identifier": "org.example.x", "Purpose": .string(purpose)]) else {
            Issue.record("a 1 MB Purpose was accepted"); return
        }
        #expect(e.kind == .invalidArgs)
        #expect(e.message.contains("Purpose"))
        // A purpose with accents within its bound is fine.
        #expect((try? request(["DisplayName": "Café", "Identifier": "org.example.x", "Purpose": "Se connecte au Wi-Fi du café"]).get()) != nil)
    }

    @Test(arguments: ["Known Networks", "Known\u{200B}Networks", "known networks", "KNOWN  NETWORKS", " Known Networks\u{FEFF}",
                      "Ｋｎｏｗｎ Networks", "Known\u{00A0}Networks", "Known\u{2060}Net\u{200D}works", "portal", "𝐏𝐨𝐫𝐭𝐚𝐥"])
    func builtInHelperNamesAreReservedAfterFolding(_ name: String) {
        for uid: UInt32 in [0, 65534] {
            guard case .failure(let e) = request(["DisplayName": .string(name), "Identifier": "org.example.mimic", "Purpose": "Signs in"], uid: uid) else {
                Issue.record("\(UntrustedText.forLog(name)) was accepted from uid \(uid)"); continue
            }
            #expect(e.kind == .notAllowed, "\(e)")
            #expect(e.message.contains("built-in helpers") && e.message.contains("choose a name of your own"), "\(e.message)")
        }
    }

    @Test func namesThatMerelyContainABuiltInNameAreFine() throws {
        for name in ["Known Networks Plus", "Campus Portal", "Networks"] {
            #expect((try? request(["DisplayName": .string(name), "Identifier": "org.example.y", "Purpose": "Signs in"]).get()) != nil, "\(name)")
        }
    }

    @Test func combiningStacksAndFormatCharactersAreRefusedInNamesPeopleRead() {
        for name in ["Cafe" + Self.stack(12), "Free\u{061C}WiFi", "Free\u{2066}WiFi"] {
            guard case .failure(let e) = request(["DisplayName": .string(name), "Identifier": "org.example.z", "Purpose": "Signs in"]) else {
                Issue.record("\(UntrustedText.forLog(name)) was accepted"); continue
            }
            #expect(e.kind == .invalidArgs, "\(e)")
        }
    }

    /// A helper's answer: display names in filter-scan-list are held to the same bound.
    @Test func claimDisplayNameIsBoundInScalarsAndBytes() {
        func answer(_ name: String) -> DBusValue {
            .varDict(["result": "success", "networks": .varDicts([["ssid": .bytes(Array("Cafe".utf8)), "display-name": .string(name)]])])
        }
        #expect(throws: WireError.self) { try WireResponse.decode(answer(Self.stack(3_000))) }
        #expect(throws: WireError.self) { try WireResponse.decode(answer("Cafe" + Self.stack(30))) }
        #expect(throws: WireError.self) { try WireResponse.decode(answer("Cafe\u{202E}")) }
        #expect((try? WireResponse.decode(answer("Café Wi-Fi")))?.claims.first?.displayName == "Café Wi-Fi")
    }

    /// A helper's reason: escaped (format characters, combining stacks) and capped in scalars.
    @Test func reasonIsEscapedAndCappedInScalars() throws {
        let reason = "ok\u{061C}\u{200B}" + Self.stack(300)
        let decoded = try #require(try WireResponse.decode(.varDict(["result": "failure", "reason": .string(reason)])).reason)
        #expect(!decoded.unicodeScalars.contains(where: UntrustedText.needsEscape))
        #expect(UntrustedText.longestCombiningRun(decoded) <= UntrustedText.maximumCombiningRun)
        #expect(decoded.contains("\\u{61C}\\u{200B}"), "\(decoded)")
        #expect(decoded.unicodeScalars.count <= WireResponse.maximumReasonLength * 10 + 20)
    }
}

/// The same over the bus, from the real daemon.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock"))
struct HostileRegistrationTextTests {
    @Test func daemonRefusesAnImpersonatingOrOversizedDisplayName() async throws {
        let f = try await DaemonScenario(accessPoints: [])
        await #expect { try await f.manager("RegisterHelper", [.objectPath("/h"), .varDict(["DisplayName": "Known\u{200B}Networks", "Identifier": "org.example.mimic"])]) }
            throws: { ($0.dbusName ?? "").hasSuffix("NotAllowed") && "\($0)".contains("built-in helpers") }
        await #expect { try await f.manager("RegisterHelper", [.objectPath("/h"), .varDict(["DisplayName": .string(HostileTextTests.stack(3_000)), "Identifier": "org.example.big"])]) }
            throws: { ($0.dbusName ?? "").hasSuffix("InvalidArgs") && "\($0)".contains("6001 bytes") }
        let helpers = try await f.managerProperty("Helpers")
        #expect(!"\(String(describing: helpers))".contains("org.example"), "a refused helper is listed: \(String(describing: helpers))")
    }
}
