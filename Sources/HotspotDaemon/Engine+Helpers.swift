// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Logging

/// A registered helper as the engine keeps it; its display name and commands are the core's.
struct HelperEndpoint: Sendable {
    /// How its commands reach it.
    var transport: any HelperTransport
    var purpose: String?
    /// The uid that registered it (nil for the built-in helpers and when the bus would not say),
    /// for the cap on helpers per user.
    var uid: UInt32? = nil
}

/// Helper endpoints: registration over the bus or in the daemon, departure, the Helpers property.
extension Engine {
    /// Registers a helper on the bus, reached through `transport` (the bus server made it, and
    /// closes it when this throws). Everything is checked and recorded without a suspension, so
    /// registrations racing each other cannot all pass a check.
    func register(_ request: HelperRegistrationRequest, transport: any HelperTransport) async throws {
        let display = request.displayName, identifier = request.identifier.rawValue, id = request.identifier
        let registered = helpers.map { HelperAdmission.Registered(identifier: $0.key, peer: $0.value.transport.peer, uid: $0.value.uid) }
        if let refusal = admission.refuses(id, peer: transport.peer, uid: request.uid, beside: registered) { throw HotspotError(refusal) }
        if let why = transport.left {
            throw HotspotError(.invalidArgs, "the caller is gone: \(why)")
        }
        try await admit(id, HelperEndpoint(transport: transport, purpose: request.purpose, uid: request.uid),
                        displayName: display, commands: request.commands)
        admission.admitted(id, uid: request.uid)
        let from = transport.peer ?? "the daemon", via = transport.route.rawValue
        log.info("helper '\(UntrustedText.forLog(display))' (\(UntrustedText.forLog(identifier))) registered from \(from), commands via \(via)")
        await publishHelpers()
    }

    /// Registers a built-in helper, called in the daemon rather than over the bus: what it
    /// answers, a profile's password included, leaves the daemon only through
    /// NetworkManager's secret-agent call.
    func register(inProcess helper: InProcessHelper) async throws {
        let id = HelperID(helper.identifier)
        guard helpers[id] == nil else {
            throw HotspotError(.alreadyRegistered, "the built-in helper '\(id)' is already registered")
        }
        let commands = helper.options.commands ?? Set(CommandType.allCases)
        let endpoint = HelperEndpoint(transport: InProcessTransport(helper), purpose: helper.options.purpose)
        try await admit(id, endpoint, displayName: helper.options.displayName, commands: commands, highestConfidence: helper.highestConfidence)
        admission.admittedBuiltIn(id)
        log.info("built-in helper '\(helper.options.displayName)' (\(id.rawValue)) registered in the daemon")
        await publishHelpers()
    }

    /// Records the endpoint, then tells the core (which may send commands at once, so the
    /// endpoint must be known first); undone when the core declines.
    func admit(_ id: HelperID, _ endpoint: HelperEndpoint, displayName: String, commands: Set<CommandType>,
               highestConfidence: Confidence = .high) async throws {
        helpers[id] = endpoint
        let effects = await handle(.helperRegistered(HelperRegistration(identifier: id, displayName: displayName, commands: commands,
                                                                        highestConfidence: highestConfidence)))
        for case .requestDeclined(.registration(_, let reason)) in effects {
            helpers[id] = nil
            throw HotspotError(.alreadyRegistered, reason)
        }
    }

    /// A helper's transport says it is gone: it left the bus, or its command channel closed.
    func transportGone(_ transport: any HelperTransport, why: String) async {
        guard let (id, _) = helpers.first(where: { $0.value.transport === transport }) else { return }
        await helperVanished(id, transport: transport, why: why)
    }

    /// A helper's command channel closed before it opened: the helper stays, its commands take
    /// the bus, and `Helpers` says so.
    func transportRerouted(_ transport: any HelperTransport, why: String) async {
        guard let (id, _) = helpers.first(where: { $0.value.transport === transport }) else { return }
        log.warning("helper \(UntrustedText.forLog(id.rawValue)): \(why)")
        await publishHelpers()
    }

    func unregister(sender: String) async throws {
        guard let (id, h) = helpers.first(where: { $0.value.transport.peer == sender }) else {
            throw HotspotError(.notRegistered, "this connection is not registered as a helper")
        }
        helpers[id] = nil
        await h.transport.close(reason: "the helper unregistered")
        log.info("helper \(UntrustedText.forLog(id.rawValue)) unregistered")
        await handle(.helperUnregistered(id))
        await provisioner?.helperDeparted(id)
        await publishHelpers()
    }

    func helperVanished(_ id: HelperID, transport: any HelperTransport, why: String = "it left the bus") async {
        guard let h = helpers[id], h.transport === transport else { return }
        helpers[id] = nil
        await h.transport.close(reason: "the helper left")
        log.warning("helper \(UntrustedText.forLog(id.rawValue)) has left: \(why); its pending commands fail now")
        for (token, f) in inflight where f.request.helper == id {
            f.task.cancel()
            inflight[token] = nil
            await completed(f.request, .helperLeft, seconds: seconds(since: f.started))
        }
        for (token, l) in lingering where l.request.helper == id {
            l.task.cancel()
            lingering[token] = nil
        }
        await handle(.helperLeft(id))
        await provisioner?.helperDeparted(id)
        await publishHelpers()
    }

    /// The helper registered by the bus connection `sender`, if it is one.
    func helperID(of sender: String) -> HelperID? {
        helpers.first(where: { $0.value.transport.peer == sender })?.key
    }

    /// `Helpers`: the core's helpers, in its order.
    func helperList() -> [HelperSummary] {
        core.helpers.map { h in
            HelperSummary(identifier: h.identifier.rawValue, displayName: h.displayName, purpose: helpers[h.identifier]?.purpose ?? "",
                          responsive: !core.isUnresponsive(h.identifier), route: helpers[h.identifier]?.transport.route ?? .bus)
        }
    }

    func publishHelpers() async {
        announce(.manager([ManagerProperty.helpers]))
    }

}

extension HotspotError {
    /// A refused registration, in words a helper's author can act on.
    init(_ refusal: HelperAdmission.Refusal) {
        switch refusal {
        case .identifierOwned(let id, let owner):
            self.init(.notAllowed, "the identifier '\(UntrustedText.forLog(id.rawValue))' belongs to a helper of another user (uid \(owner)); "
                      + "only that user or root may register it. Choose another Identifier")
        case .connectionRegistered(let mine):
            self.init(.alreadyRegistered, "this connection is already registered as helper '\(mine)'; call UnregisterHelper first")
        case .identifierTaken(let id):
            self.init(.alreadyRegistered, "a helper with identifier '\(id.rawValue)' is already registered by another process")
        case .builtInIdentifier:
            self.init(.notAllowed, "identifiers starting with '\(HelperAdmission.builtInPrefix)' belong to the daemon's built-in helpers; "
                      + "choose another Identifier (a reverse-DNS name such as com.example.hotspot)")
        case .builtInDisplayName(let display, let taken):
            self.init(.notAllowed, "DisplayName '\(UntrustedText.forLog(display, limit: 80))' reads as '\(taken)', the name of one of "
                      + "the daemon's built-in helpers (compared ignoring case, spacing and invisible characters); choose a name of your own")
        case .tooManyForUser(let uid, let count):
            self.init(.notAllowed, "uid \(uid) has \(count) helpers registered, the most one user may have; "
                      + "unregister one (or end its process) first")
        }
    }
}
