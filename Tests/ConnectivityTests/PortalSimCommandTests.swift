// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotTesting
import Foundation
import PortalSimulator
import Testing

/// `hotspot-portal-sim` as a program (the lab and the desktop tests run it so): every venue form
/// of the library is offered by `--venue`, listed in `--help`, and served over real HTTP.
@Suite struct PortalSimCommandTests {
    static var sim: String { TestKitPaths.product("hotspot-portal-sim").path }

    /// What only this venue's page has (before and after `/__sim/venue-change`).
    static func marks(_ v: VenueForm) -> (before: String, after: String) {
        switch v {
        case .hotel: (#"<label for="room">Room number</label> <input id="room" name="room" type="number""#, #"name="surname""#)
        case .voucher: (#"<input name="code" placeholder="Voucher code""#, #"action="/venue/login""#)
        case .cafe: (#"aria-label="E-mail address""#, #"name="terms" value="agreed""#)
        case .conference: (#"<select id="badge" name="badge">"#, #"<option value="speaker">"#)
        case .changingFields: (#"name="surname""#, #"name="last_name""#)
        case .otherHost: ("http://login.venue-other.test:", "http://login.venue-other.test:")
        case .movingHost: (#"action="/venue/login""#, "http://login.venue-other.test:")
        case .scripted: (#"onclick="signIn()""#, #"onclick="signIn()""#)
        case .hostileLabels: (#"type="password" name="pin""#, "\u{202E}edoc")
        case .manyFields: (#"name="f9999""#, #"name="f0""#)
        }
    }

    @Test(arguments: VenueForm.allCases)
    func everyVenueIsServedByItsName(venue: VenueForm) async throws {
        let portal = try await SimulatedPortal.start(mode: "venue", options: ["--venue", venue.rawValue])
        defer { portal.stop() }
        #expect(portal.process.output.contains("mode venue venue \(venue.rawValue)"), "\(portal.process.output)")
        let marks = Self.marks(venue)
        let page = String(decoding: try #require(await portal.get("/venue")), as: UTF8.self)
        #expect(page.contains(marks.before), "\(venue): \(page.prefix(600))")
        // Not the default's page (the hotel's; changing-fields is the hotel's form until it changes).
        if venue != .hotel && venue != .changingFields {
            #expect(!page.contains(Self.marks(.hotel).before), "\(venue) serves the hotel's form")
        }
        _ = await portal.get("/__sim/venue-change")
        let changed = String(decoding: try #require(await portal.get("/venue")), as: UTF8.self)
        #expect(changed.contains(marks.after), "\(venue) after /__sim/venue-change: \(changed.prefix(600))")
    }

    /// A probe on port 80 names no port in its Host header (as on a real network, the lab's): the
    /// venue's redirect and its form's other host carry none either.
    @Test func aProbeWithoutAPortIsSentToThePortalsHostWithoutOne() async throws {
        let portal = try await SimulatedPortal.start(mode: "venue", options: ["--venue", "other-host"])
        defer { portal.stop() }
        let base = "http://127.0.0.1:\(portal.port)"
        let probe = try await HTTPTransfer.perform(HTTPRequestSpec(url: base + "/check_network_status.txt", headers: ["Host: nmcheck.gnome.org"]),
                                                   options: TransferOptions()).get()
        #expect(probe.status == 302)
        #expect(probe.headers.first { $0.name.lowercased() == "location" }?.value == "http://portal.venue.test/venue", "\(probe.headers)")
        let page = try await HTTPTransfer.perform(HTTPRequestSpec(url: base + "/venue", headers: ["Host: portal.venue.test"]),
                                                  options: TransferOptions()).get()
        #expect(String(decoding: page.body, as: UTF8.self).contains(#"action="http://login.venue-other.test/venue/login""#))
    }

    @Test func venueAloneImpliesTheVenueModeAndHelpListsEveryVenue() async throws {
        let p = try ManagedProcess.launch(Self.sim, ["serve", "--venue", "cafe", "--listen", "127.0.0.1:0"], name: "hotspot-portal-sim --venue cafe")
        defer { p.stop() }
        #expect(await p.waitForOutput(containing: "venue cafe"), "\(p.output)")
        #expect(p.output.contains("mode venue"), "\(p.output)")

        let help = try await ManagedProcess.run(Self.sim, ["serve", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        for v in VenueForm.allCases {
            #expect(text.contains("\(v.rawValue) ("), "--help does not describe \(v.rawValue): \(help.stdout)")
        }
        #expect(text.contains("--venue <name>"), "\(help.stdout)")
    }

    @Test func anUnknownVenueOrAnotherModeIsRefusedWithTheChoices() async throws {
        let unknown = try await ManagedProcess.run(Self.sim, ["serve", "--venue", "spa", "--listen", "127.0.0.1:0"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("unknown venue 'spa'") && VenueForm.allCases.allSatisfy { unknown.stderr.contains($0.rawValue) },
                "\(unknown.stderr)")
        let mixed = try await ManagedProcess.run(Self.sim, ["serve", "--mode", "wispr", "--venue", "cafe", "--listen", "127.0.0.1:0"])
        #expect(mixed.status != 0)
        #expect(mixed.stderr.contains("--mode venue"), "\(mixed.stderr)")
    }
}
