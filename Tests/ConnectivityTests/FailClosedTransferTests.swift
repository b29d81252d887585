// SPDX-License-Identifier: Apache-2.0
import Connectivity
import Foundation
import PortalSimulator
import Testing

/// A transfer that cannot be held to its link does not run: nothing reaches the
/// server, and the error says why.
@Suite struct FailClosedTransferTests {
    @Test func aProbeWhoseInterfaceBindingFailsDoesNotGoOut() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .clickThrough)) { h in
            var o = TransferOptions()
            o.interface = "nosuchif0"
            let result = await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(h.port)/generate_204"), options: o)
            guard case .failure(let e) = result else { Issue.record("the transfer ran: \(result)"); return }
            #expect(e.detail.lowercased().contains("nosuchif0") || e.detail.lowercased().contains("interface"), "\(e)")
            #expect(h.sim.events().isEmpty, "the server saw \(h.sim.events().map(\.path))")
        }
    }

    @Test func anOptionLibcurlRefusesStopsTheTransferBeforeAnyIO() async throws {
        try await LoopbackHotspot.run(PortalSimulatorConfiguration(mode: .clickThrough)) { h in
            // libcurl refuses a string option over CURL_MAX_INPUT_LENGTH (8,000,000 bytes).
            var o = TransferOptions()
            o.userAgent = String(repeating: "a", count: 8_000_001)
            let result = await HTTPTransfer.perform(HTTPRequestSpec(url: "http://127.0.0.1:\(h.port)/generate_204"), options: o)
            guard case .failure(let e) = result else { Issue.record("the transfer ran: \(result)"); return }
            #expect(e.kind == .invalidRequest && e.detail.contains("CURLOPT_USERAGENT") && e.detail.contains("nothing was sent"), "\(e)")
            #expect(h.sim.events().isEmpty, "the server saw \(h.sim.events().map(\.path))")
        }
    }
}
