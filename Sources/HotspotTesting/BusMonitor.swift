// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation

/// dbus-monitor watching a private bus: what the bus really carried, for tests that assert who
/// sent what to whom (a password only to NetworkManager; no reads on a join).
public final class BusMonitor: Sendable {
    public let process: ManagedProcess

    /// One message as dbus-monitor prints it: a header line (`method call time=… sender=:1.5 ->
    /// destination=:1.3 serial=10 path=/…; interface=…; member=GetAll`) and its indented body.
    public struct Message: Sendable {
        public var header: String
        public var text: String
        /// `method call`, `method return`, `signal` or `error`.
        public var kind: String { ["method call", "method return", "signal", "error"].first { header.hasPrefix($0) } ?? "" }
        public var sender: String { field("sender") }
        public var destination: String { field("destination") }
        public var member: String { field("member") }
        public var interface: String { field("interface") }

        public func field(_ name: String) -> String {
            guard let r = header.range(of: " \(name)=") else { return "" }
            return String(header[r.upperBound...].prefix { $0 != " " && $0 != ";" })
        }
    }

    private init(process: ManagedProcess) { self.process = process }

    /// Starts dbus-monitor on `bus` and waits until it is monitoring.
    public static func start(on bus: PrivateBus) async throws -> BusMonitor {
        let process = try ManagedProcess.launch("/usr/bin/dbus-monitor", ["--address", bus.address])
        // Becoming a monitor makes the daemon take the monitor's unique name back (NameLost).
        guard await process.waitForOutput(containing: "member=NameLost", timeout: SafetyNet.wait) else {
            process.stop()
            throw TestKitError.timeout("dbus-monitor did not start monitoring: \(process.output)")
        }
        return BusMonitor(process: process)
    }

    public func stop() { process.stop() }

    /// Returns once dbus-monitor has printed everything the bus carried before this call: it
    /// sends a marker on `connection` (a GetNameOwner for a name no one owns) and waits for the
    /// monitor to print it, as the bus delivers messages to a monitor in order.
    public func catchUp(_ connection: Connection, timeout: Duration = SafetyNet.wait) async throws {
        let marker = "org.example.Marker.M\(UInt64.random(in: 0..<UInt64.max))"
        _ = try? await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                       member: "GetNameOwner", body: [.string(marker)])
        guard await process.waitForOutput(containing: marker, timeout: timeout) else {
            throw TestKitError.timeout("dbus-monitor did not print the marker \(marker)")
        }
    }

    /// Every message seen so far, in order.
    public var messages: [Message] { Self.parse(process.output) }

    /// Method calls sent by the connection `sender`, in order.
    public func calls(from sender: String) -> [Message] {
        messages.filter { $0.kind == "method call" && $0.sender == sender }
    }

    static func parse(_ output: String) -> [Message] {
        var result: [Message] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = line.first, first != " " {
                result.append(Message(header: String(line), text: String(line)))
            } else if !result.isEmpty {
                result[result.count - 1].text += "\n" + line
            }
        }
        return result
    }
}
