// SPDX-License-Identifier: Apache-2.0
import ServiceLifecycle

/// The connectivity monitor's side of the daemon, as a service: every check's report reaches the
/// engine, which publishes `Connectivity`, `PortalUrl`… (NetworkManager's own connectivity
/// setting reaches the monitor through the engine, from the NetworkManager watcher's events).
final class ConnectivityService: Service {
    let reports: AsyncStream<ConnectivityReport>
    let engine: Engine

    init(reports: AsyncStream<ConnectivityReport>, engine: Engine) {
        self.reports = reports
        self.engine = engine
    }

    func run() async throws {
        let (reports, engine) = (self.reports, self.engine)
        await cancelWhenGracefulShutdown {
            for await report in reports {
                await engine.connectivityChecked(report.interface, link: report.link, verdict: report.verdict, published: report.published,
                                                 settled: report.settled)
            }
        }
    }
}
