// SPDX-License-Identifier: Apache-2.0
import Connectivity
import HotspotCore

/// One check of a link: its verdict and the state the schedule publishes.
struct ConnectivityReport: Sendable {
    var interface: InterfaceID
    /// The engine's number for the join the check was of.
    var link: UInt64
    var verdict: ProbeVerdict
    var published: ProbeVerdict.State
    /// Whether the join has its verdict (a definite one, or none for minutes); until then "none"
    /// is not final and no helper's silence makes the network signed in.
    var settled: Bool = true
}
