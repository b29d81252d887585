// SPDX-License-Identifier: Apache-2.0
import Connectivity
import FoundationEssentials
import HotspotCore
import HotspotHelperKit
import Synchronization

/// The built-in profiles helper (`builtin.profiles`, "Known Networks"): names the networks its
/// profiles match in the scan list (each with the profile's display name) and supplies their
/// Wi-Fi passwords; claims them in evaluate; signs in with the profile's method; keeps RFC 8908
/// sessions alive in maintain; logs off WISPr sessions.
public final class ProfileHelper: Sendable {
    /// The registration options.
    public static let options = HotspotHelperOptions(displayName: "Known Networks", identifier: "builtin.profiles")

    private let profiles: Mutex<ProfileSet>
    let signIn: PortalSignIn
    let log: @Sendable (String) -> Void
    private let logoffURLs = Mutex<[String: String]>([:])
    /// Where the portal's form goes when a profile's sign-in needs the user (the daemon publishes it).
    let forms: SignInForms?

    /// A helper over `profiles`; `log` receives one line per decision (never a secret).
    public init(profiles: ProfileSet, environment: any PortalEnvironment, forms: SignInForms? = nil,
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.profiles = Mutex(profiles)
        self.signIn = PortalSignIn(environment: environment)
        self.forms = forms
        self.log = log
    }

    /// Replaces the profiles (after a reload).
    public func replace(_ set: ProfileSet) { profiles.withLock { $0 = set } }

    /// The profile for an SSID.
    public func profile(for ssid: SSID) -> Profile? { profiles.withLock { $0.index.profile(for: ssid) } }

    /// The filter-scan-list answer: one claim per access point a profile matches, with the
    /// profile's confidence, display name and (for a secure network) its password.
    public static func claims(for networks: [Network], index: ProfileIndex) -> [ScanClaim] {
        var out: [ScanClaim] = []
        for n in networks {
            guard let p = index.profile(for: n.ssid) else { continue }
            out.append(ScanClaim(ssid: n.ssid, bssid: n.bssid.isEmpty ? nil : n.bssid, confidence: p.confidence,
                                 password: n.isSecure ? p.password : nil, displayName: p.displayName))
        }
        return out
    }

    /// The evaluate answer: the profile's confidence when it has a sign-in method, else none (a
    /// profile without one only names the network).
    public func evaluate(_ ssid: SSID) -> Confidence {
        guard let p = profile(for: ssid), p.signIn != .none else { return .none }
        return p.confidence
    }

    /// Handles one command from the daemon.
    public func handle(_ command: HotspotHelperCommand) {
        switch command.commandType {
        case .filterScanList:
            let list = command.networkList ?? []
            let index = profiles.withLock { $0.index }
            var claimed: [HotspotNetwork] = []
            for n in list {
                guard let p = index.profile(for: SSID(bytes: n.ssidBytes)) else { continue }
                n.setConfidence(p.confidence)
                n.setDisplayName(p.displayName)
                if n.isSecure, let password = p.password { n.setPassword(password.secret) }
                claimed.append(n)
            }
            let r = command.createResponse(.success)
            r.setNetworkList(claimed)
            r.deliver()
        case .evaluate:
            guard let n = command.network else { return command.createResponse(.failure).deliver() }
            n.setConfidence(evaluate(SSID(bytes: n.ssidBytes)))
            let r = command.createResponse(.success)
            r.setNetwork(n)
            r.deliver()
        case .authenticate:
            Task {
                let (result, reason) = await authenticate(command)
                let r = command.createResponse(result)
                if let reason { r.setReason(reason) }
                r.deliver()
            }
        case .maintain:
            Task { command.createResponse(await maintain(command)).deliver() }
        case .logoff:
            Task { command.createResponse(await logoff(command)).deliver() }
        case .presentUI:
            Task { command.createResponse(await PortalHelper.waitForUser(command, environment: signIn.environment)).deliver() }
        }
    }

