// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Glibc
import DBus
import NetworkManager
import Testing

/// The provisioned profile's shape, and the profile calls against python-dbusmock's
/// NetworkManager with AddConnection2/Update2 added (HotspotTesting's `addProfileMethods`).
struct ProvisionedProfileModelTests {
    static let spec = ProvisionedProfileSpec(ssid: bytes("Coffee\u{1}Shop"), keyManagement: .wpaPSK, password: "hunter2-longer", helper: "com.example.coffee")

    /// The desktop's settings show `connection.id`: the helper's name for the network, unique among
    /// the daemon's profiles, never a control character.
    @Test func theProfileIsNamedAsTheHelperNamesTheNetwork() {
        func spec(_ ssid: String, _ name: String?) -> ProvisionedProfileSpec {
            ProvisionedProfileSpec(ssid: bytes(ssid), keyManagement: .wpaPSK, password: "hunter2-longer", helper: "h", name: name)
        }
        #expect(spec("Office", "Office Net").settings(uuid: "u")["connection"]?["id"] == .string("Office Net"))
        #expect(spec("Office", "Bad\u{85}Name\u{7}").name == "Bad?Name?")
        #expect(spec("Office", "").name == "Office")
        let named = ProvisionedProfileSpec.uniquelyNamed([spec("CityFree", "City Wi-Fi"), spec("CityFree-5G", "City Wi-Fi"), spec("Office", "Office Net")])
        #expect(named.map(\.name) == ["City Wi-Fi (CityFree)", "City Wi-Fi (CityFree-5G)", "Office Net"])
    }

    @Test func theProfileHoldsThePasswordAsASystemSecretAndCarriesTheMark() throws {
        let s = Self.spec.settings(uuid: "1b4e28ba-2fa1-11d2-883f-0016d3cca427")
        #expect(s["802-11-wireless-security"]?["psk"] == .string("hunter2-longer"))
        #expect(s["802-11-wireless-security"]?["psk-flags"] == .uint32(0), "system-owned: NetworkManager asks no agent")
        #expect(s["802-11-wireless-security"]?["key-mgmt"] == .string("wpa-psk"))
        #expect(s["802-11-wireless"]?["ssid"]?.byteArray == bytes("Coffee\u{1}Shop"))
        #expect(s["connection"]?["autoconnect"] == .bool(true))
        #expect(s["connection"]?["permissions"] == nil, "system-wide profile")
        #expect(s["connection"]?["id"] == .string("Coffee?Shop"), "without a display name, the SSID; control characters are not put in the id")
        #expect(s["connection"]?["uuid"] == .string("1b4e28ba-2fa1-11d2-883f-0016d3cca427"))
        let data = s["user"]?["data"]?.dictEntries ?? []
        #expect(data.contains { $0.key == .string(ProvisionedProfileSpec.markKey) })
        #expect(data.contains { $0.key == .string(ProvisionedProfileSpec.helperKey) && $0.value == .string("com.example.coffee") })
        var dumped = ""
        dump(Self.spec, to: &dumped)
        for shown in ["\(Self.spec)", String(reflecting: Self.spec), dumped] {
            #expect(!shown.contains("hunter2"), "descriptions never show the password: \(shown)")
        }
        // What NetworkManager returns (no secrets) reads back as a provisioned profile.
        var held = s
        held["802-11-wireless-security"]?["psk"] = nil
        let profile = try #require(HeldProfile(path: "/org/freedesktop/NetworkManager/Settings/7", settings: held))
        #expect(profile.isProvisioned && profile.helper == "com.example.coffee" && profile.uuid == "1b4e28ba-2fa1-11d2-883f-0016d3cca427")
        held["user"] = nil
        #expect(HeldProfile(path: "/org/freedesktop/NetworkManager/Settings/7", settings: held)?.isProvisioned == false)
        held["802-11-wireless"] = nil
        #expect(HeldProfile(path: "/org/freedesktop/NetworkManager/Settings/7", settings: held) == nil, "not Wi-Fi")
    }

