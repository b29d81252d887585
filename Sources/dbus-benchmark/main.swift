import DBus
import BusTestKit

let bus = try await PrivateBus()
let server = try Connection(address: bus.address)
let c = try Connection(address: bus.address)
try await server.export([DBusInterface("org.x.Y", methods: [DBusMethod("Sleep") { _ in try await Task.sleep(for: .seconds(5)); return [] }])], at: "/x")
let start = ContinuousClock.now
do {
    _ = try await c.call(destination: BusName(server.uniqueName), path: "/x", interface: "org.x.Y", member: "Sleep", timeout: .milliseconds(200))
} catch { print(error, ContinuousClock.now - start) }
