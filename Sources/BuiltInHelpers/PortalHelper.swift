// SPDX-License-Identifier: Apache-2.0
import Connectivity
import FoundationEssentials
import HotspotCore
import HotspotHelperKit

/// The built-in portal helper (`builtin.portal`, "Portal"): claims open networks where the daemon
/// sees a captive portal, with low confidence, so any helper that knows the network wins.
/// Authenticate accepts a pure click-through terms page and otherwise asks for the user
/// (ui-required); present-ui waits until the user has signed in with a browser; maintain answers
/// authentication-required when the portal has come back.
public final class PortalHelper: Sendable {
    /// The registration options (no filter-scan-list: it cannot tell portals before joining).
    public static let options = HotspotHelperOptions(displayName: "Portal", identifier: "builtin.portal",
                                                     commands: [.evaluate, .authenticate, .presentUI, .maintain, .logoff])

    let signIn: PortalSignIn
    let log: @Sendable (String) -> Void

    /// A helper; `log` receives one line per decision.
    public init(environment: any PortalEnvironment, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.signIn = PortalSignIn(environment: environment)
        self.log = log
    }

    /// The most confidence it answers evaluate with (``confidence(isSecure:verdict:)``): the daemon
    /// does not wait for its verdict once another helper has claimed the network.
    public static let highestConfidence = Confidence.low

    /// The evaluate answer for a network with the daemon's verdict: low for an open network behind
    /// a portal, none otherwise.
    public static func confidence(isSecure: Bool, verdict: ProbeVerdict) -> Confidence {
        !isSecure && verdict.state == .portal ? .low : .none
    }

    /// Handles one command from the daemon.
    public func handle(_ command: HotspotHelperCommand) {
        Task {
            switch command.commandType {
            case .evaluate:
                guard let n = command.network else { return command.createResponse(.failure).deliver() }
                if !n.isSecure {
                    let verdict = await signIn.environment.verdict(for: command.interface, fresh: false)
                    n.setConfidence(Self.confidence(isSecure: n.isSecure, verdict: verdict))
                }
                let r = command.createResponse(.success)
                r.setNetwork(n)
                r.deliver()
            case .authenticate:
                let (result, reason) = await authenticate(command)
                let r = command.createResponse(result)
                if let reason { r.setReason(reason) }
                r.deliver()
            case .presentUI:
                command.createResponse(await Self.waitForUser(command, environment: signIn.environment)).deliver()
            case .maintain:
                let verdict = await signIn.environment.verdict(for: command.interface, fresh: true)
                command.createResponse(verdict.state == .portal ? .authenticationRequired : verdict.state == .online ? .success : .failure).deliver()
            case .logoff, .filterScanList:
                command.createResponse(.success).deliver()
            }
        }
    }

    /// Accepts a click-through portal's terms; the reason says why it left the sign-in to the user.
    func authenticate(_ command: HotspotHelperCommand) async -> (CommandResult, String?) {
        let verdict = await signIn.environment.verdict(for: command.interface, fresh: false)
        switch verdict.state {
        case .online: return (.success, nil)
        case .none, .partial: return (.temporaryFailure, "no portal reachable (\(verdict.state.rawValue)); trying again later")
        case .portal: break
        }
        guard verdict.wispr == nil, let url = verdict.signInURL else {
            let what = verdict.wispr != nil ? "a WISPr gateway needs credentials" : "the portal gave no sign-in page"
            log("\(command.interface): \(what); asking the user")
            return (.uiRequired, "\(what); a person has to sign in")
        }
        let outcome = await signIn.acceptTerms(at: url, interface: command.interface, requireClickThrough: true)
        log("\(command.interface): portal at \(url): \(outcome)")
        guard case .signedIn = outcome else { return (.uiRequired, outcome.reason) }
        let after = await signIn.environment.verdict(for: command.interface, fresh: true)
        return after.state == .online ? (.success, nil) : (.uiRequired, "the terms were accepted but the portal still intercepts")
    }

    /// present-ui: the user is signing in with a browser; answer success once the link is online,
    /// temporary-failure when the deadline (or 10 minutes) passes first.
    static func waitForUser(_ command: HotspotHelperCommand, environment: any PortalEnvironment) async -> CommandResult {
        let limit = ContinuousClock.now + (command.deadline.map { $0 - .milliseconds(500) } ?? .seconds(600))
        while ContinuousClock.now < limit {
            if await environment.verdict(for: command.interface, fresh: true).state == .online { return .success }
            try? await Task.sleep(for: .seconds(1))
        }
        return .temporaryFailure
    }
}
