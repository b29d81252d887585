// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// How long a test's wait for an event may take before it fails: a safety net, not a measure.
/// A wait that succeeds ends at the event that made its condition true, so a long net costs a
/// passing test nothing; it only keeps a machine that is busy (two cores running five builds,
/// `make test-loaded`'s CPU hog) from failing a test whose event is merely late. Every step the
/// suite waits for takes a few seconds at most when the machine is idle; the net is ten times
/// that and more. A failed wait says what it waited for (``Changes/until(_:timeout:context:_:)``).
///
/// `HOTSPOT_TEST_SAFETY_NET` (seconds) overrides it, e.g. to make a hanging test fail sooner
/// while working on it.
public enum SafetyNet {
    /// The default limit of every wait in the test kit.
    public static let wait: Duration = {
        if let text = getenv("HOTSPOT_TEST_SAFETY_NET").map({ String(cString: $0) }), let seconds = Int(text), seconds > 0 {
            return .seconds(seconds)
        }
        return .seconds(60)
    }()
}

/// The value of `body`, which must finish within `timeout`; otherwise throws
/// ``TestKitError/timeout(_:)`` naming `what`. For a step that ends by itself (a call that fails
/// when its peer leaves, an exchange cut short by a bad answer) where the test must tell that end
/// from a much later deadline: give the deadline far more than the net (600 s), and the step
/// ending at all within the net shows which of the two ended it. A body that does not finish is
/// cancelled and left behind.
public func within<T: Sendable>(_ what: String, timeout: Duration = SafetyNet.wait,
                                _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = Changes()
    let task = Task {
        do {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.bump()
    }
    do {
        try await done.until(what, timeout: timeout) { outcome.withLock { $0 != nil } }
    } catch {
        task.cancel()
        throw error
    }
    return try outcome.withLock { $0! }.get()
}
