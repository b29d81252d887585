// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity

/// The built-in helpers' view of the daemon: transfers bound and resolved like the monitor's
/// probes, and the monitor's verdicts.
struct DaemonPortalEnvironment: PortalEnvironment {
    let monitor: ConnectivityMonitor
    let settings: ConnectivitySettings

    func transferOptions(for interface: String) async -> TransferOptions {
        // A slow gateway's sign-in pages take as long as its probes' answers did.
        let limit = max(.seconds(10), await monitor.answerLimit(interface))
        var o = TransferOptions(timeout: limit, connectTimeout: limit)
        o.interface = settings.bindInterface ? interface : nil
        o.dnsServers = await monitor.dnsServers(interface)
        o.caFile = settings.caFile
        return o
    }

    func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict {
        await monitor.verdict(for: interface, fresh: fresh)
    }

    func captivePortalAPI(for interface: String) async -> String? {
        await monitor.captivePortalAPI(interface)
    }

    /// The first plain-http probe of the policy in force now (a gateway redirects only http),
    /// else its first probe: never an endpoint the policy does not name (it follows NetworkManager's
    /// connectivity setting, which may change after start).
    var wisprProbeURL: String {
        get async {
            let probes = await monitor.policy.probes
            return probes.first { !$0.isHTTPS }?.url ?? probes.first?.url ?? ConnectivityProbe.defaultSet[0].url
        }
    }
}
