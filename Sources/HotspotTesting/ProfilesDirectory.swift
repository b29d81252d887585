// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A temporary profiles directory (the daemon's `profiles-dir`), removed when the last copy of
/// this value goes away (or at ``remove()``).
public struct ProfilesDirectory: Sendable {
    public let scratch: ScratchDirectory
    public var url: URL { scratch.url }
    public var path: String { url.path }

    public init() throws {
        scratch = try ScratchDirectory("profiles")
    }

    /// Writes profile file `name` with `mode` (the daemon reads only files no one else may
    /// write) and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let p = url.appendingPathComponent(name).path
        try text.write(toFile: p, atomically: false, encoding: .utf8)
        chmod(p, mode_t(mode))
        return p
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
