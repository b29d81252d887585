// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore
import HotspotProtocol

/// What the engine needs for the user's sign-in: the forms the built-in helpers left for the
/// user, the remembered sign-ins, and a sign-in runner on the daemon's links.
struct SignInDesk: Sendable {
    let forms: SignInForms
    let remembered: RememberedSignIns
    let signIn: PortalSignIn
}

/// The user's values for a sign-in, checked against the form (`SignIn`'s `values`).
struct SignInRequest: Sendable {
    /// Field name → value; a ticked checkbox has its value, an unticked one none.
    var values: [String: String]
    var remember: Bool
    var allowPlainHTTP: Bool
}

extension Engine {
    /// The form published on `name` now: the waiting one while the interface is presenting-ui on
    /// the network it was read on.
    func currentSignInForm(_ name: InterfaceID) -> SignInFormDescription? {
        guard let desk = signIns, let r = interfaces[name], r.status?.state == .presentingUI, let network = r.status?.network,
              let p = desk.forms.get(name.rawValue), p.ssid == network.ssid else { return nil }
        return p.description
    }

    /// Publishes `SignInForm` when what it says changed.
    func refreshSignInForm(_ name: InterfaceID) {
        guard var r = interfaces[name] else { return }
        let now = currentSignInForm(name)
        guard r.signInForm != now else { return }
        r.signInForm = now
        interfaces[name] = r
        announce(.interface(r, [InterfaceProperty.signInForm]))
    }

    /// After a state change: a sign-in ends with the network signed in, left, failed or logged off.
    func signInStateChanged(_ name: InterfaceID, to state: HotspotState) {
        switch state {
        case .authenticated, .inactive, .failure, .loggingOff: signIns?.forms.clear(name.rawValue)
        default: break
        }
        refreshSignInForm(name)
    }

    /// `SignIn`: checks the values against the waiting form, then submits it off the engine
    /// (the engine takes other events meanwhile) and tells the core the user has signed in.
    func signIn(_ name: InterfaceID, _ request: SignInRequest) async throws -> (result: String, message: String) {
        guard let desk = signIns, let r = interfaces[name], let network = r.status?.network, r.status?.state == .presentingUI,
              let pending = desk.forms.get(name.rawValue), pending.ssid == network.ssid else {
            throw HotspotError(.notAllowed, "no sign-in is waiting on \(name); SignInForm says when one is")
        }
        guard pending.description.kind == .form else {
            throw HotspotError(.notAllowed, "the sign-in page on \(name) needs a browser: \(pending.description.reason)")
        }
        try Self.check(request, against: pending.description)
        if pending.description.plainHTTP && !request.allowPlainHTTP {
            throw HotspotError(.notAllowed, "the sign-in form on \(name) sends what is typed over plain http to \(pending.description.actionHost), "
                               + "where others on the network can read it; ask the user and call again with allow-plain-http true")
        }
        guard !signInsUnderWay.contains(name) else {
            throw HotspotError(.notAllowed, "a sign-in is under way on \(name); wait for its answer")
        }
        signInsUnderWay.insert(name)
        defer { signInsUnderWay.remove(name) }
        log.info("\(name): signing in to \(network.ssid.displayForm) with the user's form (fields \(UntrustedText.forLog(pending.fieldNames.joined(separator: ",")))) to \(pending.description.actionScheme)://\(UntrustedText.forLog(pending.actionHost))")
        let result = await desk.signIn.userSignIn(expected: pending, pageURL: pending.pageURL, values: request.values,
                                                  allowPlainHTTP: request.allowPlainHTTP, interface: name.rawValue)
        // The network may have been left while the form was being sent.
        let stillThere = interfaces[name]?.status?.network?.ssid == network.ssid
        switch result {
        case .signedIn:
            log.info("\(name): the user signed in to \(network.ssid.displayForm)")
            if request.remember {
                let saved = RememberedSignIn(ssid: network.ssid, host: pending.actionHost, scheme: pending.description.actionScheme,
                                             fields: pending.fieldNames, values: request.values, allowPlainHTTP: request.allowPlainHTTP,
                                             saved: UInt64(max(0, time(nil))))
                do {
                    try desk.remembered.save(saved)
                    log.info("\(name): remembered the sign-in for \(network.ssid.displayForm) (\(saved.scheme)://\(UntrustedText.forLog(saved.host)))")
                } catch {
                    log.error("\(name): the sign-in for \(network.ssid.displayForm) could not be remembered: \(error)")
                }
            }
            // The chosen helper's present-ui sees the link online and answers success: the
            // interface is authenticated by the helper that asked for the user.
            if stillThere { await handle(.presentUIRequested(name)) }
            return ("signed-in", "")
        case .rejected(let message):
            log.info("\(name): the portal did not accept the user's sign-in: \(message)")
            if stillThere {
                var p = pending
                p.description.message = message
                desk.forms.set(p, on: name.rawValue)
            }
            return ("rejected", message)
        case .formChanged(var fresh):
            log.info("\(name): the sign-in form changed before it was sent (now fields \(UntrustedText.forLog(fresh.fieldNames.joined(separator: ","))) to \(UntrustedText.forLog(fresh.actionHost))); nothing was sent")
            fresh.description.remembered = pending.description.remembered
            if stillThere { desk.forms.set(fresh, on: name.rawValue) }
            return ("form-changed", "The sign-in page has changed; please check the fields and sign in again.")
        case .needsBrowser(let why):
            if stillThere {
                desk.forms.set(PendingSignIn(ssid: network.ssid, description: .browser(why, portalURL: pending.description.portalURL),
                                             pageURL: pending.pageURL), on: name.rawValue)
            }
            return ("needs-browser", SignInFormReader.bounded(why, SignInFormReader.messageLimit))
        case .unavailable(let why):
            log.info("\(name): the user's sign-in could not be tried: \(why)")
            return ("rejected", SignInFormReader.bounded("The portal could not be reached: \(why)", SignInFormReader.messageLimit))
        }
    }

    /// InvalidArgs for a name not in the form, a required field without a value, a select value
    /// not among its options. Values never appear in the message.
    static func check(_ request: SignInRequest, against form: SignInFormDescription) throws {
        let byName = Dictionary(form.fields.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for key in request.values.keys.sorted() where byName[key] == nil {
            throw HotspotError(.invalidArgs, "the sign-in form has no field named '\(UntrustedText.forLog(key, limit: 64))'")
        }
        for f in form.fields {
            let v = request.values[f.name]
            if f.required && (v ?? "").isEmpty {
                throw HotspotError(.invalidArgs, "the field '\(f.name)' (\(f.label)) is required")
            }
            if f.kind == "select", let v, !f.options.contains(where: { $0.value == v }) {
                throw HotspotError(.invalidArgs, "the value given for '\(f.name)' is not one of its options")
            }
        }
    }

    /// The remembered sign-ins, for `ListRememberedSignIns`.
    func rememberedSignIns() -> [RememberedSignIn] { signIns?.remembered.all() ?? [] }
}
