// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import HotspotClient
import HotspotProtocol

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show each Wi-Fi interface: state, network, helper, connectivity, portal and session expiry.")

    @OptionGroup var options: CommonOptions

    struct Document: Encodable {
        var version: String
        var status: String
        var helpers: [HelperSnapshot]
        var interfaces: [InterfaceSnapshot]
        var probePolicy: String

        enum CodingKeys: String, CodingKey { case version, status, helpers, interfaces, probePolicy = "probe-policy" }
    }

    func run() async throws {
        let client = try options.client()
        let (manager, interfaces) = try await request {
            let m = try await client.manager()
            var list: [InterfaceSnapshot] = []
            for path in m.interfaces { list.append(try await client.interface(at: path)) }
            return (m, list)
        }
        if options.json {
            print(Output.json(Document(version: manager.version, status: manager.status, helpers: manager.helpers, interfaces: interfaces,
                                      probePolicy: manager.probePolicy)))
            return
        }
        print(Output.line("hotspot-helperd \(manager.version): \(manager.status), \(manager.helpers.count) helper\(manager.helpers.count == 1 ? "" : "s") registered"))
        if !manager.probePolicy.isEmpty { print(Output.line(manager.probePolicy)) }
        guard !interfaces.isEmpty else {
            print("no Wi-Fi interfaces")
            return
        }
        let checking = !manager.probePolicy.hasPrefix("no probes")
        // Joined and checked, yet no verdict: the daemon is still repeating checks a slow gateway
        // refused or left unanswered (docs/CONNECTIVITY.md, "Patience").
        func pending(_ i: InterfaceSnapshot) -> Bool { checking && i.network != nil && i.state != "inactive" && i.connectivity == "unknown" }
        let rows = interfaces.map { i in
            [i.name, i.state, Output.dash(i.network?.name ?? ""), Output.dash(Output.shown(i.network?.bssid ?? "")), Output.dash(Output.shown(i.helper)),
             pending(i) ? "pending" : Output.dash(i.connectivity), Output.dash(Output.shown(i.portalURL)), Output.expiry(i.sessionExpires)]
        }
        print(Output.table(["INTERFACE", "STATE", "NETWORK", "BSSID", "HELPER", "CONNECTIVITY", "PORTAL", "EXPIRES"], rows))
        for i in interfaces where !i.venueInfoURL.isEmpty { print("\(i.name): venue information \(Output.shown(i.venueInfoURL))") }
        for i in interfaces where pending(i) { print("\(i.name): connectivity verdict pending: checks are repeated until the gateway answers") }
        // The helper's words, as the daemon escaped and capped them; the daemon's own start with its name.
        for i in interfaces where !i.reason.isEmpty {
            print(Output.line(i.reason.hasPrefix(HotspotContract.explanationMark) ? "\(i.name): \(i.reason)" : "\(i.name): \(Output.dash(i.helper)) says: \(i.reason)"))
        }
        // What the user must do, for a session where no notification says it (no notification
        // server, a terminal): the agent's prompt in words.
        for i in interfaces where i.state == "presenting-ui" {
            let network = Output.shown(i.network?.name ?? "")
            print(Output.line("\(i.name): \(i.helper.isEmpty ? "a hotspot helper" : Output.shown(i.helper)) needs you to sign in to \(network.isEmpty ? "this network" : network): run "
                + "hotspotctl sign-in \(i.name) (the portal's form, here), or hotspotctl present-ui \(i.name) and open the portal's page"))
        }
    }
}

struct Helpers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the registered helpers.")

    @OptionGroup var options: CommonOptions

    func run() async throws {
        let client = try options.client()
        let helpers = try await request { try await client.manager().helpers }
        if options.json {
            print(Output.json(helpers))
        } else if helpers.isEmpty {
            print("no helpers registered")
        } else {
            print(Output.table(["IDENTIFIER", "NAME", "STATE", "COMMANDS VIA", "PURPOSE"],
                               helpers.map { [$0.identifier, $0.displayName, $0.state, Output.dash($0.commandsVia), Output.dash($0.purpose)] }))
        }
    }
}

struct Networks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the Wi-Fi networks in range, annotated by the helpers that claim them.",
        discussion: "Needs the polkit action org.freedesktop.NetworkManager.HotspotHelper.read-scan-list (network names and access point addresses reveal where you are).")

    @OptionGroup var options: CommonOptions

    @Argument(help: "The interface (default: every Wi-Fi interface).")
    var interface: String?

    struct Row: Encodable {
        var interface: String
        var entry: ScanEntry
        func encode(to encoder: any Encoder) throws {
            try entry.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(interface, forKey: .interface)
        }
        enum Key: String, CodingKey { case interface }
    }

    func run() async throws {
        let client = try options.client()
        let rows: [Row] = try await request {
            let targets = interface == nil ? try await client.interfaces() : [try await client.resolveInterface(interface)]
            var rows: [Row] = []
            for i in targets {
                rows += try await client.scanList(at: i.path).sorted { $0.strength > $1.strength }.map { Row(interface: i.name, entry: $0) }
            }
            return rows
        }
        if options.json {
            print(Output.json(rows))
        } else if rows.isEmpty {
            print("no Wi-Fi networks in range")
        } else {
            print(Output.table(["INTERFACE", "SSID", "BSSID", "SIGNAL", "SECURITY", "HELPER", "PASSWORD"], rows.map { r in
                [r.interface, r.entry.name, Output.shown(r.entry.bssid), "\(Int((r.entry.strength * 100).rounded()))", r.entry.secure ? "secured" : "open",
                 Output.dash(Output.shown(r.entry.displayName)), r.entry.hasPassword ? "stored" : "--"]
            }))
        }
    }
}
