// SPDX-License-Identifier: Apache-2.0
import ServiceLifecycle

/// A stream followed until the daemon stops, as a service: each element is handed to `forward`,
/// one at a time and in order. The daemon's streams (the monitor's reports, the sign-in forms'
/// changes, SIGHUP) reach what they feed through one of these, wired in `Daemon.run`, so nothing
/// holds the engine but what it was given.
final class StreamService<Elements: AsyncSequence & Sendable>: Service where Elements.Failure == Never {
    let elements: Elements
    let forward: @Sendable (Elements.Element) async -> Void

    init(_ elements: Elements, forward: @escaping @Sendable (Elements.Element) async -> Void) {
        self.elements = elements
        self.forward = forward
    }

    func run() async throws {
        let (elements, forward) = (self.elements, self.forward)
        await cancelWhenGracefulShutdown {
            for await element in elements { await forward(element) }
        }
    }
}
