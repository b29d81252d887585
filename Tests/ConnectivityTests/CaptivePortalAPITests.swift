// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import Connectivity

@Suite struct CaptivePortalDocumentTests {
    func parse(_ s: String) -> Result<CaptivePortalStatus, CaptivePortalAPIError> { CaptivePortalAPIDocument.parse(Data(s.utf8)) }
    func kind(_ s: String) -> CaptivePortalAPIError.Kind? {
        if case .failure(let e) = parse(s) { return e.kind }
        return nil
    }

    @Test func rfc8908ExampleCaptive() throws {
        let s = try parse(#"{"captive": true, "user-portal-url": "https://example.org/portal.html"}"#).get()
        #expect(s.captive)
        #expect(s.userPortalURL == "https://example.org/portal.html")
    }

    @Test func rfc8908ExampleAfterLoginWithEveryKey() throws {
        let s = try parse("""
        {"captive": false, "user-portal-url": "https://example.org/portal.html",
         "venue-info-url": "https://flight.example.com/entertainment", "seconds-remaining": 326,
         "bytes-remaining": 65536, "can-extend-session": true, "x-vendor": {"a": [1, null]}}
        """).get()
        #expect(!s.captive)
        #expect(s.venueInfoURL == "https://flight.example.com/entertainment")
        #expect(s.secondsRemaining == 326)
        #expect(s.bytesRemaining == 65536)
        #expect(s.canExtendSession == true)
    }

    @Test func optionalKeysMayBeMissing() throws {
        let s = try parse(#"{"captive": false}"#).get()
        #expect(s.userPortalURL == nil && s.secondsRemaining == nil && s.canExtendSession == nil)
    }

    @Test func remainingValuesAreDroppedWhileCaptive() throws {
        let s = try parse(#"{"captive": true, "user-portal-url": "https://p/", "seconds-remaining": 10, "bytes-remaining": 5}"#).get()
        #expect(s.secondsRemaining == nil && s.bytesRemaining == nil)
    }

    @Test func invalidDocumentsAreRejectedWithAReason() {
        #expect(kind(#"{"user-portal-url": "https://p/"}"#) == .missingCaptive)
        #expect(kind(#"{"captive": "yes"}"#) == .missingCaptive)
        #expect(kind(#"{"captive": 1}"#) == .missingCaptive)
        #expect(kind(#"{"captive": true, "user-portal-url": "http://capport.example.com"}"#) == .invalidURL)
        #expect(kind(#"{"captive": false, "user-portal-url": "file:///etc/passwd"}"#) == .invalidURL)
        #expect(kind(#"{"captive": false, "venue-info-url": "not a url"}"#) == .invalidURL)
        #expect(kind(#"{"captive": true}"#) == .missingPortalURL)
        #expect(kind(#"{"captive": false, "seconds-remaining": -1}"#) == .negativeRemaining)
        #expect(kind(#"{"captive": false, "bytes-remaining": -100}"#) == .negativeRemaining)
        #expect(kind(#"{"captive": false, "seconds-remaining": "10"}"#) == .wrongType)
        #expect(kind(#"{"captive": false, "can-extend-session": "true"}"#) == .wrongType)
        #expect(kind("{SomeInvalidText") == .notJSON)
        #expect(kind("[true]") == .notJSON)
        #expect(kind("") == .notJSON)
        #expect(kind(String(repeating: " ", count: 70_000) + "{}") == .notJSON)
    }

    @Test func maintainRunsBeforeExpiry() {
        let live = CaptivePortalStatus(captive: false, secondsRemaining: 326)
        #expect(MaintainSchedule.delay(for: live) == .seconds(266))
        #expect(MaintainSchedule.delay(for: CaptivePortalStatus(captive: false, secondsRemaining: 6)) == .seconds(4))
        #expect(MaintainSchedule.delay(for: CaptivePortalStatus(captive: false, secondsRemaining: 3600)) == .seconds(300), "never later than the fallback")
        #expect(MaintainSchedule.delay(for: live, elapsedSinceAnswer: .seconds(330)) == .milliseconds(500), "overdue: as soon as possible")
        #expect(MaintainSchedule.delay(for: CaptivePortalStatus(captive: false)) == .seconds(300))
        for s in [2, 5, 10, 30, 60, 120, 240] {
            let d = MaintainSchedule.delay(for: CaptivePortalStatus(captive: false, secondsRemaining: Int64(s)))
            #expect(d < .seconds(s), "maintain at \(d) for \(s) s remaining")
        }
    }

    @Test func clientRefusesAnHTTPAPIURLWithoutAnyRequest() async {
        let c = CaptivePortalAPIClient(url: "http://capport.example.com/api")
        let a = await c.fetch(interface: nil, dnsServers: [])
        #expect(a.status == nil)
        #expect(a.error?.kind == .insecureAPIURL)
    }
}
