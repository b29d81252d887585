// SPDX-License-Identifier: Apache-2.0
/// The rules that follow from what the core publishes of an interface, kept with what it last
/// published (its status, its reason, whether its connectivity was portal):
/// - a new join clears the reason; the chosen helper's answer to authenticate, maintain,
///   present-ui or logoff sets it to the helper's words; an explanation goes before them
///   (``InterfaceReason/explaining(_:)``). A reason is published only when it changes
///   (``HotspotEffect/setReason(_:_:)``).
/// - entering authenticated re-checks connectivity, and NetworkManager's too when a chosen
///   helper signed in other than by a maintain (``HotspotEffect/recheckConnectivity(_:networkManager:)``).
/// - a check whose published connectivity turned to portal is a portal detected (the edge);
///   leaving the network forgets it.
struct AfterSignIn: Sendable {
    private var published: [InterfaceID: InterfaceStatus] = [:]
    private var reasons: [InterfaceID: InterfaceReason] = [:]
    private var portal: Set<InterfaceID> = []

    /// The commands whose answer is the chosen helper's word on the joined network.
    static let reasonGiving: Set<CommandType> = [.authenticate, .maintain, .presentUI, .logoff]

    /// Whether a check's published connectivity (`isPortal`) turned to portal on `interface`.
    mutating func portalEdge(_ interface: InterfaceID, isPortal: Bool) -> Bool {
        if isPortal { return portal.insert(interface).inserted }
        portal.remove(interface)
        return false
    }

    /// The network was left: its connectivity is unknown again.
    mutating func left(_ interface: InterfaceID) {
        portal.remove(interface)
    }

    /// The interface is gone: it starts afresh if it comes back.
    mutating func removed(_ interface: InterfaceID) {
        published[interface] = nil
        reasons[interface] = nil
        portal.remove(interface)
    }

    /// `effects` with what follows each: an explanation's reason after it, the re-check after a
    /// sign-in's state; a reason that does not change the published one dropped.
    mutating func follow(_ effects: [HotspotEffect]) -> [HotspotEffect] {
        var out: [HotspotEffect] = []
        out.reserveCapacity(effects.count + 1)
        for effect in effects {
            switch effect {
            case .setReason(let interface, let reason):
                if let changed = set(interface, reason) { out.append(changed) }
            case .explain(let interface, let text):
                out.append(effect)
                if let changed = set(interface, (reasons[interface] ?? .none).explaining(text)) { out.append(changed) }
            case .publishState(let status):
                out.append(effect)
                let old = published.updateValue(status, forKey: status.interface)
                if old?.state != status.state, status.state == .authenticated {
                    out.append(.recheckConnectivity(status.interface, networkManager: status.chosenHelper != nil && old?.state != .maintaining))
                }
            default:
                out.append(effect)
            }
        }
        return out
    }

    private mutating func set(_ interface: InterfaceID, _ reason: InterfaceReason) -> HotspotEffect? {
        guard (reasons[interface] ?? .none) != reason else { return nil }
        reasons[interface] = reason
        return .setReason(interface, reason)
    }
}
