// SPDX-License-Identifier: Apache-2.0
@testable import HotspotDaemon
import Testing

/// The keys of temporary-failure retries and join patience, and the global plain-http switch
/// they replaced.
@Suite struct RetryAndPatienceConfigurationTests {
    @Test func retriesAndPatienceAreReadIntoTheCoreAndTheMonitor() throws {
        let text = "[daemon]\nauthenticate-retries=2\nauthenticate-retry-delay=0.5\nauthenticate-retry-window=30\n[connectivity]\njoin-patience=7.5\n"
        let c = try DaemonConfiguration.parse(Array(text.utf8), path: "t.conf")
        #expect(c.core.authenticateRetries == 2)
        #expect(c.core.authenticateRetryDelay == .milliseconds(500))
        #expect(c.core.authenticateRetryWindow == .seconds(30))
        #expect(c.connectivity.joinPatience == .milliseconds(7500))
        #expect(c.unknownKeys.isEmpty)
        let defaults = try DaemonConfiguration.parse([], path: "empty.conf")
        #expect(defaults.core.authenticateRetries == 4 && defaults.connectivity.joinPatience == .seconds(20))
    }

    @Test func aBadRetryCountIsRefusedWithTheFix() {
        #expect {
            try DaemonConfiguration.parse(Array("[daemon]\nauthenticate-retries=lots\n".utf8), path: "t.conf")
        } throws: { error in
            "\(error)".contains("t.conf:2: [daemon] authenticate-retries is not a whole number from 0 to 100")
        }
    }

    @Test func theGlobalPlainHTTPSwitchIsNoLongerReadAndSaysSo() throws {
        let c = try DaemonConfiguration.parse(Array("[connectivity]\nallow-plain-http-login=true\n".utf8), path: "t.conf")
        #expect(c.warnings.contains { $0.contains("allow-plain-http-login is no longer read") && $0.contains("plain-http-login=true") }, "\(c.warnings)")
    }
}
