// SPDX-License-Identifier: Apache-2.0
import CDBus

/// Signals: subscriptions, the bus's match rules, owner tracking and routing.
extension Connection {
    // MARK: - Signals

    /// Subscribes to signals matching `rule`. When this returns, the bus has accepted the rule,
    /// so state read afterwards cannot miss a change ("subscribe first, then read state"). The
    /// rule is removed from the bus when the last subscriber's stream ends.
    public func signals(matching rule: MatchRule,
                        buffering: AsyncStream<Signal>.Continuation.BufferingPolicy = .unbounded) async throws -> AsyncStream<Signal> {
        try rule.validate()
        let (stream, continuation) = AsyncStream<Signal>.makeStream(bufferingPolicy: buffering)
        let id = nextID()
        let key = rule.description
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key: key, id: id) }
        }
        try await addSubscriber(rule) { sub in sub.streams[id] = continuation }
        return stream
    }

    /// One stream for signals matching any of `rules`, in the order they arrived: what one
    /// stream per rule cannot give (each is consumed on its own). The rules must not overlap, or
    /// a signal matching two of them comes twice. Every rule is accepted by the bus on return.
    public func signals(matchingAny rules: [MatchRule],
                        buffering: AsyncStream<Signal>.Continuation.BufferingPolicy = .unbounded) async throws -> AsyncStream<Signal> {
        for rule in rules { try rule.validate() }
        let (stream, continuation) = AsyncStream<Signal>.makeStream(bufferingPolicy: buffering)
        let ids = rules.map { ($0.description, nextID()) }
        continuation.onTermination = { [weak self] _ in
            Task { for (key, id) in ids { await self?.unsubscribe(key: key, id: id) } }
        }
        for (rule, (_, id)) in zip(rules, ids) {
            try await addSubscriber(rule) { sub in sub.streams[id] = continuation }
        }
        return stream
    }

    /// Like ``signals(matchingAny:buffering:)``, but each signal is handed to `handler` on the
    /// connection's thread as it is routed, in arrival order, with no task or stream in between
    /// (a stream and a task to drain it cost each signal two hops). The handler must not
    /// block. Ends with ``unsubscribe(_:)``.
    public func subscribe(matchingAny rules: [MatchRule], _ handler: @escaping @Sendable (Signal) -> Void) async throws -> SignalSubscription {
        for rule in rules { try rule.validate() }
        var added: [(String, UInt64)] = []
        do {
            for rule in rules {
                let id = nextID()
                try await addSubscriber(rule) { sub in sub.internalHandlers[id] = { _, signal in handler(signal) } }
                added.append((rule.description, id))
            }
        } catch {
            for (key, id) in added { unsubscribe(key: key, id: id) }
            throw error
        }
        return SignalSubscription(entries: added.map { SignalSubscription.Entry(key: $0.0, id: $0.1) })
    }

    /// Ends a subscription made with ``subscribe(matchingAny:_:)``: no signal reaches its handler
    /// after this returns, and rules no one else uses leave the bus.
    public func unsubscribe(_ subscription: SignalSubscription) {
        for e in subscription.entries { unsubscribe(key: e.key, id: e.id) }
    }

    func nextID() -> UInt64 {
        nextSubscriberID += 1
        return nextSubscriberID
    }

    /// Registers a subscriber and, for the first one of a rule, adds the rule on the bus (and the
    /// owner tracking of a well-known sender) and waits for the bus to accept it.
    func addSubscriber(_ rule: MatchRule, _ install: (Subscription) -> Void) async throws {
        let key = rule.description
        let first = subscriptions[key] == nil
        let sub = subscriptions[key] ?? Subscription(rule: rule)
        install(sub)
        subscriptions[key] = sub
        guard first else { return }
        if let sender = rule.sender, !sender.isUnique, sender.rawValue != "org.freedesktop.DBus" {
            trackOwner(sender)
        }
        do {
            _ = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                               member: "AddMatch", body: [.string(key)])
        } catch {
            if let sub = subscriptions.removeValue(forKey: key) {
                for (_, c) in sub.streams { c.finish() }
                if let sender = rule.sender { untrackOwner(sender) }
            }
            throw error
        }
    }

    func unsubscribe(key: String, id: UInt64) {
        guard let sub = subscriptions[key] else { return }
        sub.streams[id] = nil
        sub.internalHandlers[id] = nil
        guard sub.count == 0 else { return }
        subscriptions[key] = nil
        if let sender = sub.rule.sender { untrackOwner(sender) }
        callWithCallback(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                         member: "RemoveMatch", body: [.string(key)]) { _, _ in }
    }

    /// Tracks the owner of a well-known name so rules naming it as sender match its unique name.
    /// The NameOwnerChanged rule and the GetNameOwner reply are both handled in arrival order on
    /// the bus thread, so the owner is never overwritten by a stale answer.
    func trackOwner(_ name: BusName) {
        if var t = trackedOwners[name] {
            t.uses += 1
            trackedOwners[name] = t
            return
        }
        trackedOwners[name] = (owner: nil, uses: 1)
        let rule = Self.nameOwnerRule(name)
        let key = rule.description
        let id = nextID()
        let sub = subscriptions[key] ?? Subscription(rule: rule)
        let first = sub.count == 0
        sub.internalHandlers[id] = { me, signal in
            guard signal.body.count == 3, case .string(let newOwner) = signal.body[2] else { return }
            if var t = me.trackedOwners[name] { t.owner = newOwner.isEmpty ? nil : newOwner; me.trackedOwners[name] = t }
        }
        subscriptions[key] = sub
        if first {
            callWithCallback(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             member: "AddMatch", body: [.string(key)]) { _, _ in }
        }
        callWithCallback(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                         member: "GetNameOwner", body: [.string(name.rawValue)]) { me, result in
            guard var t = me.trackedOwners[name] else { return }
            t.owner = (try? result.get())?.body.first?.string
            me.trackedOwners[name] = t
        }
        trackedOwnerSubscriptions[name] = (key, id)
    }

    func untrackOwner(_ name: BusName) {
        guard var t = trackedOwners[name] else { return }
        t.uses -= 1
        if t.uses > 0 { trackedOwners[name] = t; return }
        trackedOwners[name] = nil
        if let (key, id) = trackedOwnerSubscriptions.removeValue(forKey: name) { unsubscribe(key: key, id: id) }
    }

    static func nameOwnerRule(_ name: BusName) -> MatchRule {
        MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                  member: "NameOwnerChanged", arguments: [0: name.rawValue])
    }

    /// Routes a signal read from the bus: its header is read once and matched against the rules;
    /// only a signal some rule may want has its body decoded (a 30 MB byte array unicast to us
    /// costs nothing but libdbus's read). Returns false when no rule of ours matches its header.
    func routeSignal(_ raw: RawMessage, sender: String) -> Bool {
        let m = raw.pointer
        // libdbus validated the header: the path needs no second check.
        guard let path = dbus_message_get_path(m).map({ ObjectPath(validatedByLibdbus: String(cString: $0)) }),
              let interface = dbus_message_get_interface(m).map({ String(cString: $0) }),
              let member = dbus_message_get_member(m).map({ String(cString: $0) }) else { return false }
        if interface == "org.freedesktop.DBus.Local" {
            if member == "Disconnected" { markDisconnected("the bus closed the connection") }
            return true
        }
        let owner: (BusName) -> String? = { self.trackedOwners[$0]?.owner }
        let candidates = subscriptions.values.filter {
            $0.rule.matchesHeader(sender: sender, path: path, interface: interface, member: member, owner: owner)
        }
        guard !candidates.isEmpty else { return false }
        let body: [DBusValue]
        do { body = try Marshal.decodeBody(m, limits: limits) } catch {
            intake.overLimit += 1
            return true
        }
        let signal = Signal(sender: sender, path: path, interface: interface, member: member, body: body)
        for sub in candidates where sub.rule.matches(signal, owner: owner) {
            for (_, handler) in sub.internalHandlers { handler(self, signal) }
            for (_, c) in sub.streams { c.yield(signal) }
        }
        return true
    }

    /// A reply must come from the connection that was called: the unique name called, the bus
    /// itself, or the current owner of the well-known name called when this connection tracks
    /// it (names used as a signal rule's sender are tracked). An untracked well-known name is
    /// not checked here; the system bus itself refuses replies nobody asked for.
    func replyIsFromCallee(_ sender: String, destination: String) -> Bool {
        // The bus answers for a callee that is gone or leaves without replying (ServiceUnknown,
        // NoReply); no peer can send as org.freedesktop.DBus, so such a reply is never forged.
        if sender == destination || destination == "(none)" || sender == Connection.busName.rawValue { return true }
        guard let name = try? BusName(destination), !name.isUnique else { return false }
        guard let tracked = trackedOwners[name] else { return true }
        return tracked.owner == nil || tracked.owner == sender
    }

}

/// A subscription made with ``Connection/subscribe(matchingAny:_:)``.
public struct SignalSubscription: Sendable {
    struct Entry: Sendable {
        let key: String
        let id: UInt64
    }
    let entries: [Entry]
}
