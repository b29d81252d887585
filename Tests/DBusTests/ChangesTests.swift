// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Synchronization
import Testing

/// What every test's waits rest on (HotspotTesting's `Changes`): a wait ends at the change that
/// makes its condition true, fails with its context when none does, and a watched window fails
/// at the change that breaks its condition.
struct ChangesTests {
    @Test func aWaitEndsWhenAChangeMakesItsConditionTrue() async throws {
        let changes = Changes()
        let value = Mutex(0)
        let setter = Task {
            for i in 1...3 {
                value.withLock { $0 = i }
                changes.bump()
                await Task.yield()
            }
        }
        try await changes.until("the value reaches 3") { value.withLock { $0 } == 3 }
        #expect(value.withLock { $0 } == 3)
        await setter.value
    }

    @Test func aWaitThatNeverHoldsFailsNamingWhatItWaitedForWithItsContext() async {
        let changes = Changes()
        do {
            try await changes.until("the impossible", timeout: .milliseconds(50), context: { "the context" }) { false }
            Issue.record("a condition that never held ended the wait")
        } catch let error as TestKitError {
            #expect("\(error)".contains("the impossible") && "\(error)".contains("the context"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aForwardedChangeWakesTheFollower() async throws {
        let (source, follower) = (Changes(), Changes())
        source.forward(to: follower)
        let flag = Mutex(false)
        let setter = Task {
            flag.withLock { $0 = true }
            source.bump()
        }
        try await follower.until("the flag is set") { flag.withLock { $0 } }
        await setter.value
    }

    @Test func aWatchedWindowFailsAtTheChangeThatBreaksItsCondition() async {
        let changes = Changes()
        let broken = Mutex(false)
        let breaker = Task {
            broken.withLock { $0 = true }
            changes.bump()
        }
        let held = await changes.holdsThroughout(.seconds(30)) { !broken.withLock { $0 } }
        #expect(!held)
        await breaker.value
        #expect(await changes.holdsThroughout(.milliseconds(20)) { true })
    }
}
