// SPDX-License-Identifier: Apache-2.0
/// Which password each network gets, from helpers' filter-scan-list answers, for the daemon's
/// provisioning of NetworkManager profiles.
///
/// Holds every helper's latest claims per network. An answer replaces what the helper said about
/// the networks it was asked about (the scan list in the command) and the networks it claims;
/// claims about other networks stand. So a network that drops out of a scan list (out of range
/// for a while), an interface that goes away or NetworkManager restarting does not withdraw a
/// profile, which would then be added again, under a new uuid, when the network returns. Claims go
/// when the helper, asked about the network again, no longer claims it (or answers anything but
/// success, as the core counts it), or leaves. Conflicts are resolved exactly as the scan list and
/// the secret agent resolve them (``ScanListAnnotator``: confidence, then the earlier registration).
public struct PasswordClaims: Sendable, Equatable {
    private struct Entry: Sendable, Equatable {
        var helper: RegisteredHelper
        var bySSID: [SSID: [ScanClaim]] = [:]
    }
    private var helpers: [HelperID: Entry] = [:]

    public init() {}

    /// Records a helper's answer to filter-scan-list: `asked` are the networks the command listed.
    /// Claims with confidence none count as no claim.
    public mutating func record(_ helper: RegisteredHelper, asked: [Network], claims: [ScanClaim]) {
        var entry = helpers[helper.identifier].flatMap { $0.helper == helper ? $0 : nil } ?? Entry(helper: helper)
        let kept = claims.filter { $0.confidence > .none }
        for ssid in Set(asked.map(\.ssid)).union(kept.map(\.ssid)) { entry.bySSID[ssid] = nil }
        for claim in kept { entry.bySSID[claim.ssid, default: []].append(claim) }
        helpers[helper.identifier] = entry.bySSID.isEmpty ? nil : entry
    }

    /// Forgets a helper that unregistered or left the bus.
    public mutating func remove(_ helper: HelperID) {
        helpers[helper] = nil
    }

    /// The winning claim for every claimed SSID that carries a password. A claim for one BSSID
    /// supplies the password for the whole network, as it does for the secret agent: a profile
    /// is per SSID.
    public func passwords() -> [SSID: ScanAnnotation] {
        var perHelper: [(helper: RegisteredHelper, claims: [ScanClaim])] = []
        var ssids = Set<SSID>()
        for entry in helpers.values {
            ssids.formUnion(entry.bySSID.keys)
            let claims = entry.bySSID.keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.flatMap { entry.bySSID[$0] ?? [] }.map {
                ScanClaim(ssid: $0.ssid, confidence: $0.confidence, password: $0.password, displayName: $0.displayName)
            }
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
