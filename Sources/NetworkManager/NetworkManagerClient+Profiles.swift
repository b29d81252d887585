// SPDX-License-Identifier: Apache-2.0
import DBus

/// Flags of `Settings.AddConnection2` and `Settings.Connection.Update2` (NetworkManager's
/// `NMSettingsAddConnection2Flags` / `NMSettingsUpdate2Flags`, nm-dbus-interface.h).
public struct ProfileWriteFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Persist to disk (/etc/NetworkManager/system-connections), secrets included.
    public static let toDisk = ProfileWriteFlags(rawValue: 0x1)
    /// Keep in memory only (NetworkManager keeps a keyfile under /run, which survives its
    /// restart but not a reboot).
    public static let inMemory = ProfileWriteFlags(rawValue: 0x2)
    /// Do not autoconnect until activated by hand once.
    public static let blockAutoconnect = ProfileWriteFlags(rawValue: 0x20)
}

/// `NMSettingsConnectionFlags` (the `Flags` property of a settings connection).
public struct SettingsConnectionFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Not saved to disk (in-memory).
    public static let unsaved = SettingsConnectionFlags(rawValue: 0x1)
    public static let nmGenerated = SettingsConnectionFlags(rawValue: 0x2)
    public static let volatile = SettingsConnectionFlags(rawValue: 0x4)
    public static let external = SettingsConnectionFlags(rawValue: 0x8)
}

/// Profile management for provisioning: list, add, replace and delete connection profiles.
extension NetworkManagerClient {
    /// Every Wi-Fi profile NetworkManager holds (`ListConnections`, then `GetSettings` each).
    /// A profile removed between the two calls is skipped.
    public nonisolated func wifiProfiles() async throws -> [HeldProfile] {
        var out: [HeldProfile] = []
        for path in try await connectionPaths() {
            guard let s = try? await settings(of: path), let profile = HeldProfile(path: path, settings: s) else { continue }
            out.append(profile)
        }
        return out
    }

    /// Adds a profile with `Settings.AddConnection2(settings, flags, {})` and returns its path.
    ///
    /// The settings may carry secrets: they cross the bus only in this call, to NetworkManager's
    /// unique name, and never appear in an error this throws.
    public nonisolated func addProfile(_ settings: ConnectionSettings, flags: ProfileWriteFlags) async throws -> ObjectPath {
        let reply = try await ownerCall(NetworkManagerNames.settingsPath, NetworkManagerNames.settings, "AddConnection2",
                                        [SettingsCoding.encode(settings), .uint32(flags.rawValue), .varDict([:])])
        guard let path = reply.first?.objectPath else {
            throw NetworkManagerError.malformedReply("AddConnection2 answered \(reply.map(\.signature).joined()), expected oa{sv}")
        }
        return path
    }

    /// Replaces a profile's settings with `Settings.Connection.Update2(settings, flags, {})`.
    /// Settings without secrets keep the stored ones (NetworkManager merges them in).
    public nonisolated func updateProfile(_ connection: ObjectPath, _ settings: ConnectionSettings, flags: ProfileWriteFlags) async throws {
        _ = try await ownerCall(connection, NetworkManagerNames.settingsConnection, "Update2",
                                [SettingsCoding.encode(settings), .uint32(flags.rawValue), .varDict([:])])
    }

    /// Deletes a profile (`Settings.Connection.Delete`); an active connection using it ends.
    public nonisolated func deleteProfile(_ connection: ObjectPath) async throws {
        _ = try await nmCall(connection, NetworkManagerNames.settingsConnection, "Delete")
    }

    /// The profile's `Flags` (falling back to the older `Unsaved` property).
    public nonisolated func flags(of connection: ObjectPath) async throws -> SettingsConnectionFlags {
        let reply = try await nmCall(connection, NetworkManagerNames.properties, "GetAll", [.string(NetworkManagerNames.settingsConnection.rawValue)])
        guard let props = reply.first?.varDict else {
            throw NetworkManagerError.malformedReply("GetAll on \(connection) answered \(reply.map(\.signature).joined()), expected a{sv}")
        }
        if let raw = props["Flags"]?.uint32 { return SettingsConnectionFlags(rawValue: raw) }
        return props["Unsaved"]?.bool == true ? .unsaved : []
    }

    /// The profiles in use: the `Connection` of each of the manager's `ActiveConnections` whose
    /// `State` is activating (1) or activated (2). One deactivating (3) or deactivated (4), or
    /// that vanished meanwhile, is not in use.
    public nonisolated func activeProfiles() async throws -> Set<ObjectPath> {
        let reply = try await nmCall(NetworkManagerNames.managerPath, NetworkManagerNames.properties, "Get",
                                     [.string(NetworkManagerNames.manager.rawValue), .string("ActiveConnections")])
        var out = Set<ObjectPath>()
        for active in reply.first?.objectPaths ?? [] {
            guard let r = try? await nmCall(active, NetworkManagerNames.properties, "GetAll", [.string(NetworkManagerNames.activeConnection.rawValue)]),
                let props = r.first?.varDict, let path = props["Connection"]?.nonRootPath
            else { continue }
            if let state = props["State"]?.uint32, state > 2 { continue }
            out.insert(path)
        }
        return out
    }

    /// A call addressed to the unique name that owns NetworkManager's name now (looked up with
    /// `GetNameOwner`), not to the well-known name: calls that carry secrets go to that process
    /// only. Fails with `ServiceUnknown` when NetworkManager is not running.
    nonisolated func ownerCall(_ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue]) async throws -> [DBusValue] {
        do {
            guard let owner = try await connection.nameOwner(NetworkManagerNames.busName) else {
                throw DBusError.remote(name: DBusErrorName.serviceUnknown, message: "\(NetworkManagerNames.busName) is not on the bus")
            }
            return try await connection.call(destination: try BusName(owner), path: path, interface: interface, member: member, body: body,
                                              timeout: .seconds(25))
        } catch let error as DBusError {
            throw NetworkManagerError.callFailed(member: member.rawValue, path: path, error)
        }
    }

    nonisolated func connectionPaths() async throws -> [ObjectPath] {
        let reply = try await nmCall(NetworkManagerNames.settingsPath, NetworkManagerNames.settings, "ListConnections")
        guard let paths = reply.first?.objectPaths else {
            throw NetworkManagerError.malformedReply("ListConnections answered \(reply.map(\.signature).joined()), expected ao")
        }
        return paths
    }
}