    @Test func onlyPasswordsNetworkManagerAcceptsAreProvisioned() {
        func valid(_ p: String) -> Bool { ProvisionedProfileSpec(ssid: [1], keyManagement: .wpaPSK, password: p, helper: "h").hasValidPassword }
        #expect(valid("12345678"))
        #expect(valid(String(repeating: "x", count: 63)))
        #expect(valid(String(repeating: "aF09", count: 16)), "64 hex digits: a raw PSK")
        #expect(!valid("1234567"))
        #expect(!valid(String(repeating: "x", count: 64)), "64 characters must be hex")
        #expect(!valid(String(repeating: "x", count: 65)))
        #expect(!valid("password\u{7}bell"))
        #expect(!valid("pässwörter"))
    }

    @Test func keyManagementFollowsTheAccessPoint() {
        func ap(flags: UInt32 = 1, rsn: UInt32) -> AccessPoint {
            AccessPoint(path: "/ap", ssid: [1], bssid: "0a:00:00:00:00:01", strength: 50, frequency: 2412,
                        flags: AccessPointFlags(rawValue: flags), wpaFlags: [], rsnFlags: AccessPointSecurityFlags(rawValue: rsn))
        }
        #expect(ProfileKeyManagement(accessPoint: ap(rsn: 0x188)) == .wpaPSK)
        #expect(ProfileKeyManagement(accessPoint: ap(rsn: 0x488)) == .sae, "WPA3-only")
        #expect(ProfileKeyManagement(accessPoint: ap(rsn: 0x588)) == .wpaPSK, "transition mode: PSK")
        #expect(ProfileKeyManagement(accessPoint: ap(flags: 0, rsn: 0)) == nil, "open")
        #expect(ProfileKeyManagement(accessPoint: ap(rsn: 0x288)) == nil, "enterprise")
        #expect(ProfileKeyManagement(accessPoint: ap(rsn: 0x888)) == nil, "OWE")
        #expect(ProfileKeyManagement(accessPoint: ap(rsn: 0)) == nil, "WEP")
    }
}

