// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import HotspotClient

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Probe connectivity on an interface now.")

    @OptionGroup var options: CommonOptions

    @Argument(help: "The interface (default: the only one, or the one that is associated).")
    var interface: String?

    struct Document: Encodable {
        var interface: String
        var report: ConnectivityReport
        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(interface, forKey: .interface)
        }
        enum Key: String, CodingKey { case interface }
    }

    func run() async throws {
        let client = try options.client()
        let (name, report) = try await request {
            let i = try await client.resolveInterface(interface, preferring: { $0.network != nil })
            return (i.name, try await client.checkConnectivity(at: i.path))
        }
        if options.json {
            print(Output.json(Document(interface: name, report: report)))
            return
        }
        print(Output.table(["INTERFACE", "CONNECTIVITY", "PORTAL", "EXPIRES", "REASON"],
                           [[name, report.connectivity, Output.dash(report.portalURL), Output.expiry(report.sessionExpires), Output.dash(report.reason)]]))
    }
}

/// What logoff and present-ui print.
struct ActionDocument: Encodable {
    var interface: String
    var action: String
    var network: String?
    var helper: String
}

struct Logoff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign out of the hotspot on an interface (the chosen helper sends logoff, then the device disconnects).",
        discussion: "Needs the polkit action org.freedesktop.NetworkManager.HotspotHelper.control.")

    @OptionGroup var options: CommonOptions

    @Argument(help: "The interface (default: the only one, or the one that is authenticated).")
    var interface: String?

    func run() async throws {
        let client = try options.client()
        let i = try await request {
            let i = try await client.resolveInterface(interface, preferring: { $0.state == "authenticated" })
            try await client.logoff(at: i.path)
            return i
        }
        if options.json {
            print(Output.json(ActionDocument(interface: i.name, action: "logoff", network: i.network?.name, helper: i.helper)))
        } else {
            print(Output.line("\(i.name): logging off\(i.network.map { " from \($0.name)" } ?? "")\(i.helper.isEmpty ? "" : " through \(i.helper)")"))
        }
    }
}

struct PresentUI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present-ui",
        abstract: "Tell the helper that needs you (state presenting-ui) that you are ready to sign in.",
        discussion: "Needs the polkit action org.freedesktop.NetworkManager.HotspotHelper.control. The session agent does this when you click \"Sign in\".")

    @OptionGroup var options: CommonOptions

    @Argument(help: "The interface (default: the only one, or the one presenting UI).")
    var interface: String?

    func run() async throws {
        let client = try options.client()
        let i = try await request {
            let i = try await client.resolveInterface(interface, preferring: { $0.state == "presenting-ui" })
            try await client.presentUI(at: i.path)
            return i
        }
        if options.json {
            print(Output.json(ActionDocument(interface: i.name, action: "present-ui", network: i.network?.name, helper: i.helper)))
        } else {
            print(Output.line("\(i.name): present-ui sent\(i.helper.isEmpty ? "" : " to \(i.helper)")\(i.portalURL.isEmpty ? "" : "; sign-in page \(i.portalURL)")"))
        }
    }
}

struct Forget: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget what the daemon learnt about a network: its helper, exclusions, and the autoconnect it switched off.",
        discussion: "Needs the polkit action org.freedesktop.NetworkManager.HotspotHelper.control.")

    @OptionGroup var options: CommonOptions

    @Flag(name: .long, help: "The SSID is given as hexadecimal bytes (for SSIDs that are not text).")
    var hex = false

    @Argument(help: "The network name (SSID).")
    var ssid: String

    func validate() throws {
        _ = try bytes()
    }

    func bytes() throws -> [UInt8] {
        var out: [UInt8]
        if hex {
            let digits = Array(ssid.filter { $0 != ":" && $0 != " " })
            guard digits.count % 2 == 0 else { throw ValidationError("--hex needs an even number of hexadecimal digits, got '\(ssid)'") }
            out = []
            for k in stride(from: 0, to: digits.count, by: 2) {
                guard let b = UInt8(String(digits[k...k + 1]), radix: 16) else { throw ValidationError("'\(ssid)' is not hexadecimal") }
                out.append(b)
            }
        } else {
            out = Array(ssid.utf8)
        }
        guard (1...32).contains(out.count) else { throw ValidationError("an SSID has 1 to 32 bytes; '\(ssid)' has \(out.count)") }
        return out
    }

    func run() async throws {
        let client = try options.client()
        let ssidBytes = try bytes()
        try await request { try await client.forget(ssid: ssidBytes) }
        let name = SSIDText.display(ssidBytes)
        if options.json {
            print(Output.json(["action": "forget", "ssid": name]))
        } else {
            print(Output.line("forgot \(name)"))
        }
    }
}
