// SPDX-License-Identifier: Apache-2.0
/// A profile provisioning wants NetworkManager to hold for a network (the daemon's
/// `ProvisionedProfileSpec`).
public protocol WantedProfile: Sendable, Hashable {
    /// The network's SSID.
    var ssid: [UInt8] { get }
    /// Whether its password is one NetworkManager accepts for its key management.
    var hasValidPassword: Bool { get }
}

/// A Wi-Fi profile NetworkManager holds (the daemon's `HeldProfile`).
public protocol HeldWiFiProfile: Sendable, Hashable {
    /// Where NetworkManager keeps it (its settings object path).
    associatedtype Path: Sendable, Hashable, Comparable
    var path: Path { get }
    var uuid: String { get }
    var ssid: [UInt8] { get }
    /// Whether it carries the daemon's mark (only such profiles are ever changed or deleted).
    var isProvisioned: Bool { get }
    var autoconnect: Bool { get }
}

/// What provisioning does to NetworkManager's profiles, decided from what helpers claim and
/// what NetworkManager holds. Pure: the daemon's `ProfileProvisioner` reads, calls this, and
/// carries the actions out.
///
/// Rules (docs/NETWORKMANAGER.md, "Provisioning"):
/// - Only profiles carrying the daemon's mark are ever updated or deleted.
/// - A network the user has a profile of their own for (any unmarked profile with that SSID) is
///   not provisioned; a marked profile for it is withdrawn: the user's profile wins.
/// - A network whose marked profile this daemon wrote and that has since disappeared was deleted
///   by someone else (the user, "Forget" in the desktop): it is declined and not provisioned
///   again until the network is forgotten (`ForgetNetwork`) or the daemon restarts.
/// - An active profile is never deleted (that would cut the user off); it is withdrawn once
///   it is no longer active.
/// - A marked profile this daemon did not write (left by an earlier run) is kept while
///   `adopting` (helpers have not all answered yet), then updated or withdrawn like any other.
/// - One marked profile per SSID: extra ones are withdrawn.
public struct ProfilePlan<Spec: WantedProfile, Held: HeldWiFiProfile>: Sendable, Equatable {
    public typealias Reason = ProfileWithdrawal

    public enum Action: Sendable, Hashable {
        case add(Spec)
        /// Rewrite the whole profile (same uuid), secret included, with this autoconnect.
        case update(Held, Spec, autoconnect: Bool)
        case delete(Held, Reason)
    }

    public var actions: [Action] = []
    /// SSIDs newly found declined (their profile vanished behind the daemon's back).
    public var newlyDeclined: Set<[UInt8]> = []
    /// Whether some profile was kept only because `adopting` was set (plan again later).
    public var keptWhileAdopting = false
    /// Whether some profile was kept only because it is in use (plan again when it is not).
    public var keptWhileActive = false

    /// - Parameters:
    ///   - wanted: the profiles helpers' claims call for, one per SSID.
    ///   - held: the Wi-Fi profiles NetworkManager holds now.
    ///   - written: what this daemon last wrote, by uuid (it cannot read secrets back).
    ///   - declined: SSIDs not to provision (their profile was deleted by someone else).
    ///   - active: profiles in use by an active connection.
    ///   - adopting: keep unclaimed marked profiles this daemon did not write.
    ///   - fresh: SSIDs forgotten (`ForgetNetwork`): a rewrite switches autoconnect back on;
    ///     otherwise it keeps the profile's autoconnect (off after a failed sign-in).
    ///   - notWanted: why a network a helper still claims is not wanted (over the bound, unseen),
    ///     for the log; unclaimed otherwise.
    public init(wanted: [Spec], held: [Held], written: [String: Spec],
                declined: Set<[UInt8]>, active: Set<Held.Path>, adopting: Bool, fresh: Set<[UInt8]> = [],
                notWanted: [[UInt8]: Reason] = [:]) {
        let heldUUIDs = Set(held.map(\.uuid))
        for (uuid, spec) in written where !heldUUIDs.contains(uuid) { newlyDeclined.insert(spec.ssid) }
        let refused = declined.union(newlyDeclined)
        let userSSIDs = Set(held.filter { !$0.isProvisioned }.map(\.ssid))
        var byCallFor: [[UInt8]: Spec] = [:]
        for spec in wanted where !userSSIDs.contains(spec.ssid) && !refused.contains(spec.ssid) && spec.hasValidPassword {
            byCallFor[spec.ssid] = byCallFor[spec.ssid] ?? spec
        }
        var covered = Set<[UInt8]>()
        for profile in held.filter(\.isProvisioned).sorted(by: { $0.path < $1.path }) {
            if !covered.contains(profile.ssid), let spec = byCallFor[profile.ssid] {
                covered.insert(profile.ssid)
                if written[profile.uuid] != spec {
                    actions.append(.update(profile, spec, autoconnect: fresh.contains(spec.ssid) || profile.autoconnect))
                }
                continue
            }
            let reason: Reason
            if covered.contains(profile.ssid) {
                reason = .duplicate
            } else if userSSIDs.contains(profile.ssid) {
                reason = .userProfile
            } else {
                reason = notWanted[profile.ssid] ?? .unclaimed
            }
            if active.contains(profile.path) {
                keptWhileActive = true
                continue
            }
            if adopting, reason == .unclaimed || notWanted[profile.ssid] != nil, written[profile.uuid] == nil {
                keptWhileAdopting = true
                covered.insert(profile.ssid)
                continue
            }
            actions.append(.delete(profile, reason))
        }
        for spec in wanted where byCallFor[spec.ssid] == spec && !covered.contains(spec.ssid) {
            covered.insert(spec.ssid)
            actions.append(.add(spec))
        }
    }

    /// Withdraws every marked profile that is not in use (at shutdown).
    public static func withdrawAll(held: [Held], active: Set<Held.Path>) -> [Action] {
        held.filter { $0.isProvisioned && !active.contains($0.path) }.sorted { $0.path < $1.path }.map { .delete($0, .shutdown) }
    }
}

/// Why provisioning withdraws a profile, for the log.
public enum ProfileWithdrawal: String, Sendable, Hashable {
    /// No registered helper claims the network with a password any more.
    case unclaimed = "no helper supplies its password any more"
    /// The user has a profile of their own for the network.
    case userProfile = "the user has a profile of their own for it"
    /// Another marked profile already stands for the network.
    case duplicate = "another provisioned profile exists for it"
    /// The daemon is stopping.
    case shutdown = "the daemon is stopping"
    /// Its helper supplies passwords for more networks than one helper may have profiles for.
    case overBound = "its helper supplies passwords for more networks than one helper may have profiles for"
    /// The network has not been seen in a scan for a while (or not repeatedly).
    case unseen = "the network has not been seen in range for a while"
}
