// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
@testable import HotspotDaemon
import NetworkManager
import Testing

/// The core's ``ProfilePlan`` over NetworkManager's profiles: the password rules are
/// NetworkManager's, the order is its settings paths'.
@Suite struct ProfilePlanOverNetworkManagerTests {
    static func spec(_ ssid: String, _ password: String) -> ProvisionedProfileSpec {
        ProvisionedProfileSpec(ssid: Array(ssid.utf8), keyManagement: .wpaPSK, password: password, helper: "h1")
    }
    static func held(_ n: Int, _ ssid: String) -> HeldProfile {
        HeldProfile(path: try! ObjectPath("/org/freedesktop/NetworkManager/Settings/\(n)"), uuid: "uuid-\(n)", id: ssid,
                    ssid: Array(ssid.utf8), isProvisioned: true)
    }

    @Test func aPasswordNetworkManagerWouldRefuseIsNotProvisioned() {
        let plan = { (password: String) in
            NetworkManagerProfilePlan(wanted: [Self.spec("Cafe", password)], held: [], written: [:], declined: [], active: [], adopting: false).actions
        }
        #expect(plan("short").isEmpty)
        #expect(plan("password\u{7}ctl").isEmpty, "a control character")
        #expect(plan("password-1") == [.add(Self.spec("Cafe", "password-1"))])
    }

    @Test func shutdownWithdrawsInSettingsPathOrderWhatIsNotInUse() {
        let a = Self.held(2, "Cafe"), b = Self.held(1, "Bar"), c = Self.held(3, "Home")
        #expect(NetworkManagerProfilePlan.withdrawAll(held: [a, b, c], active: [c.path]) == [.delete(b, .shutdown), .delete(a, .shutdown)])
    }
}
