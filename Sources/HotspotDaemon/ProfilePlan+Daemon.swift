// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import NetworkManager

/// The core's ``ProfilePlan`` over NetworkManager's profiles, as the NetworkManager module
/// describes them.
typealias NetworkManagerProfilePlan = ProfilePlan<ProvisionedProfileSpec, HeldProfile>

extension ProvisionedProfileSpec: WantedProfile {}

extension HeldProfile: HeldWiFiProfile {}
