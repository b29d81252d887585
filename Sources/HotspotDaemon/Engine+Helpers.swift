// SPDX-License-Identifier: Apache-2.0
import Connectivity
import DBus
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Logging

/// Where a registered helper receives commands.
struct HelperEndpoint: Sendable {
    enum Route: Sendable {
        /// A helper process: `HandleCommand` on its connection, watched until it leaves the bus.
        case bus(uniqueName: String, path: ObjectPath, watch: Task<Void, Never>)
        /// A built-in helper: called in the daemon, so its answers never cross the bus.
        case inProcess(InProcessHelper)
    }
    var route: Route
    var displayName: String
    var purpose: String?
    /// The uid that registered it (nil for the built-in helpers and when the bus would not say),
    /// for the cap on helpers per user.
    var uid: UInt32? = nil
    /// The peer link a helper on the bus opened with OpenCommandChannel: its commands go there,
    /// with no bus in between (docs/ARCHITECTURE.md, "A join, hop by hop").
    var commandLink: String?

    /// How its commands reach it, as `Helpers` says.
    var commandsVia: String {
        switch route {
        case .inProcess: return "daemon"
        case .bus: return commandLink == nil ? "bus" : "channel"
        }
    }

    /// The helper's connection, for helpers on the bus.
    var uniqueName: String? {
        if case .bus(let name, _, _) = route { return name }
        return nil
    }

    func stopWatching() {
        if case .bus(_, _, let watch) = route { watch.cancel() }
    }
}

/// Helper endpoints: registration over the bus or in the daemon, departure, the Helpers property.
extension Engine {
    /// Checks RegisterHelper's options before polkit is asked, so the dialog can show them.
    func validateRegistration(_ options: [String: DBusValue], uid: UInt32?) throws -> HelperRegistrationRequest {
        try HelperRegistrationRequest(options: options, uid: uid)
    }

