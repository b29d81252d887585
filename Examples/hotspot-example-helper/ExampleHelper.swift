// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import DBus
import Foundation
import HotspotHelperKit
import Synchronization

/// An example hotspot helper built on HotspotHelperKit: it claims the networks it is told about,
/// supplies their passwords, and answers every command as scripted on the command line. It is
/// what the demo runs, and a starting point for a helper of your own.
@main
struct ExampleHelper: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotspot-example-helper",
        abstract: "An example hotspot helper: claims networks, supplies passwords, answers commands as scripted.",
        discussion: """
        Registers with hotspot-helperd on the system bus (DBUS_SYSTEM_BUS_ADDRESS overrides it) and \
        prints every command it receives with its answer. Example:

          hotspot-example-helper --display-name "Coffee Wi-Fi" --network "CoffeeShop=espresso42" --network CityFree
        """)

    @Option(help: "The name shown beside claimed networks (at most 15 characters advised).")
    var displayName = "Example Helper"

    @Option(help: "A stable identifier (defaults to the display name).")
    var identifier: String?

    @Option(help: "Why this helper wants to see Wi-Fi networks, shown in the authorization dialog (required unless run as root).")
    var purpose = "Demonstrates the hotspot helper protocol"

    @Flag(help: "Never let registering ask for authorization in a dialog (for helpers that run unattended): refused at once instead.")
    var noInteraction = false

    @Option(name: .customLong("network"), help: "A network to claim, as SSID or SSID=password (repeatable). A trailing * matches a prefix.")
    var networks: [String] = []

    @Option(help: "Confidence for claimed networks when evaluating: none, low or high.")
    var confidence = "high"

    @Option(help: "Result for authenticate.")
    var authenticate = "success"

    @Option(help: "Result for maintain.")
    var maintain = "success"

    @Option(help: "Result for present-ui.")
    var presentUI = "success"

    @Option(help: "Milliseconds to wait before answering each command.")
    var delayMs = 0

    @Option(help: "Never answer this command (repeatable), to see the daemon's deadlines at work.")
    var hang: [String] = []

    func result(_ text: String) throws -> HotspotHelperResult {
        guard let r = HotspotHelperResult(rawValue: text) else {
            throw ValidationError("unknown result '\(text)' (expected: \(HotspotHelperResult.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return r
    }

    func run() async throws {
        guard let confidenceLevel = HotspotHelperConfidence(rawValue: confidence) else {
            throw ValidationError("unknown confidence '\(confidence)' (none, low, high)")
        }
        let results: [HotspotHelperCommandType: HotspotHelperResult] = [
            .authenticate: try result(authenticate), .maintain: try result(maintain), .presentUI: try result(presentUI), .logoff: .success,
        ]
        let claims = networks.map { spec -> (pattern: String, password: String?) in
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : nil)
        }
        @Sendable func claim(_ network: HotspotNetwork) -> (pattern: String, password: String?)? {
            claims.first { c in c.pattern.hasSuffix("*") ? network.ssid.hasPrefix(String(c.pattern.dropLast())) : network.ssid == c.pattern }
        }
        let delay = delayMs
        let hung = try Set(hang.map { name -> HotspotHelperCommandType in
            guard let c = HotspotHelperCommandType(rawValue: name) else {
                throw ValidationError("unknown command '\(name)' (expected: \(HotspotHelperCommandType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return c
        })
        let unanswered = Unanswered()
        let say: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data(("[\(displayName)] " + $0 + "\n").utf8)) }

        let helper = try await HotspotHelper.register(
            options: HotspotHelperOptions(displayName: displayName, identifier: identifier, purpose: purpose,
                                 allowsInteractiveAuthorization: !noInteraction)) { command in
            if hung.contains(command.commandType) {
                unanswered.keep(command)
                // The handler runs on the helper's bus thread: a write to a full pipe must not block it.
                let line = "\(command.commandType.rawValue) \(command.network?.ssid ?? ""): not answering (--hang)"
                Task { say(line) }
                return
            }
            Task {
                if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
                switch command.commandType {
                case .filterScanList:
                    let claimed = (command.networkList ?? []).filter { n in
                        guard let c = claim(n) else { return false }
                        n.setConfidence(confidenceLevel)
                        if let p = c.password { n.setPassword(p) }
                        return true
                    }
                    let response = command.createResponse(.success)
                    response.setNetworkList(claimed)
                    response.deliver()
                    say("filter-scan-list: claimed \(claimed.map(\.ssid).sorted()) of \(command.networkList?.count ?? 0) networks")
                case .evaluate:
                    let network = command.network
                    let level: HotspotHelperConfidence = network.flatMap(claim) != nil ? confidenceLevel : .none
                    network?.setConfidence(level)
                    let response = command.createResponse(.success)
                    if let network { response.setNetwork(network) }
                    response.deliver()
                    say("evaluate \(network?.ssid ?? "?"): confidence \(level.rawValue)")
                default:
                    let r = results[command.commandType] ?? .commandNotRecognized
                    command.createResponse(r).deliver()
                    say("\(command.commandType.rawValue) \(command.network?.ssid ?? ""): \(r.rawValue)")
                }
            }
        }
        say("registered as \(helper.options.displayName) on \(helper.connection.uniqueName)")
        _ = await helper.connection.disconnection()
    }
}


/// Commands left unanswered on purpose (an unanswered command whose last reference goes away is
/// answered command-not-recognized by HotspotHelperKit).
final class Unanswered: Sendable {
    private let commands = Mutex<[HotspotHelperCommand]>([])
    func keep(_ c: HotspotHelperCommand) { commands.withLock { $0.append(c) } }
}
