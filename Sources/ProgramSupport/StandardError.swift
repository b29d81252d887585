// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Writes to file descriptor 2 without Foundation's FileHandle (the shipped programs link no
/// full Foundation): one `write` per line, retried on EINTR and short writes, so lines from
/// several tasks do not interleave.
public enum StandardError {
    public static func writeLine(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
