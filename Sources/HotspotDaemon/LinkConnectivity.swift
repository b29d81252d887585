// SPDX-License-Identifier: Apache-2.0
import Connectivity

/// An interface's connectivity as the daemon publishes it (`Connectivity`): the
/// hysteresis-smoothed state of its checks, unknown until one is made.
enum LinkConnectivity: Sendable, Equatable {
    case unknown, none, portal, limited, full

    init(_ state: ProbeVerdict.State) {
        switch state {
        case .online: self = .full
        case .portal: self = .portal
        case .partial: self = .limited
        case .none: self = .none
        }
    }
}
