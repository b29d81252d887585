// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotCore
@testable import HotspotDaemon
import HotspotHelperKit
import HotspotProtocol
import Logging
import NetworkManager
import Synchronization
import Testing

/// What a beacon flood and a helper's display name can do to NetworkManager's profiles: one
/// helper claiming every `Hotel-` network (as a profile with `ssid-prefix=Hotel-` does) while a
/// cheap device broadcasts Hotel-1 … Hotel-120 gets at most 32 profiles, only for networks seen
/// repeatedly, withdrawn once unseen; a display name with markup never becomes a `connection.id`.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct ProvisioningBoundsTests {
    static let password = "hotel-guest-pw"
    static let flood = (1...120).map { Scenario.AP(name: "hotel\($0)", ssid: "Hotel-\($0)", bssid: String(format: "0B:00:00:00:%02X:%02X", $0 / 256, $0 % 256),
                                                  secure: true) }

    /// A helper claiming, with a password, every network whose SSID starts with `prefix`, naming
    /// them with `name` (the SSID when nil).
    static func prefixHelper(_ s: Scenario, prefix: String, name: (@Sendable (String) -> String)? = nil) async throws -> HotspotHelper {
        try await HotspotHelper.register(options: HotspotHelperOptions(displayName: "Hotel Guest", identifier: "com.example.hotel"),
                                         connection: try s.bus.connect()) { command in
            guard command.commandType == .filterScanList else { command.createResponse(.success).deliver(); return }
            let claimed = (command.networkList ?? []).filter { $0.ssid.hasPrefix(prefix) }
            for n in claimed {
                n.setConfidence(.high)
                n.setPassword(Self.password)
                if let name { n.setDisplayName(name(n.ssid)) }
            }
            let r = command.createResponse(.success)
            r.setNetworkList(claimed)
            r.deliver()
        }
    }

    static func marked(_ s: Scenario) async throws -> [HeldProfile] {
        try await NetworkManagerClient(connection: s.client).wifiProfiles().filter(\.isProvisioned)
    }

    @Test func aBeaconFloodOf120NetworksGetsAtMost32ProfilesAndALogLine() async throws {
        let s = try await Scenario(accessPoints: Self.flood)
        try await s.nm.addProfileMethods(s.client)
        let helper = try await Self.prefixHelper(s, prefix: "Hotel-")
        try await s.waitUntil("32 profiles and the refusal in the log") {
            try await Self.marked(s).count == ProfileProvisioner.defaultMaximumPerSource
                && s.daemon.log.contains("more networks than the 32 profiles one helper may have")
        }
        #expect(s.daemon.log.contains("supplies passwords for 88 more networks"), "\(s.daemon.log.suffix(3000))")
        let profiles = try await Self.marked(s)
        #expect(profiles.count == 32, "\(profiles.count) profiles")
        #expect(Set(profiles.map(\.ssid)).count == 32)
        #expect(!s.daemon.log.contains(Self.password), "the daemon logged the password")
        withExtendedLifetime(helper) {}
    }

    @Test func aDisplayNameWithMarkupNeverBecomesAProfilesName() async throws {
        let s = try await Scenario()
        try await s.nm.addProfileMethods(s.client)
        let helper = try await Self.prefixHelper(s, prefix: "CoffeeShop", name: { _ in "<span foreground=\"red\">Free</span> Coffee & Tea" })
        try await s.waitUntil("a profile for CoffeeShop") { try await !Self.marked(s).isEmpty }
        let profile = try #require(try await Self.marked(s).first)
        let settings = try await NetworkManagerClient(connection: s.client).settings(of: profile.path)
        #expect(settings["connection"]?["id"] == .string("Free Coffee \u{FF06} Tea"), "\(String(describing: settings["connection"]?["id"]))")
        withExtendedLifetime(helper) {}
    }

    // MARK: - The provisioner alone: sightings and expiry, on a clock the test can outwait

    static func accessPoints(_ n: Int) -> [AccessPoint] {
        (1...n).map { i in
            AccessPoint(path: try! ObjectPath("/org/freedesktop/NetworkManager/AccessPoint/\(i)"), ssid: Array("Hotel-\(i)".utf8),
                        bssid: String(format: "0B:00:00:00:%02X:%02X", i / 256, i % 256), strength: 60, flags: .privacy,
                        rsnFlags: [.keyManagementPSK, .pairCCMP, .groupCCMP])
        }
    }

    static func claims(_ aps: [AccessPoint]) -> (RegisteredHelper, [Network], [ScanClaim]) {
        let helper = RegisteredHelper(identifier: HelperID("com.example.hotel"), displayName: "Hotel Guest", commands: Set(CommandType.allCases),
                                      registrationOrder: 1)
        let networks = aps.map { Network(ssid: SSID(bytes: $0.ssid), bssid: $0.bssid, securityClass: .personal) }
        return (helper, networks, networks.map { ScanClaim(ssid: $0.ssid, confidence: .high, password: Password(Self.password)) })
    }

    @Test func aNetworkGetsAProfileOnlyOnceSeenRepeatedlyAndLosesItOnceUnseen() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        // The sightings' own clock: a busy machine's late wake-ups must not decide what expired.
        let time = Mutex(ContinuousClock.now)
        let provisioner = ProfileProvisioner(client: NetworkManagerClient(connection: try bus.connect()), log: Logger(label: "test"),
                                             sightingSpan: .milliseconds(300), unseenExpiry: .seconds(3), clock: { time.withLock { $0 } })
        let aps = Self.accessPoints(120)
        let (helper, networks, claims) = Self.claims(aps)
        await provisioner.accessPointsSeen(aps)
        await provisioner.helperAnswered(helper, asked: networks, claims: claims)
        #expect(await provisioner.wanted().isEmpty, "a network seen once, in one burst of beacons, gets no profile")
        // Seen again, at least the span later: at most 32 of them, the same 32 each time.
        time.withLock { $0 += .milliseconds(350) }
        await provisioner.accessPointsSeen(aps)
        let wanted = await provisioner.wanted()
        #expect(wanted.count == 32)
        #expect(wanted.allSatisfy { $0.password == Self.password && $0.helper == "com.example.hotel" })
        #expect(Set(await provisioner.wanted().map(\.ssid)) == Set(wanted.map(\.ssid)))
        // Five of them stay in range; the others are not seen for longer than the expiry.
        let staying = Array(aps.prefix(5))
        time.withLock { $0 += .milliseconds(1600) }
        await provisioner.accessPointsSeen(staying)
        time.withLock { $0 += .milliseconds(1600) }
        await provisioner.accessPointsSeen(staying)
        #expect(Set(await provisioner.wanted().map(\.ssid)) == Set(staying.map(\.ssid)), "only the networks still seen keep a profile")
    }

    @Test func theBoundIsPerHelper() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let provisioner = ProfileProvisioner(client: NetworkManagerClient(connection: try bus.connect()), log: Logger(label: "test"),
                                             sightingSpan: .zero)
        let aps = Self.accessPoints(40)
        await provisioner.accessPointsSeen(aps)
        let (hotel, networks, claims) = Self.claims(Array(aps.prefix(30)))
        await provisioner.helperAnswered(hotel, asked: networks, claims: claims)
        let other = RegisteredHelper(identifier: HelperID("com.example.other"), displayName: "Other", commands: Set(CommandType.allCases),
                                     registrationOrder: 2)
        let rest = aps.suffix(10).map { Network(ssid: SSID(bytes: $0.ssid), bssid: $0.bssid, securityClass: .personal) }
        await provisioner.helperAnswered(other, asked: rest, claims: rest.map { ScanClaim(ssid: $0.ssid, confidence: .high, password: Password("other-pass")) })
        #expect(await provisioner.wanted().count == 40, "30 and 10: each helper under its bound")
    }
}
