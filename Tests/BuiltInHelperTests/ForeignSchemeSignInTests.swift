// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import PortalSimulator
import Testing

/// A hotspot that answers the connectivity probe with a redirect to `smb:` (or `file:`, `ssh:`)
/// never gets that address published as `PortalUrl`, where the session agent and the extension
/// would open it; the log says why.
extension DaemonEndToEnd {
    @Suite(.serialized, .enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock; skipped"))
    struct ForeignSchemeSignInTests {
        /// An HTTP server on loopback answering every request with `302 Location: <argv[1]>`.
        static let redirector = """
            import http.server, sys
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(302); self.send_header('Location', sys.argv[1]); self.send_header('Content-Length', '0'); self.end_headers()
                do_HEAD = do_GET
                def log_message(self, *a): pass
            s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
            print('port', s.server_address[1], flush=True)
            s.serve_forever()
            """

        @Test(arguments: ["smb://198.51.100.7/hotspot-login", "file:///etc/passwd"])
        func aRedirectToAnotherSchemeIsNotPublished(_ location: String) async throws {
            let server = try ManagedProcess.launch(TestEnvironment.python, ["-c", Self.redirector, location], name: "redirector")
            defer { server.stop() }
            #expect(await server.waitForOutput(containing: "port "), "\(server.output)")
            let line = server.output.split(separator: "\n").first { $0.hasPrefix("port ") } ?? ""
            let port = try #require(UInt16(String(line.dropFirst(5))), "\(server.output)")
            try await PortalScenario.run(PortalSimulatorConfiguration(mode: .open),
                                         probes: { _ in "http://connectivitycheck.gstatic.com:\(port)/generate_204 status=204" }) { s in
                try await s.join("CityFree")
                try await s.waiter.until("a portal verdict", context: { s.daemon.log.suffix(3000).description }) {
                    try await s.string("Connectivity") == "portal"
                }
                let published = try await s.string("PortalUrl")
                #expect(published == "", "published \(published)")
                #expect(s.daemon.log.contains("not publishing the network's sign-in address '\(location)'"), "\(s.daemon.log.suffix(3000))")
                #expect(s.daemon.log.contains("only http and https are opened"))
            }
        }
    }
}
