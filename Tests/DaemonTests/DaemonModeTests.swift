// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotHelperKit
import HotspotProtocol
import HotspotTesting
import Testing

/// One scenario type, the daemon in either place: the same join signs in through
/// the same helper whether the daemon is a subprocess or runs in the test's process, and either
/// stops cleanly, releasing its name.
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct DaemonModeTests {
    @Test(arguments: [DaemonMode.subprocess, .inProcess])
    func aJoinSignsInAndTheDaemonStopsCleanly(mode: DaemonMode) async throws {
        let s = try await Scenario(mode: mode)
        #expect(s.daemon.mode == mode)
        _ = try await s.helper("Cafe", script: HelperScript(confidence: .high, results: [.authenticate: .success]))
        try await s.join("CityFree", accessPoint: "ap1")
        try await s.waitFor("authenticated")
        #expect(try await s.property("Helper") == .string("Cafe"))
        #expect(s.daemon.log.contains("interface wlan0 appeared"), "\(s.daemon.log.suffix(2000))")
        #expect(await s.daemon.stop() == 0, "\(s.daemon.log.suffix(2000))")
        try await s.bus.waitForNameGone(HotspotContract.busName.rawValue, timeout: .seconds(10))
        #expect(s.daemon.log.contains("shutting down"), "\(s.daemon.log.suffix(2000))")
    }
}
