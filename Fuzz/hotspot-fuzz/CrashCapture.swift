// SPDX-License-Identifier: Apache-2.0
import FuzzTargets
import Foundation

/// Keeps the input being run where a signal handler can write it out: Swift traps cannot be
/// caught, so the input is saved from SIGILL/SIGTRAP/SIGSEGV/SIGBUS/SIGABRT before the process
/// dies. Only async-signal-safe calls (open, write, close) run in the handler. The driver is
/// single-threaded: the `nonisolated(unsafe)` state is written by it and read only by the handler
/// running on the same thread.
enum CrashCapture {
    nonisolated(unsafe) static var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
    nonisolated(unsafe) static var length = 0
    nonisolated(unsafe) static var path = UnsafeMutablePointer<CChar>.allocate(capacity: 4096)

    nonisolated(unsafe) static var directory = "."

    static func install(directory: String) {
        self.directory = directory
        for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT] {
            signal(sig) { sig in
                let fd = open(CrashCapture.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                if fd >= 0 {
                    _ = write(fd, CrashCapture.buffer, CrashCapture.length)
                    close(fd)
                }
                let note = "hotspot-fuzz: crash; input saved to "
                _ = write(2, note, note.utf8.count)
                _ = write(2, CrashCapture.path, strlen(CrashCapture.path))
                _ = write(2, "\n", 1)
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }

    static func arm(_ target: FuzzTarget, _ input: [UInt8]) {
        length = min(input.count, 1 << 20)
        input.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: length) }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in input { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
        let name = "\(directory)/crash-\(target.rawValue)-\(String(hash, radix: 16))"
        _ = name.withCString { strncpy(path, $0, 4095) }
    }
}
