// SPDX-License-Identifier: Apache-2.0
import HotspotHelperKit
import HotspotProtocol

/// A built-in helper, called in the daemon: what it answers (a profile's password included)
/// leaves the daemon only through NetworkManager's secret-agent call.
final class InProcessTransport: HelperTransport {
    let helper: InProcessHelper
    init(_ helper: InProcessHelper) { self.helper = helper }

    var route: CommandRoute { .daemon }
    var peer: String? { nil }
    var left: String? { nil }

    func send(_ command: WireCommand, timeout: Duration) -> @Sendable () async -> CommandOutcome? {
        { [helper] in
            let response = await helper.answer(command)
            // The same checks as an answer from the bus (caps, claims only for networks asked about).
            do { return .answered(try WireResponse.decode(response.encode(), answering: command)) } catch let error as WireError {
                return .malformed(error.problem)
            } catch {
                return .malformed("\(error)")
            }
        }
    }

    func close(reason: String) async {}
}
