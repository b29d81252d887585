// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import NetworkManager

/// The core's ``ManagerStatus`` read from NetworkManager's values and the daemon's published ones.
extension ManagerStatus.Primary {
    init(type: String?, interface: InterfaceID?, connectivity: NetworkManager.Connectivity) {
        self.init(type: type, interface: interface, connectivity: ManagerStatus.Connectivity(connectivity))
    }
}

extension ManagerStatus.Connectivity {
    init(_ connectivity: NetworkManager.Connectivity) {
        switch connectivity {
        case .unknown: self = .unknown
        case .none: self = .none
        case .portal: self = .portal
        case .limited: self = .limited
        case .full: self = .full
        }
    }

    init(_ connectivity: LinkConnectivity) {
        switch connectivity {
        case .unknown: self = .unknown
        case .none: self = .none
        case .portal: self = .portal
        case .limited: self = .limited
        case .full: self = .full
        }
    }
}
