// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// A detached POSIX thread running one closure: what blocking work runs on (a libcurl transfer,
/// a DHCP exchange, an fsync'd save), so it never holds one of Swift concurrency's few threads.
/// Foundation's `Thread` would pull full Foundation (and ICU's data) into the shipped binary.
public enum DetachedThread {
    /// Starts `body` on a new detached thread with a `stackSize`-byte stack, named `name` (at most
    /// 15 bytes are kept, the kernel's limit). Returns false, running nothing, when no thread
    /// could be made (the caller fails its work with that reason).
    @discardableResult
    public static func start(name: String, stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box { let body: @Sendable () -> Void; let name: String; init(_ b: @escaping @Sendable () -> Void, _ n: String) { body = b; name = n } }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body, name))
        var tid = pthread_t()
        let rc = pthread_create(&tid, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            // pthread_setname_np(3) is a GNU extension Glibc's module does not export.
            typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
            if let symbol = dlsym(nil, "pthread_setname_np") {
                _ = String(decoding: box.name.utf8.prefix(15), as: UTF8.self).withCString { unsafeBitCast(symbol, to: SetName.self)(pthread_self(), $0) }
            }
            box.body()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            return false
        }
        return true
    }

    /// Runs `body` on a thread of its own and returns its result, or nil, running nothing, when
    /// no thread could be made (the caller fails its work with that reason rather than block the
    /// thread it was called on).
    public static func run<T: Sendable>(name: String, stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            if !start(name: name, stackSize: stackSize, { continuation.resume(returning: body()) }) {
                continuation.resume(returning: nil)
            }
        }
    }
}
