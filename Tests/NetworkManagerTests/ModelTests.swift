// SPDX-License-Identifier: Apache-2.0
import DBus
import NetworkManager
import Testing

/// The pure parts: security classification and value decoding.
struct ModelTests {
    @Test(arguments: [
        // (flags, wpa, rsn, expected)
        (0x0 as UInt32, 0x0 as UInt32, 0x0 as UInt32, NetworkSecurity.open),
        (0x1, 0x0, 0x0, .wep),
        (0x1, 0x0, 0x188, .personal),              // WPA2-PSK, CCMP
        (0x1, 0x0, 0x488, .personal),              // WPA3-SAE
        (0x1, 0x144, 0x188, .personal),            // WPA/WPA2 mixed
        (0x1, 0x0, 0x288, .enterprise),            // WPA2-Enterprise
        (0x1, 0x0, 0x388, .enterprise),            // PSK and 802.1X: enterprise wins
        (0x1, 0x0, 0x2088, .enterprise),           // Suite-B-192
        (0x1, 0x0, 0x888, .enhancedOpen),          // OWE
        (0x0, 0x0, 0x1000, .open),                 // the open half of an OWE transition pair
        (0x1, 0x0, 0x88, .personal),               // ciphers without a known key management
    ])
    func securityFollowsTheDocumentedFlagRules(flags: UInt32, wpa: UInt32, rsn: UInt32, expected: NetworkSecurity) {
        let security = NetworkSecurity(flags: AccessPointFlags(rawValue: flags), wpaFlags: AccessPointSecurityFlags(rawValue: wpa),
                                       rsnFlags: AccessPointSecurityFlags(rawValue: rsn))
        #expect(security == expected)
        #expect(security.isSecure == (expected != .open))
    }

    @Test func enhancedOpenIsSecureButNeedsNoCredentials() {
        #expect(NetworkSecurity.enhancedOpen.isSecure)
        #expect(!NetworkSecurity.enhancedOpen.requiresCredentials)
        #expect(NetworkSecurity.personal.requiresCredentials)
        #expect(!NetworkSecurity.open.requiresCredentials)
    }

    @Test func profileKeyManagementMapsToTheSameClasses() {
        #expect(NetworkSecurity(keyManagement: nil) == .open)
        #expect(NetworkSecurity(keyManagement: "none") == .wep)
        #expect(NetworkSecurity(keyManagement: "wpa-psk") == .personal)
        #expect(NetworkSecurity(keyManagement: "sae") == .personal)
        #expect(NetworkSecurity(keyManagement: "owe") == .enhancedOpen)
        #expect(NetworkSecurity(keyManagement: "wpa-eap") == .enterprise)
    }

    @Test func connectivityRanksPortalAboveLimited() {
        #expect(Connectivity.portal.rank > Connectivity.limited.rank)
        #expect(Connectivity.full.rank > Connectivity.portal.rank)
        #expect(Connectivity(nmValue: 99) == .unknown)
    }

    @Test func strengthIsClampedAndNonUTF8SSIDsHaveNoText() {
        let ap = AccessPoint(path: "/ap", ssid: [0xff, 0x00, 0x41], bssid: "02:00:00:00:00:01", strength: 250)
        #expect(ap.strength == 100)
        #expect(ap.ssidText == nil)
        #expect(ap.description.contains("<3 bytes>"))
    }

    @Test func secretRequestDescriptionsNameOnlyTheProfile() {
        let request = SecretRequest(settings: ["802-11-wireless-security": ["psk": .string("hunter2")]],
                                    connectionPath: "/org/freedesktop/NetworkManager/Settings/3",
                                    settingName: "802-11-wireless-security", hints: [], flags: 0x2)
        #expect(!request.description.contains("hunter2"))
        #expect(request.requestsNewSecret)
    }
}
