// SPDX-License-Identifier: Apache-2.0
import DBus
import FoundationEssentials
import HotspotCore
import Logging
import NetworkManager

/// Provisions NetworkManager profiles for networks a helper claims with a password, so the
/// password reaches NetworkManager however the join starts.
///
/// NetworkManager asks only the secret agents of the user who requested an activation (and on
/// autoconnect the desktop's agent first), so the daemon's secret agent is never asked for a
/// desktop user's click. A profile that already holds the PSK as a system-owned secret
/// (`psk-flags` 0) needs no agent at all. The daemon therefore adds such profiles in memory
/// (`AddConnection2` IN_MEMORY: never written to disk), rewrites them when the password changes
/// (`Update2` IN_MEMORY) and deletes them when no helper supplies the password any more; the
/// secret agent stays as the fallback. The decisions are ``ProfilePlan``'s; this actor does the
/// I/O, one reconciliation at a time, and logs what it changed (never a password).
///
/// Bounded against a beacon flood (one helper claiming `ssid-prefix=Hotel-` while a cheap device
/// broadcasts Hotel-1 … Hotel-120): a profile is made only for a network seen repeatedly (in scan
/// lists at least ``sightingSpan`` apart), at most ``maximumPerSource`` per helper (the networks
/// seen longest first; the rest refused with a log line), and withdrawn once its network has not
/// been seen for ``unseenExpiry`` (docs/NETWORKMANAGER.md, "Provisioning").
actor ProfileProvisioner {
    /// Profiles one helper's passwords may have at once: far more networks than a place offers
    /// (a hotel, a campus, a city's hotspots in range at once), far fewer than a flood mints.
    static let defaultMaximumPerSource = 32
    /// How far apart two sightings of a network must be before it gets a profile: NetworkManager
    /// scans an idle device every few seconds to two minutes, so a network in range passes at its
    /// next scans; a burst of beacons does not.
    static let defaultSightingSpan: Duration = .seconds(30)
    /// How long a network may go unseen before its profile is withdrawn: longer than any gap
    /// between scans of a network still around, and a working day's absence (lunch, a meeting
    /// elsewhere) costs one AddConnection2 on return, while a flood's profiles do not outlive it
    /// by more than an hour.
    static let defaultUnseenExpiry: Duration = .seconds(3600)
    /// SSIDs whose sightings are kept: NetworkManager lists a few hundred access points at most.
    static let maximumSightings = 4096

    let maximumPerSource: Int
    let sightingSpan: Duration
    let unseenExpiry: Duration
    /// Now, for sightings and their expiry (a test's own clock, else the continuous one).
    private let clock: @Sendable () -> ContinuousClock.Instant
    /// When each SSID was first and last seen in a scan list (dropped once unseen for ``unseenExpiry``).
    private var sightings: [[UInt8]: (first: ContinuousClock.Instant, last: ContinuousClock.Instant)] = [:]
    /// SSIDs refused for the per-helper bound, as last logged.
    private var overBound: Set<[UInt8]> = []
    private var expiryTimer: Task<Void, Never>?
    private var expiryDue: ContinuousClock.Instant?
    /// Who waits for reconciliation to settle (``settled()``).
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []

    let client: NetworkManagerClient
    let log: Logger
    /// How long marked profiles left by an earlier run are kept unclaimed after NetworkManager
    /// appears, so helpers have time to register and answer filter-scan-list.
    let adoptionGrace: Duration

    private var claims = PasswordClaims()
    /// Key management per SSID, from access points seen as WPA/WPA3-Personal; kept once learnt.
    private var keyManagement: [[UInt8]: ProfileKeyManagement] = [:]
    /// What this daemon last wrote, by uuid: secrets cannot be read back from NetworkManager.
    private var written: [String: ProvisionedProfileSpec] = [:]
    private var declined: Set<[UInt8]> = []
    /// SSIDs forgotten since the last reconciliation: their rewrite switches autoconnect on.
    private var fresh: Set<[UInt8]> = []
    private var available = false
    private var adoptUntil: ContinuousClock.Instant?
    private var reconciling = false
    private var pending = false
    private var adoptionTimer: Task<Void, Never>?
    /// Some profile is due to go once it is no longer in use.
    private var waitingForDeactivation = false
    private var recheck: Task<Void, Never>?

    init(client: NetworkManagerClient, log: Logger, adoptionGrace: Duration = .seconds(60),
         maximumPerSource: Int = defaultMaximumPerSource, sightingSpan: Duration = defaultSightingSpan,
         unseenExpiry: Duration = defaultUnseenExpiry, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.clock = clock
        self.client = client
        self.log = log
        self.adoptionGrace = adoptionGrace
        self.maximumPerSource = maximumPerSource
        self.sightingSpan = sightingSpan
        self.unseenExpiry = unseenExpiry
    }

    // MARK: - What the daemon learns

    /// A helper answered filter-scan-list about `asked` (the command's scan list).
    func helperAnswered(_ helper: RegisteredHelper, asked: [Network], claims newClaims: [ScanClaim]) {
        let before = claims.passwords()
        claims.record(helper, asked: asked, claims: newClaims)
        if claims.passwords() != before { requestReconcile() }
    }

    /// A helper unregistered or left the bus: the passwords it alone supplied are withdrawn.
    func helperDeparted(_ helper: HelperID) {
        let before = claims.passwords()
        claims.remove(helper)
        if claims.passwords() != before { requestReconcile() }
    }

    /// The user forgot a network (`ForgetNetwork`): its profile is provisioned afresh — written
    /// again whole (autoconnect on, any edit undone), or added again if someone had deleted it.
    /// A network no helper supplies a password for has no profile of ours to write: forgetting
    /// it reads nothing from NetworkManager (it is provisioned afresh if a helper claims it later).
    func forgot(_ ssid: SSID) {
        declined.remove(ssid.bytes)
        fresh.insert(ssid.bytes)
        for (uuid, spec) in written where spec.ssid == ssid.bytes { written[uuid] = nil }
        if wanted().contains(where: { $0.ssid == ssid.bytes }) { requestReconcile() }
    }

    /// An interface's access points: learns which key management each personal network needs.
    func accessPointsSeen(_ accessPoints: [AccessPoint]) {
        var changed = false
        let now = clock()
        for ssid in Set(accessPoints.map(\.ssid)) where !ssid.isEmpty {
            let before = sightings[ssid]
            let first = before.flatMap { now - $0.last < unseenExpiry ? $0.first : nil } ?? now
            sightings[ssid] = (first, now)
            // Seen repeatedly only now (or again after it expired): it may get a profile.
            let wasQualified = before.map { $0.last - $0.first >= sightingSpan && now - $0.last < unseenExpiry } ?? false
            if !wasQualified, now - first >= sightingSpan { changed = true }
        }
        // Bounded whatever a flood of random names shows: the least recently seen go first.
        if sightings.count > Self.maximumSightings {
            let drop = sightings.sorted { $0.value.last < $1.value.last }.prefix(sightings.count - Self.maximumSightings)
            for (ssid, _) in drop { sightings[ssid] = nil }
        }
        for ap in accessPoints {
            guard let km = ProfileKeyManagement(accessPoint: ap), keyManagement[ap.ssid] != km else { continue }
            // PSK wins over SAE when the network's access points disagree (transition mode).
            if keyManagement[ap.ssid] == .wpaPSK { continue }
            keyManagement[ap.ssid] = km
            changed = true
        }
        if changed { requestReconcile() }
    }

    /// NetworkManager appeared on or left the bus.
    func managerAvailable(_ isAvailable: Bool) {
        available = isAvailable
        guard isAvailable else { return }
        adoptUntil = clock() + adoptionGrace
        requestReconcile()
    }

    /// A profile was added or deleted: the user's own profile for a network (which keeps the
    /// daemon from provisioning it) may have gone, or come, or the daemon's was deleted by someone
    /// else. Planned again now rather than at the next scan or device change: a desktop user who
    /// deleted their profile and then picks the network joins with the provisioned one.
    func profilesChanged() {
        requestReconcile()
    }

    /// A device changed state: a profile kept only because it was in use may go now. NetworkManager
    /// lists the active connection for a moment after the device leaves ACTIVATED, so this looks
    /// now and once more a little later.
    func deviceStateChanged() {
        guard waitingForDeactivation else { return }
        requestReconcile()
        recheck?.cancel()
        // Outlives its caller: a delayed second look, owned (`recheck`) and cancelled by the next.
        recheck = Task { [weak self] in
            try? await Task.sleep(for: .seconds(2))
            guard !Task.isCancelled else { return }
            await self?.requestReconcile()
        }
    }

    /// ``withdrawAll()``, waiting at most `limit` for it (a stuck NetworkManager must not hold up
    /// the daemon's stop; what is not deleted then is adopted or withdrawn by the next start).
    nonisolated func withdrawAll(waitingAtMost limit: Duration) async {
        let (done, finished) = AsyncStream<Void>.makeStream()
        // Both outlive this call when the limit passes first: a stuck NetworkManager must not hold
        // up the stop; the process exits right after.
        let work = Task { await self.withdrawAll(); finished.yield() }
        let timer = Task { try? await Task.sleep(for: limit); finished.yield() }
        for await _ in done { break }
        timer.cancel()
        if !work.isCancelled { work.cancel() }
    }

    /// At shutdown: deletes every marked profile not in use. Active ones stay (deleting them
    /// would cut the user off); they vanish at reboot and the next run adopts them.
    func withdrawAll() async {
        adoptionTimer?.cancel()
        expiryTimer?.cancel()
        recheck?.cancel()
        guard available, let held = try? await client.wifiProfiles() else { return }
        let active = (try? await client.activeProfiles()) ?? []
        await carryOut(NetworkManagerProfilePlan.withdrawAll(held: held, active: active))
    }

    // MARK: - Reconciliation

    /// What the claims call for: one profile per claimed SSID whose access points were seen
    /// as WPA/WPA3-Personal (WEP, enterprise and open networks get none).
    /// Only networks seen repeatedly and not unseen for ``unseenExpiry``; at most
    /// ``maximumPerSource`` per helper, the networks seen longest first. Names carry no markup
    /// (``MarkupFreeName``): NetworkManager's clients may render it.
    func wanted() -> [ProvisionedProfileSpec] {
        wantedAndRefused().wanted
    }

    private func wantedAndRefused() -> (wanted: [ProvisionedProfileSpec], refused: [String: [[UInt8]]]) {
        let now = clock()
        var candidates: [(spec: ProvisionedProfileSpec, first: ContinuousClock.Instant)] = []
        for (ssid, winner) in claims.passwords() {
            guard let password = winner.password, let km = keyManagement[ssid.bytes], let seen = sightings[ssid.bytes],
                  seen.last - seen.first >= sightingSpan, now - seen.last < unseenExpiry else { continue }
            candidates.append((ProvisionedProfileSpec(ssid: ssid.bytes, keyManagement: km, password: password.secret, helper: winner.helper.rawValue,
                                                      name: MarkupFreeName.of(winner.displayName)), seen.first))
        }
        candidates.sort { $0.first != $1.first ? $0.first < $1.first : $0.spec.ssid.lexicographicallyPrecedes($1.spec.ssid) }
        var perHelper: [String: Int] = [:]
        var kept: [ProvisionedProfileSpec] = []
        var refused: [String: [[UInt8]]] = [:]
        for c in candidates {
            perHelper[c.spec.helper, default: 0] += 1
            if perHelper[c.spec.helper, default: 0] > maximumPerSource { refused[c.spec.helper, default: []].append(c.spec.ssid) } else { kept.append(c.spec) }
        }
        let named = ProvisionedProfileSpec.uniquelyNamed(kept.sorted { $0.ssid.lexicographicallyPrecedes($1.ssid) }).map { spec -> ProvisionedProfileSpec in
            var s = spec
            s.name = MarkupFreeName.of(spec.name)
            return s
        }
        return (named, refused)
    }

    /// Waits until no reconciliation is running or asked for (for tests: the plan has been
    /// carried out).
    func settled() async {
        guard reconciling else { return }
        await withCheckedContinuation { settleWaiters.append($0) }
    }

    /// Forgets sightings older than ``unseenExpiry`` and schedules a reconciliation for when the
    /// next wanted network's sighting expires.
    private func expireSightings() {
        let now = clock()
        sightings = sightings.filter { now - $0.value.last < unseenExpiry }
        let claimed = Set(claims.passwords().keys.map(\.bytes))
        let next = sightings.filter { claimed.contains($0.key) }.map { $0.value.last + unseenExpiry }.min()
        guard let next, next != expiryDue else { return }
        expiryDue = next
        expiryTimer?.cancel()
        // Outlives its caller: the next expiry, owned (`expiryTimer`) and replaced by the next one.
        expiryTimer = Task { [weak self] in
            try? await Task.sleep(until: next, clock: .continuous)
            guard !Task.isCancelled else { return }
            await self?.expiryReached()
        }
    }

    private func expiryReached() {
        expiryDue = nil
        expiryTimer = nil
        requestReconcile()
    }

    /// Runs a reconciliation now unless one is running; then that one runs again when it ends.
    private func requestReconcile() {
        guard !reconciling else { pending = true; return }
        reconciling = true
        // Outlives its caller: one reconciliation at a time (`reconciling`), which runs again while
        // requests arrive; withdrawAll at shutdown waits for NetworkManager itself.
        Task { await self.reconcileUntilSettled() }
    }

    private func reconcileUntilSettled() async {
        repeat {
            pending = false
            await reconcileOnce()
        } while pending
        reconciling = false
        let waiters = settleWaiters
        settleWaiters = []
        for w in waiters { w.resume() }
    }

    /// Reads NetworkManager's profiles, plans, and carries the plan out.
    func reconcileOnce() async {
        guard available else { return }
        let held: [HeldProfile]
        let active: Set<ObjectPath>
        do {
            held = try await client.wifiProfiles()
            active = try await client.activeProfiles()
        } catch {
            log.warning("provisioning: cannot read NetworkManager's profiles: \(error); trying again at the next change")
            return
        }
        let adopting = adoptUntil.map { clock() < $0 } ?? false
        expireSightings()
        let (wanted, refused) = wantedAndRefused()
        let over = Set(refused.values.joined())
        if over != overBound {
            overBound = over
            for (helper, ssids) in refused.sorted(by: { $0.key < $1.key }) {
                let names = ssids.prefix(8).map { SSID(bytes: $0).displayForm }.joined(separator: ", ") + (ssids.count > 8 ? ", …" : "")
                log.warning("provisioning: helper \(UntrustedText.forLog(helper)) supplies passwords for \(ssids.count) more networks than the \(maximumPerSource) profiles one helper may have; not provisioning \(names) (a beacon flood can show many networks matching one profile; the secret agent still answers for them when NetworkManager asks)")
            }
        }
        var notWanted: [[UInt8]: ProfileWithdrawal] = [:]
        for ssid in claims.passwords().keys.map(\.bytes) { notWanted[ssid] = over.contains(ssid) ? .overBound : .unseen }
        for spec in wanted { notWanted[spec.ssid] = nil }
        let plan = NetworkManagerProfilePlan(wanted: wanted, held: held, written: written, declined: declined, active: active, adopting: adopting,
                               fresh: fresh, notWanted: notWanted)
        fresh = []
        for ssid in plan.newlyDeclined.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            log.info("provisioning: the profile for \(SSID(bytes: ssid).displayForm) was deleted by someone else; not provisioning it again until the network is forgotten (hotspotctl forget) or the daemon restarts")
            for (uuid, spec) in written where spec.ssid == ssid { written[uuid] = nil }
        }
        declined.formUnion(plan.newlyDeclined)
        waitingForDeactivation = plan.keptWhileActive
        await carryOut(plan.actions)
        if plan.keptWhileAdopting, adoptionTimer == nil, let adoptUntil {
            // Outlives its caller: the adoption deadline, owned (`adoptionTimer`) and cancelled when met.
            adoptionTimer = Task { [weak self] in
                try? await Task.sleep(until: adoptUntil, clock: .continuous)
                guard !Task.isCancelled else { return }
                await self?.adoptionEnded()
            }
        }
    }

    private func adoptionEnded() {
        adoptionTimer = nil
        requestReconcile()
    }

    private func carryOut(_ actions: [NetworkManagerProfilePlan.Action]) async {
        for action in actions {
            switch action {
            case .add(let spec):
                let uuid = UUID().uuidString.lowercased()
                do {
                    let path = try await client.addProfile(spec.settings(uuid: uuid), flags: .inMemory)
                    written[uuid] = spec
                    log.info("provisioning: added \(path) (uuid \(uuid)) for \(Self.describe(spec)), in memory")
                } catch {
                    log.error("provisioning: could not add a profile for \(Self.describe(spec)): \(error)\(Self.hint(error))")
                }
            case .update(let held, let spec, let autoconnect):
                do {
                    try await client.updateProfile(held.path, spec.settings(uuid: held.uuid, autoconnect: autoconnect), flags: .inMemory)
                    written[held.uuid] = spec
                    log.info("provisioning: rewrote \(held.path) (uuid \(held.uuid)) for \(Self.describe(spec)), autoconnect \(autoconnect ? "on" : "off")")
                } catch {
                    log.error("provisioning: could not rewrite \(held.path) for \(Self.describe(spec)): \(error)\(Self.hint(error))")
                }
            case .delete(let held, let reason):
                do {
                    try await client.deleteProfile(held.path)
                    log.info("provisioning: withdrew \(held.path) (uuid \(held.uuid), \(SSID(bytes: held.ssid).displayForm)): \(reason.rawValue)")
                } catch {
                    log.warning("provisioning: could not withdraw \(held.path) (\(SSID(bytes: held.ssid).displayForm)): \(error)")
                }
                written[held.uuid] = nil
            }
        }
    }

    /// A profile in log form: SSID (escaped), key management, helper. Never the password.
    static func describe(_ spec: ProvisionedProfileSpec) -> String {
        "\(SSID(bytes: spec.ssid).displayForm) as '\(UntrustedText.forLog(spec.name))' (\(spec.keyManagement.rawValue), password from helper \(spec.helper))"
    }

    /// What to do about a failed write.
    static func hint(_ error: any Error) -> String {
        if case .callFailed(_, _, let e)? = error as? NetworkManagerError, e.name == DBusErrorName.unknownMethod {
            return ". NetworkManager 1.20 or later is needed for in-memory profiles (AddConnection2/Update2); meanwhile the secret agent answers for this network when NetworkManager asks it"
        }
        return ". The secret agent still answers for this network when NetworkManager asks it; the next change tries again"
    }
}
