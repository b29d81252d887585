// SPDX-License-Identifier: Apache-2.0
/// What a scan-list entry is labelled with: the winning helper's claim.
public struct ScanAnnotation: Hashable, Sendable {
    /// The helper whose claim won.
    public let helper: HelperID
    /// The name shown beside the network: the claim's display name, else the helper's.
    public let displayName: String
    /// The helper's confidence.
    public let confidence: Confidence
    /// The password the helper supplied, if any.
    public let password: Password?
}

/// A scan-list entry with its annotation, if any helper claimed it.
public struct AnnotatedNetwork: Hashable, Sendable {
    /// The access point.
    public let network: Network
    /// The winning claim, if any.
    public let annotation: ScanAnnotation?

    /// The display name to show (the contract's `display-name`), or nil.
    public var displayName: String? { annotation?.displayName }
    /// Whether a password is known (the contract's `has-password`).
    public var hasPassword: Bool { annotation?.password != nil }
}

/// Merges helpers' filter-scan-list claims into one annotation per access point.
///
/// Conflicts are resolved by confidence, then by registration order (the earlier registration
/// wins); a claim naming a BSSID competes only for that access point. Building the index is linear
/// in the number of claims and each lookup is a dictionary access, so annotating a scan list costs
/// O(claims + access points).
public struct ScanListAnnotator: Sendable {
    private struct Candidate: Sendable {
        let annotation: ScanAnnotation
        let registrationOrder: UInt64

        func beats(_ other: Candidate) -> Bool {
            if annotation.confidence != other.annotation.confidence {
                return annotation.confidence > other.annotation.confidence
            }
            return registrationOrder < other.registrationOrder
        }
    }

    private struct AccessPointKey: Hashable, Sendable {
        let ssid: SSID
        let bssid: String
    }

    private var bySSID: [SSID: Candidate] = [:]
    private var byAccessPoint: [AccessPointKey: Candidate] = [:]

    /// Indexes the claims of each helper. Claims with confidence none are ignored.
    public init(claims: [(helper: RegisteredHelper, claims: [ScanClaim])]) {
        for (helper, helperClaims) in claims {
            for claim in helperClaims where claim.confidence > .none {
                let candidate = Candidate(
                    annotation: ScanAnnotation(
                        helper: helper.identifier,
                        displayName: claim.displayName ?? helper.displayName,
                        confidence: claim.confidence,
                        password: claim.password
                    ),
                    registrationOrder: helper.registrationOrder
                )
                if let bssid = claim.bssid, !bssid.isEmpty {
                    let key = AccessPointKey(ssid: claim.ssid, bssid: bssid.lowercased())
                    if byAccessPoint[key].map({ candidate.beats($0) }) ?? true {
                        byAccessPoint[key] = candidate
                    }
                } else if bySSID[claim.ssid].map({ candidate.beats($0) }) ?? true {
                    bySSID[claim.ssid] = candidate
                }
            }
        }
    }

    /// The winning annotation for one access point, if any helper claimed it.
    public func annotation(for network: Network) -> ScanAnnotation? {
        let forSSID = bySSID[network.ssid]
        guard !byAccessPoint.isEmpty,
            let forAccessPoint = byAccessPoint[AccessPointKey(ssid: network.ssid, bssid: network.bssid.lowercased())]
        else { return forSSID?.annotation }
        guard let forSSID else { return forAccessPoint.annotation }
        return forAccessPoint.beats(forSSID) ? forAccessPoint.annotation : forSSID.annotation
    }

    /// Annotates every access point of a scan list, keeping its order.
    public func annotate(_ networks: [Network]) -> [AnnotatedNetwork] {
        networks.map { AnnotatedNetwork(network: $0, annotation: annotation(for: $0)) }
    }
}
