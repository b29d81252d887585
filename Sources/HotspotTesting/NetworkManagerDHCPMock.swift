// SPDX-License-Identifier: Apache-2.0
import DBus
import Foundation

/// python-dbusmock's NetworkManager has no DHCP4Config: this adds one to a device, with the
/// `Options` real NetworkManager publishes for a lease (`ip_address`, `dhcp_server_identifier`),
/// for RFC 8910 tests (the daemon sends its DHCPINFORM from that address to that server).
extension DBusMock {
    /// Adds `/org/freedesktop/NetworkManager/DHCP4Config/<n>` and points `device`'s `Dhcp4Config` at it.
    public func addDHCP4Config(_ c: Connection, device: String, address: String, server: String?, number: Int = 1) async throws {
        let path = "/org/freedesktop/NetworkManager/DHCP4Config/\(number)"
        var options: [String: DBusValue] = ["ip_address": .string(address), "subnet_mask": "255.255.255.0"]
        if let server { options["dhcp_server_identifier"] = .string(server) }
        try await mockCall(c, path: Self.networkManagerPath, "AddObject", [
            .string(path), "org.freedesktop.NetworkManager.DHCP4Config", .varDict(["Options": .varDict(options)]),
            .array(element: .structure([.string, .string, .string, .string]), []),
        ])
        try await mockCall(c, path: device, "AddProperty", [
            "org.freedesktop.NetworkManager.Device", "Dhcp4Config", .variant(.objectPath(try ObjectPath(path))),
        ])
    }
}
