// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import HotspotCore
import Synchronization

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
