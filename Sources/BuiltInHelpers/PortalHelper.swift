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
    /// Where a form for the user goes when it answers ui-required (the daemon publishes it).
    let forms: SignInForms?
    /// The sign-ins users asked to remember, used before asking again.
    let remembered: RememberedSignIns?
    /// Whether an administrator's profile signs in to a network (the profiles helper's): then it
    /// is that helper's network, whatever the cache remembers of an earlier join.
    let profileSignsIn: @Sendable (SSID) -> Bool

    /// A helper; `log` receives one line per decision.
    public init(environment: any PortalEnvironment, forms: SignInForms? = nil, remembered: RememberedSignIns? = nil,
                profileSignsIn: @escaping @Sendable (SSID) -> Bool = { _ in false },
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.signIn = PortalSignIn(environment: environment)
        self.forms = forms
        self.remembered = remembered
        self.profileSignsIn = profileSignsIn
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
        // A network cached for this helper at an earlier join, for which the administrator has
        // since written a profile: the profile wins (unsupported-network makes the daemon ask the
        // helpers again, and the profiles helper claims it).
        if let n = command.network, profileSignsIn(SSID(bytes: n.ssidBytes)) {
            log("\(command.interface): a profile signs in to \(SSID(bytes: n.ssidBytes).displayForm); leaving it to the profiles helper")
            return (.unsupportedNetwork, "a profile in profiles-dir signs in to this network")
        }
        let verdict = await signIn.environment.verdict(for: command.interface, fresh: false)
        switch verdict.state {
        case .online: return (.success, nil)
        case .none, .partial: return (.temporaryFailure, "no portal reachable (\(verdict.state.rawValue)); trying again later")
        case .portal: break
        }
        let ssid = command.network.map { SSID(bytes: $0.ssidBytes) }
        guard verdict.wispr == nil, let url = verdict.signInURL else {
            let what = verdict.wispr != nil ? "a WISPr gateway needs credentials" : "the portal gave no sign-in page"
            log("\(command.interface): \(what); asking the user")
            if let ssid {
                forms?.set(PendingSignIn(ssid: ssid, description: .browser("\(what); sign in with a browser", portalURL: ""), pageURL: ""),
                           on: command.interface)
            }
            return (.uiRequired, "\(what); a person has to sign in")
        }
        if let ssid, let saved = remembered?.load(ssid, problem: { [log] in log("\(command.interface): \($0)") }) {
            return await signInRemembered(saved, url: url, ssid: ssid, interface: command.interface)
        }
        let outcome = await signIn.acceptTerms(at: url, interface: command.interface, requireClickThrough: true)
        log("\(command.interface): portal at \(url): \(outcome)")
        if case .signedIn = outcome {} else if await signIn.environment.verdict(for: command.interface, fresh: true).state == .online {
            // A slow gateway may carry out an accept the daemon stopped waiting for (its command's
            // deadline passed): the retry then finds no form, and the link is online already.
            log("\(command.interface): online already; nothing to sign in to")
            return (.success, nil)
        }
        guard case .signedIn = outcome else {
            if let ssid, let forms {
                await describeForTheUser(url: url, ssid: ssid, interface: command.interface, into: forms)
            }
            return (.uiRequired, outcome.reason)
        }
        let after = await signIn.environment.verdict(for: command.interface, fresh: true)
        return after.state == .online ? (.success, nil) : (.uiRequired, "the terms were accepted but the portal still intercepts")
    }

    /// Reads the sign-in page and leaves its form (or why a browser is needed) for the daemon to
    /// publish as `SignInForm`.
    func describeForTheUser(url: String, ssid: SSID, interface: String, into forms: SignInForms, message: String = "",
                            remembered: Bool = false) async {
        var pending: PendingSignIn
        switch await signIn.describe(pageAt: url, interface: interface, ssid: ssid) {
        case .success(let p): pending = p
        case .failure(let outcome):
            pending = PendingSignIn(ssid: ssid, description: .browser(outcome.reason ?? "the sign-in page could not be read",
                                                                       portalURL: SignInFormReader.safeURL(url)), pageURL: url)
        }
        pending.description.message = message
        pending.description.remembered = remembered
        log("\(interface): the sign-in page asks the user: \(pending.description.kind.rawValue)\(pending.description.kind == .browser ? " (\(pending.description.reason))" : " with fields \(PortalSignIn.names(pending.fieldNames)) posting to \(pending.description.actionScheme)://\(pending.description.actionHost)")")
        forms.set(pending, on: interface)
    }

    /// Signs in with what the user asked to remember for this network, when the page still has
    /// the same form posting to the same host; otherwise, or when the portal refuses it, asks the
    /// user again (once per join: ui-required), with the portal's message.
    func signInRemembered(_ saved: RememberedSignIn, url: String, ssid: SSID, interface: String) async -> (CommandResult, String?) {
        let expected: PendingSignIn
        switch await signIn.describe(pageAt: url, interface: interface, ssid: ssid) {
        case .success(let p): expected = p
        case .failure(let outcome): return (.temporaryFailure, outcome.reason)
        }
        func askAgain(_ message: String) -> (CommandResult, String?) {
            var p = expected
            p.description.message = SignInFormReader.bounded(message, SignInFormReader.messageLimit)
            p.description.remembered = true
            forms?.set(p, on: interface)
            return (.uiRequired, "the sign-in remembered for this network was not used: \(message)")
        }
        guard expected.description.kind == .form, expected.fieldNames == saved.fields, expected.actionHost == saved.host,
              expected.description.actionScheme == saved.scheme || expected.description.actionScheme == "https" else {
            log("\(interface): \(saved): the sign-in page changed (\(expected.description.kind == .form ? "fields \(PortalSignIn.names(expected.fieldNames)) posting to \(UntrustedText.forLog(expected.actionHost))" : expected.description.reason)); nothing was sent, asking the user")
            return askAgain("The sign-in page has changed since it was remembered; please sign in again.")
        }
        let result = await signIn.userSignIn(expected: expected, pageURL: url, values: saved.values, allowPlainHTTP: saved.allowPlainHTTP,
                                             interface: interface)
        switch result {
        case .signedIn:
            log("\(interface): signed in with the \(saved)")
            return (.success, nil)
        case .rejected(let message):
            log("\(interface): the portal refused the \(saved): \(message)")
            return askAgain(message)
        case .formChanged:
            return askAgain("The sign-in page has changed since it was remembered; please sign in again.")
        case .needsBrowser(let why):
            forms?.set(PendingSignIn(ssid: ssid, description: .browser(why, portalURL: SignInFormReader.safeURL(url)), pageURL: url), on: interface)
            return (.uiRequired, why)
        case .unavailable(let why):
            return (.temporaryFailure, why)
        }
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
