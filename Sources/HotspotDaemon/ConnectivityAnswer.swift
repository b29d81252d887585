// SPDX-License-Identifier: Apache-2.0
/// CheckConnectivity's answer: the published values after a fresh check, and the check's reason.
struct ConnectivityAnswer: Sendable {
    var connectivity: LinkConnectivity
    var portalURL: String
    var sessionExpires: UInt64
    var reason: String
}