    /// Signs in with the profile; the reason says why not when it did not.
    func authenticate(_ command: HotspotHelperCommand) async -> (CommandResult, String?) {
        guard let n = command.network, let p = profile(for: SSID(bytes: n.ssidBytes)) else { return (.unsupportedNetwork, nil) }
        let verdict = await signIn.environment.verdict(for: command.interface, fresh: false)
        switch verdict.state {
        case .online:
            log("\(command.interface): \(p.displayName) is online already; nothing to sign in to")
            return (.success, nil)
        case .none, .partial:
            log("\(command.interface): \(p.displayName): no portal reachable (\(verdict.state.rawValue), \(verdict.reason)); trying again later")
            return (.temporaryFailure, "no portal reachable (\(verdict.state.rawValue)); trying again later")
        case .portal:
            break
        }
        let session = await signIn.session(p.signIn, interface: command.interface, verdict: verdict, plainHTTPLogin: p.plainHTTPLogin)
        if case .signedIn = session.outcome, let url = session.logoffURL {
            logoffURLs.withLock { $0[command.interface] = url }
            log("\(command.interface): \(p.displayName): logoff at \(UntrustedText.forLog(url))")
        }
        let result = await conclude(session.outcome, profile: p, interface: command.interface)
        // A form the profile cannot fill (a field it does not name): the user gets the page's form.
        if result == .uiRequired, let forms, let url = verdict.signInURL {
            let ssid = SSID(bytes: n.ssidBytes)
            if case .success(let pending) = await signIn.describe(pageAt: url, interface: command.interface, ssid: ssid) {
                forms.set(pending, on: command.interface)
            }
        }
        return (result, session.outcome.reason.map { "profile \(p.displayName): \($0)" })
    }

    func conclude(_ outcome: SignInOutcome, profile p: Profile, interface: String) async -> CommandResult {
        log("\(interface): \(p.displayName) (\(p.location)) sign-in \(p.signIn.name): \(outcome)")
        switch outcome {
        case .signedIn:
            let after = await signIn.environment.verdict(for: interface, fresh: true)
            guard after.state != .portal else {
                log("\(interface): \(p.displayName): still behind the portal after signing in (\(after.reason))")
                return .failure
            }
            return .success
        case .rejected: return .failure
        case .needsUser:
            // An earlier sign-in the gateway carried out after its command's deadline: the page
            // has no form now because the link is online.
            if await signIn.environment.verdict(for: interface, fresh: true).state == .online {
                log("\(interface): \(p.displayName): online already; nothing to sign in to")
                return .success
            }
            return .uiRequired
        case .unavailable: return .temporaryFailure
        }
    }

    func maintain(_ command: HotspotHelperCommand) async -> CommandResult {
        guard let n = command.network, let p = profile(for: SSID(bytes: n.ssidBytes)) else { return .failure }
        let verdict = await signIn.environment.verdict(for: command.interface, fresh: true)
        switch verdict.state {
        case .portal:
            log("\(command.interface): \(p.displayName): the portal is back; signing in again")
            return .authenticationRequired
        case .online:
            // The profile's RFC 8908 API, else the one the network announced (RFC 8910).
            var api: String?
            if case .capport(let url) = p.signIn { api = url } else { api = await signIn.environment.captivePortalAPI(for: command.interface) }
            if let api, let status = verdict.capport, !status.captive, status.secondsRemaining != nil {
                let outcome = await signIn.extendSession(apiURL: api, interface: command.interface, verdict: verdict)
                log("\(command.interface): \(p.displayName): extending the RFC 8908 session (\(status.secondsRemaining ?? 0) s left): \(outcome)")
                if case .signedIn = outcome { return .success }
                return .authenticationRequired
            }
            return .success
        case .none, .partial:
            return .failure
        }
    }

    func logoff(_ command: HotspotHelperCommand) async -> CommandResult {
        guard let url = logoffURLs.withLock({ $0.removeValue(forKey: command.interface) }) else { return .success }
        // A logoff carries no credentials; the profile that logged in over plain http logs off the same way.
        let plain = command.network.flatMap { profile(for: SSID(bytes: $0.ssidBytes)) }?.plainHTTPLogin ?? false
        var config = WISPrClient.Configuration(allowPlainHTTPLogin: plain)
        config.transfer = await signIn.environment.transferOptions(for: command.interface)
        let ok = await WISPrClient(configuration: config, transport: signIn.environment.transport).logoff(logoffURL: url, interface: config.transfer.interface,
                                                                 dnsServers: config.transfer.dnsServers)
        log("\(command.interface): WISPr logoff \(ok ? "accepted" : "not confirmed")")
        return .success
    }
}
