// SPDX-License-Identifier: Apache-2.0
@testable import Connectivity
import Testing
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The thread a blocking transfer runs on: it runs the work, off the caller's thread, with the
/// name it was given (what `top -H` shows).
@Suite struct DetachedThreadTests {
    @Test func runsTheBodyOnItsOwnNamedThread() async throws {
        let caller = pthread_self()
        var started = false
        let result = await withCheckedContinuation { (done: CheckedContinuation<(name: String, sameThread: Bool), Never>) in
            started = DetachedThread.start(name: "hotspot-probe-with-a-long-name") {
                var buffer = [CChar](repeating: 0, count: 32)
                typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32
                if let symbol = dlsym(nil, "pthread_getname_np") { _ = unsafeBitCast(symbol, to: GetName.self)(pthread_self(), &buffer, buffer.count) }
                let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                done.resume(returning: (name, pthread_equal(pthread_self(), caller) != 0))
            }
            if !started { done.resume(returning: ("", true)) }
        }
        #expect(started)
        #expect(!result.sameThread)
        #expect(result.name == "hotspot-probe-w", "the kernel keeps 15 bytes of a thread's name")
    }
}
