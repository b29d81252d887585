// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import HotspotCore
import ServiceLifecycle
import Synchronization
import UnixSignals

/// SIGHUP, as a service: each one reloads; the daemon never ends on it.
final class ReloadService: Service {
    let hangups: UnixSignalsSequence
    let reload: @Sendable () async -> Void

    init(hangups: UnixSignalsSequence, reload: @escaping @Sendable () async -> Void) {
        self.hangups = hangups
        self.reload = reload
    }

    func run() async throws {
        let (hangups, reload) = (self.hangups, self.reload)
        await cancelWhenGracefulShutdown {
            for await _ in hangups { await reload() }
        }
    }
}

/// The profiles in force, replaced by a reload.
final class LiveProfiles: Sendable {
    private let set: Mutex<ProfileSet>
    init(_ s: ProfileSet) { set = Mutex(s) }
    func get() -> ProfileSet { set.withLock { $0 } }
    func set(_ s: ProfileSet) { set.withLock { $0 = s } }
}

extension Engine {
    /// The profiles changed: every interface's scan list goes to the helpers again.
    func profilesReloaded() async {
        for (name, r) in interfaces.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !r.scanList.isEmpty {
            await handle(.scanListChanged(name, r.scanList.map(\.network)))
        }
    }
}
