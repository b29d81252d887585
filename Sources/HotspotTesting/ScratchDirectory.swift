// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A directory under the temporary directory that is removed, with what is in it, when the last
/// reference goes away: for suites (structs, which have no deinit) and fixtures that would
/// otherwise leave `label-UUID` directories behind on every run.
public final class ScratchDirectory: Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        ExitCleanup.register(url)
    }

    public func appendingPathComponent(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { ExitCleanup.remove(url) }
}
