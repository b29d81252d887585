// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import HotspotCore

/// One Wi-Fi interface as the daemon publishes it. Its NetworkManager device is the
/// NetworkManager adapter's fact, read by the bus server when `Device` is asked for.
struct InterfaceRecord: Sendable {
    var number: Int
    var name: InterfaceID
    var status: InterfaceStatus?
    var scanList: [AnnotatedNetwork] = []
    var connectivity = LinkConnectivity.unknown
    var portalURL = ""
    /// The venue's information page (RFC 8908 `venue-info-url`), "" when none.
    var venueInfoURL = ""
    var sessionExpires: UInt64 = 0
    /// Why the joined network is as it is: the chosen helper's reason for its last answer, or the
    /// core's explanation.
    var reason = InterfaceReason.none
    /// The sign-in form waiting for the user (`SignInForm`), nil when none.
    var signInForm: SignInFormDescription?
}
