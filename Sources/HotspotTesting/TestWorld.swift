// SPDX-License-Identifier: Apache-2.0

/// What a test starts and must stop again: a bus, NetworkManager's mock, the daemon, a portal
/// simulator… (``DaemonScenario``, and the suites' own scenarios built on it).
///
/// A test owns its world through ``run(_:)`` (or a type's static `run`, which starts the world
/// first): the body runs, and the world is stopped, and waited for, before `run` returns, also
/// when the body throws. A `defer { Task { await world.stop() } }` could not wait: the next test
/// started while this one's processes were still going away.
public protocol TestWorld: Sendable {
    /// Stops everything the world started and returns once it has.
    func stop() async
}

extension TestWorld {
    /// Runs `body` in this world, then stops the world and waits until it has stopped, whether
    /// `body` returned or threw.
    public func run<Result>(_ body: (Self) async throws -> Result) async rethrows -> Result {
        let result: Result
        do {
            result = try await body(self)
        } catch {
            await stop()
            throw error
        }
        await stop()
        return result
    }
}