@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ProfileCallTests {
    @Test func addUpdateAndDeleteAnInMemoryProfileWithItsSecret() async throws {
        let nm = try await MockNetworkManager()
        try await nm.mock.addProfileMethods(nm.control)
        let client = NetworkManagerClient(connection: try nm.bus.connect())
        let spec = ProvisionedProfileSpec(ssid: bytes("Office"), keyManagement: .wpaPSK, password: "first-password", helper: "h")
        let path = try await client.addProfile(spec.settings(uuid: "6f1b0c52-1111-4000-8000-00000000c0de"), flags: .inMemory)
        #expect(try await nm.mock.profileSecret(nm.control, profile: path) == "first-password")
        #expect(try await nm.mock.profileWrites(nm.control, profile: path).map(\.flags) == [0x2])
        #expect(try await client.flags(of: path).contains(.unsaved))
        let listed = try await client.wifiProfiles()
        #expect(listed.count == 1 && listed.first?.isProvisioned == true && listed.first?.ssid == bytes("Office") && listed.first?.path == path)
        #expect(try await client.settings(of: path)["802-11-wireless-security"]?["psk"] == nil, "GetSettings carries no secret")

        var changed = spec
        changed.password = "second-password"
        try await client.updateProfile(path, changed.settings(uuid: "6f1b0c52-1111-4000-8000-00000000c0de"), flags: .inMemory)
        #expect(try await nm.mock.profileSecret(nm.control, profile: path) == "second-password")

        // Switching autoconnect off keeps it in memory (Update2 IN_MEMORY, never Update) and keeps the secret.
        try await client.setAutoconnect(false, connection: path)
        #expect(try await client.settings(of: path)["connection"]?["autoconnect"] == .bool(false))
        let methods = try await nm.calls(path).map(\.method)
        #expect(!methods.contains("Update"), "Update is Update2(TO_DISK) in NetworkManager: it would write the password to disk")
        #expect(try await nm.mock.profileWrites(nm.control, profile: path).map(\.flags) == [0x2, 0x2, 0x2])
        #expect(try await nm.mock.profileSecret(nm.control, profile: path) == "second-password")

        try await client.deleteProfile(path)
        #expect(try await client.wifiProfiles().isEmpty)
    }

    /// NetworkManager's own library (libnm, from network-manager) parses and verifies what the
    /// mock receives: the provisioned profile passes; what NetworkManager would refuse is refused.
    @Test(.enabled(if: dlopen("libnm.so.0", RTLD_LAZY) != nil, "needs libnm.so.0 (libnm0, installed with network-manager)"))
    func networkManagersLibraryAcceptsTheProfileAndRefusesBrokenOnes() async throws {
        let nm = try await MockNetworkManager()
        try await nm.mock.addProfileMethods(nm.control)
        let client = NetworkManagerClient(connection: try nm.bus.connect())
        for km in ProfileKeyManagement.allCases {
            let spec = ProvisionedProfileSpec(ssid: bytes("Caf\u{E9} 'quoted' \\ back"), keyManagement: km, password: "a-valid-passphrase", helper: "h\u{E9}'")
            _ = try await client.addProfile(spec.settings(uuid: "6f1b0c52-3333-4000-8000-00000000000\(km == .sae ? 1 : 2)"), flags: .inMemory)
        }
        var shortPassword = ProvisionedProfileSpec(ssid: bytes("Office"), keyManagement: .wpaPSK, password: "x", helper: "h")
            .settings(uuid: "6f1b0c52-3333-4000-8000-000000000003")
        await #expect { try await client.addProfile(shortPassword, flags: .inMemory) } throws: {
            $0.nmErrorName == "org.freedesktop.NetworkManager.Settings.Connection.InvalidProperty" && !"\($0)".contains("password: \"x\"")
        }
        shortPassword["802-11-wireless-security"]?["psk"] = .string("long-enough-now")
        shortPassword["connection"]?["autoconnect-priorty"] = .int32(1)
        await #expect("a misspelt property is refused, as NetworkManager's strict parsing does") {
            try await client.addProfile(shortPassword, flags: .inMemory)
        } throws: { "\($0)".contains("autoconnect-priorty") }
    }

    @Test func withoutNetworkManagerTheSecretGoesNowhereAndTheErrorDoesNotShowIt() async throws {
        let bus = try await PrivateBus()
        let client = NetworkManagerClient(connection: try bus.connect())
        let spec = ProvisionedProfileSpec(ssid: bytes("Office"), keyManagement: .wpaPSK, password: "do-not-show-me", helper: "h")
        do {
            _ = try await client.addProfile(spec.settings(uuid: "6f1b0c52-2222-4000-8000-00000000c0de"), flags: .inMemory)
            Issue.record("AddConnection2 succeeded with no NetworkManager")
        } catch {
            #expect(error.nmErrorName == "org.freedesktop.DBus.Error.ServiceUnknown", "\(error)")
            #expect(!"\(error)".contains("do-not-show-me"))
        }
    }

    @Test func aSavedProfileIsStillWrittenWithUpdateAndIsNotMarked() async throws {
        let nm = try await MockNetworkManager()
        try await nm.mock.addProfileMethods(nm.control)
        let device = try await nm.addWiFiDevice()
        _ = try await nm.addAccessPoint(device, "ap1", ssid: "Home", bssid: "0A:00:00:00:00:01", security: 0x100)
        let saved = try await nm.addWiFiConnection(device, "home", ssid: "Home")
        let client = NetworkManagerClient(connection: try nm.bus.connect())
        #expect(try await client.wifiProfiles().map(\.isProvisioned) == [false])
        try await client.setAutoconnect(false, connection: saved)
        #expect(try await nm.calls(saved).map(\.method).contains("Update"))
    }

    @Test func activeProfilesAreTheConnectionsOfActiveConnections() async throws {
        let nm = try await MockNetworkManager()
        let device = try await nm.addWiFiDevice()
        let ap = try await nm.addAccessPoint(device, "ap1", ssid: "Home", bssid: "0A:00:00:00:00:01")
        let saved = try await nm.addWiFiConnection(device, "home", ssid: "Home")
        let client = NetworkManagerClient(connection: try nm.bus.connect())
        #expect(try await client.activeProfiles().isEmpty)
        _ = try await nm.addActiveConnection(device, connection: saved, accessPoint: ap, name: "active1")
        #expect(try await client.activeProfiles() == [saved])
    }
}