    func register(sender: String, path: ObjectPath, _ request: HelperRegistrationRequest) async throws {
        let display = request.displayName, commands = request.commands, identifier = request.identifier.rawValue
        // An identifier stays with the user who first registered it: another
        // user cannot take over a helper's cache entries and passwords by reusing its name.
        if let owner = identifierOwners[request.identifier], request.uid != 0, request.uid != owner {
            throw HotspotError(.notAllowed, "the identifier '\(UntrustedText.forLog(identifier))' belongs to a helper of another user (uid \(owner)); "
                               + "only that user or root may register it. Choose another Identifier")
        }
        for (id, h) in helpers where h.uniqueName == sender {
            throw HotspotError(.alreadyRegistered, "this connection is already registered as helper '\(id)'; call UnregisterHelper first")
        }
        let id = request.identifier
        if helpers[id] != nil {
            throw HotspotError(.alreadyRegistered, "a helper with identifier '\(identifier)' is already registered by another process")
        }
        // Watch the caller first: if it vanishes right after registering, we still notice.
        let rule = MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             member: "NameOwnerChanged", arguments: [0: sender])
        let changes = try await bus.signals(matching: rule)
        let watch = Task { [weak self] in
            for await signal in changes where signal.body.count == 3 && signal.body[2].string == "" {
                await self?.helperVanished(id, uniqueName: sender)
                return
            }
        }
        guard try await bus.nameOwner(BusName(sender)) != nil else {
            watch.cancel()
            throw HotspotError(.invalidArgs, "the caller left the bus while registering")
        }
        // Checked again after the awaits above: another registration may have run meanwhile.
        guard helpers[id] == nil, !helpers.values.contains(where: { $0.uniqueName == sender }) else {
            watch.cancel()
            throw HotspotError(.alreadyRegistered, "a helper with identifier '\(identifier)' or from this connection registered meanwhile")
        }
        // Counted here, after the last await: `admit` records the endpoint before it suspends, so
        // registrations racing each other cannot all pass the count.
        if let uid = request.uid, uid != 0 {
            let mine = helpers.values.filter { $0.uid == uid }.count
            guard mine < Self.maximumHelpersPerUser else {
                watch.cancel()
                throw HotspotError(.notAllowed, "uid \(uid) has \(mine) helpers registered, the most one user may have; "
                                   + "unregister one (or end its process) first")
            }
        }
        var endpoint = HelperEndpoint(route: .bus(uniqueName: sender, path: path, watch: watch), displayName: display, purpose: request.purpose)
        endpoint.uid = request.uid
        try await admit(id, endpoint, commands: commands)
        if let uid = request.uid, identifierOwners[id] == nil || uid != 0 { identifierOwners[id] = uid }
        log.info("helper '\(UntrustedText.forLog(display))' (\(UntrustedText.forLog(id.rawValue))) registered from \(sender) at \(path)")
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
        let endpoint = HelperEndpoint(route: .inProcess(helper), displayName: helper.options.displayName, purpose: helper.options.purpose)
        try await admit(id, endpoint, commands: commands)
        identifierOwners[id] = 0
        log.info("built-in helper '\(helper.options.displayName)' (\(id.rawValue)) registered in the daemon")
        await publishHelpers()
    }

    /// Records the endpoint, then tells the core (which may send commands at once, so the
    /// endpoint must be known first); undone when the core declines.
    func admit(_ id: HelperID, _ endpoint: HelperEndpoint, commands: Set<CommandType>) async throws {
        helpers[id] = endpoint
        let effects = await handle(.helperRegistered(HelperRegistration(identifier: id, displayName: endpoint.displayName, commands: commands)))
        for case .requestDeclined(.registration(_, let reason)) in effects {
            endpoint.stopWatching()
            helpers[id] = nil
            throw HotspotError(.alreadyRegistered, reason)
        }
    }

    /// Opens a command channel to the registered helper on `sender` (OpenCommandChannel): a
    /// socket pair, one end served on the bus connection's thread as a peer link that accepts no
    /// calls, the other returned. Its commands then go there, until it leaves.
    func openCommandChannel(sender: String) async throws -> FileDescriptor {
        guard let (id, h) = helpers.first(where: { $0.value.uniqueName == sender }) else {
            throw HotspotError(.notRegistered, "this connection is not registered as a helper; call RegisterHelper first")
        }
        // One per helper, for as long as it is registered: replacing it would strand the
        // commands under way on the old one.
        guard h.commandLink == nil else {
            throw HotspotError(.alreadyRegistered, "this helper's command channel is open already; there is one per registration")
        }
        // Each channel holds a descriptor of the daemon's; helpers cost none otherwise.
        try refuseChannelPastTheCap()
        let (mine, theirs) = try Connection.socketPair()
        let link = try await bus.adoptPeerLink(mine, role: .server, acceptsCalls: false, maximumMessageSize: Self.commandChannelMaximumMessage) { [weak self] link, reason in
            Task { await self?.commandChannelClosed(id, uniqueName: sender, link: link, reason: reason) }
        }
        guard helpers[id]?.uniqueName == sender, helpers[id]?.commandLink == nil else {
            // The helper left, or a second call got its channel, while the link was made.
            await bus.closePeerLink(link, reason: "the helper left or has its channel")
            throw HotspotError(.notRegistered, "this connection is no longer registered as a helper, or has its command channel already")
        }
        // Counted again after the await: channels opened meanwhile count (100 helpers opening at
        // once got 70 past a count taken only before it). Nothing suspends from here to the
        // assignment below, so the count holds.
        do { try refuseChannelPastTheCap() } catch {
            await bus.closePeerLink(link, reason: "the daemon has the most command channels it keeps")
            throw error
        }
        helpers[id]?.commandLink = link
        log.info("helper \(UntrustedText.forLog(id.rawValue)) opened its command channel")
        await publishHelpers()
        return theirs
    }

    /// The most a helper's answer on its command channel may hold (claims for every network of a
    /// long scan list, with passwords, are far less).
    static let commandChannelMaximumMessage = 4 << 20
    /// The most command channels open at once (far more helpers than any machine runs).
    static let maximumCommandChannels = 64
    /// The most helpers one user other than root may have registered at once.
    static let maximumHelpersPerUser = 8

    private func refuseChannelPastTheCap() throws {
        let open = helpers.values.filter { $0.commandLink != nil }.count
        guard open < Self.maximumCommandChannels else {
            throw HotspotError(.notAllowed, "\(open) helpers have command channels open, the most the daemon keeps; "
                               + "this helper's commands keep coming over the bus")
        }
    }

    /// A helper's command channel closed. Unless the daemon closed it (the helper left), the
    /// helper closed it or broke it: it has left, as if it had left the bus.
    func commandChannelClosed(_ id: HelperID, uniqueName: String, link: String, reason: String) async {
        guard let h = helpers[id], h.uniqueName == uniqueName, h.commandLink == link else { return }
        await helperVanished(id, uniqueName: uniqueName, why: "its command channel closed (\(UntrustedText.forLog(reason)))")
    }

    func unregister(sender: String) async throws {
        guard let (id, h) = helpers.first(where: { $0.value.uniqueName == sender }) else {
            throw HotspotError(.notRegistered, "this connection is not registered as a helper")
        }
        h.stopWatching()
        helpers[id] = nil
        if let link = h.commandLink { await bus.closePeerLink(link, reason: "the helper unregistered") }
        log.info("helper \(UntrustedText.forLog(id.rawValue)) unregistered")
        await handle(.helperUnregistered(id))
        await provisioner?.helperDeparted(id)
        await publishHelpers()
    }

    func helperVanished(_ id: HelperID, uniqueName: String, why: String = "it left the bus") async {
        guard let h = helpers[id], h.uniqueName == uniqueName else { return }
        helpers[id] = nil
        h.stopWatching()
        if let link = h.commandLink { await bus.closePeerLink(link, reason: "the helper left") }
        log.warning("helper \(UntrustedText.forLog(id.rawValue)) has left: \(why); its pending commands fail now")
        for (token, f) in inflight where f.request.helper == id {
            f.task.cancel()
            inflight[token] = nil
            await completed(f.request, result: "helper-left", seconds: seconds(since: f.started))
        }
        for (token, l) in lingering where l.request.helper == id {
            l.task.cancel()
            lingering[token] = nil
        }
        await handle(.helperLeft(id))
        await provisioner?.helperDeparted(id)
        await publishHelpers()
    }

    /// The unique name of a registered helper's connection, if `sender` is one.
    func helperID(of sender: String) -> HelperID? {
        helpers.first(where: { $0.value.uniqueName == sender })?.key
    }

    func helperList() -> [[String: DBusValue]] {
        core.helpers.map { h in
            ["identifier": .string(h.identifier.rawValue), "display-name": .string(h.displayName),
             "purpose": .string(helpers[h.identifier]?.purpose ?? ""),
             "state": .string(core.isUnresponsive(h.identifier) ? "unresponsive" : "responsive"),
             "commands-via": .string(helpers[h.identifier]?.commandsVia ?? "bus")]
        }
    }

    func publishHelpers() async {
        announce(.manager([HotspotContract.Manager.helpers]))
    }

}
