// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// Scratch files and directories that go when their owner goes, or at the latest when the
/// process exits: a benchmark or tool that ends with `exit()` runs no deinitializers, and before
/// this every run of daemon-benchmark or hotspot-stress left its daemons' configuration files and
/// state directories in /tmp.
public enum ExitCleanup {
    private static let paths = Mutex<Set<String>>([])
    private static let installed: Bool = {
        atexit {
            for path in ExitCleanup.paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        return true
    }()

    /// Removes `url` at exit unless ``remove(_:)`` removed it first.
    public static func register(_ url: URL) {
        _ = installed
        paths.withLock { _ = $0.insert(url.path) }
    }

    /// Removes `url` now; it is no longer removed at exit.
    public static func remove(_ url: URL) {
        paths.withLock { _ = $0.remove(url.path) }
        try? FileManager.default.removeItem(at: url)
    }
}
