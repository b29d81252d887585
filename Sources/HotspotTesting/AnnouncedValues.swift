// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotProtocol

/// The values one string property of wlan0's object is announced with (PropertiesChanged), in
/// the order the bus delivered them, from ``DaemonScenarioParts/watch(_:until:)`` on: what an
/// interface went through (Connectivity portal → full, the states of a join), which a read at
/// the end cannot show.
public struct AnnouncedValues: Sendable {
    private let recording: Task<[String], Never>

    init(recording: Task<[String], Never>) { self.recording = recording }

    /// The values announced until the watch's `until` value, which ends it (and is the last).
    public var values: [String] { get async { await recording.value } }

    /// Ends the watch and returns the values announced so far.
    public func stop() async -> [String] {
        recording.cancel()
        return await recording.value
    }
}

extension DaemonScenarioParts {
    /// Records every value wlan0's string property `name` is announced with from now on, until
    /// `last` is announced (when given) or ``AnnouncedValues/stop()``.
    public func watch(_ name: String, until last: String? = nil) async throws -> AnnouncedValues {
        let announced = try await core.client.signals(matching: MatchRule(sender: HotspotContract.busName, path: interfacePath,
                                                                          interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        return AnnouncedValues(recording: Task {
            var values: [String] = []
            for await signal in announced {
                guard let value = signal.body[1].varDict?[name]?.unwrapped.string else { continue }
                values.append(value)
                if value == last { break }
            }
            return values
        })
    }
}
