import HotspotCore

/// Which password each network gets, from helpers' filter-scan-list answers, for provisioning.
///
/// Holds every helper's latest claims per interface. Unlike the core's per-interface scan-list
/// state, a helper's claims outlive the interface they were made on (NetworkManager restarting,
/// a USB adapter unplugged) and are dropped only when the helper answers again on that interface,
/// leaves, or unregisters: a provisioned profile must not be withdrawn and re-added because a
/// device blinked. Conflicts are resolved exactly as the scan list and the secret agent resolve
/// them (``ScanListAnnotator``: confidence, then the earlier registration).
struct PasswordClaims: Sendable, Equatable {
    private struct Entry: Sendable, Equatable {
        var helper: RegisteredHelper
        var byInterface: [InterfaceID: [ScanClaim]] = [:]
    }
    private var helpers: [HelperID: Entry] = [:]

    /// Records a helper's answer to filter-scan-list on an interface, replacing its previous
    /// answer there. Claims with confidence none count as no claim.
    mutating func record(_ helper: RegisteredHelper, interface: InterfaceID, claims: [ScanClaim]) {
        var entry = helpers[helper.identifier].flatMap { $0.helper == helper ? $0 : nil } ?? Entry(helper: helper)
        let kept = claims.filter { $0.confidence > .none }
        entry.byInterface[interface] = kept.isEmpty ? nil : kept
        helpers[helper.identifier] = entry.byInterface.isEmpty ? nil : entry
    }

    /// Forgets a helper that unregistered or left the bus.
    mutating func remove(_ helper: HelperID) {
        helpers[helper] = nil
    }

    /// The winning claim for every claimed SSID that carries a password. A claim for one BSSID
    /// supplies the password for the whole network, as it does for the secret agent: a profile
    /// is per SSID.
    func passwords() -> [SSID: ScanAnnotation] {
        var perHelper: [(helper: RegisteredHelper, claims: [ScanClaim])] = []
        var ssids = Set<SSID>()
        for entry in helpers.values {
            let claims = entry.byInterface.keys.sorted().flatMap { entry.byInterface[$0] ?? [] }.map {
                ScanClaim(ssid: $0.ssid, confidence: $0.confidence, password: $0.password, displayName: $0.displayName)
            }
            ssids.formUnion(claims.map(\.ssid))
            perHelper.append((entry.helper, claims))
        }
        let annotator = ScanListAnnotator(claims: perHelper)
        var out: [SSID: ScanAnnotation] = [:]
        for ssid in ssids {
            if let winner = annotator.annotation(for: Network(ssid: ssid)), winner.password != nil { out[ssid] = winner }
        }
        return out
    }
}
