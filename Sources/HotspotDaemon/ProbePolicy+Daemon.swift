// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore
import NetworkManager

/// The core's ``ProbePolicy`` over the daemon's probes.
typealias ConnectivityProbePolicy = ProbePolicy<ConnectivityProbe>

extension ConnectivityProbe: ProbeEndpoint {
    public static var builtInSet: [ConnectivityProbe] { defaultSet }

    /// What NetworkManager itself accepts as online (`X-NetworkManager-Status: online`, its
    /// default `response=` text, or an empty 204).
    public static func networkManagerProbe(uri: String) -> ConnectivityProbe {
        ConnectivityProbe(url: uri, expectation: .anyOf([.header(name: "X-NetworkManager-Status", value: "online"),
                                                          .bodyPrefix("NetworkManager is online"), .status(204)]))
    }
}

extension NetworkManagerCheck {
    /// NetworkManager's settings as its client reads them.
    init(_ settings: ConnectivityCheckSettings) {
        self.init(enabled: settings.enabled, uri: settings.uri)
    }
}
