// SPDX-License-Identifier: Apache-2.0
import DBus

/// The client's reads: the primary connection, profiles and properties, each from the live model
/// when it holds them (docs/NETWORKMANAGER.md, "The live model"), else from NetworkManager.
extension NetworkManagerClient {
    // MARK: - Primary connection

    func updatePrimaryConnection() async {
        let myEpoch = epoch
        let connectivity = Connectivity(nmValue: UInt32(clamping: model.manager["Connectivity"]?.integer ?? 0))
        var active: [String: DBusValue]?
        if let primary = model.manager["PrimaryConnection"] {
            if let path = primary.nonRootPath {
                active = try? await properties(path, NetworkManagerNames.activeConnection)
            }
        } else {
            // NetworkManager before 0.9.8 and the mock lack PrimaryConnection: take the active
            // connection that holds the default route.
            for path in model.manager["ActiveConnections"]?.objectPaths ?? [] {
                if let props = try? await properties(path, NetworkManagerNames.activeConnection), props["Default"]?.bool == true {
                    active = props
                    break
                }
            }
        }
        guard epoch == myEpoch else { return }
        let primary = PrimaryConnection(type: active?["Type"]?.string, device: active?["Devices"]?.objectPaths?.first,
                                        connectivity: connectivity)
        guard primary != model.primary else { return }
        model.primary = primary
        reportPrimary()
    }

    /// Reports the primary connection; again when its Wi-Fi device is learnt or renamed after it,
    /// so the interface name it carries is always the current one.
    func reportPrimary(ifOn device: ObjectPath? = nil) {
        guard let primary = model.primary, device == nil || primary.device == device else { return }
        let wifiInterface = primary.device.flatMap { model.devices[$0]?.device.interfaceName }
        emit(.primaryConnectionChanged(type: primary.type, device: primary.device, wifiInterface: wifiInterface, connectivity: primary.connectivity))
    }

    /// Reports NetworkManager's connectivity-check setting when it differs from the last report.
    func reportCheck(_ check: ConnectivityCheckSettings?) {
        guard reportedCheck != .some(check) else { return }
        reportedCheck = .some(check)
        emit(.connectivityCheckChanged(check))
    }

    // MARK: - Reading

    /// The saved profiles: from the model when NetworkManager keeps it current, else read.
    func currentProfiles() async -> Set<ObjectPath>? {
        if model.followsObjects { return model.objects.profiles }
        return await listProfiles()
    }

    /// A profile's settings: held since the last read unless NetworkManager said they changed.
    func connectionSettings(_ path: ObjectPath) async -> ConnectionSettings? {
        if let held = model.settings[path] { return held }
        guard let owner else { return nil }
        let myEpoch = epoch
        guard let settings = try? await call(owner, path, NetworkManagerNames.settingsConnection, "GetSettings").first.flatMap(SettingsCoding.decode)
        else { return nil }
        if epoch == myEpoch { model.settings[path] = settings }
        return settings
    }

    func listProfiles() async -> Set<ObjectPath>? {
        guard let owner else { return nil }
        guard let reply = try? await call(owner, NetworkManagerNames.settingsPath, NetworkManagerNames.settings, "ListConnections"),
              let paths = reply.first?.objectPaths else { return nil }
        return Set(paths)
    }

    /// The properties of one interface: from the snapshot's `GetManagedObjects` while it is
    /// being read; then from the model, which signals keep current; otherwise (and while signals
    /// buffered during the snapshot are applied) `GetAll` from the current owner.
    /// `fresh`: read from NetworkManager even when held, for a caller that may be ahead of the
    /// signals not yet handled (NetworkManager's pre-up dispatcher script).
    func properties(_ path: ObjectPath, _ interface: InterfaceName, fresh: Bool = false) async throws -> [String: DBusValue] {
        if !fresh, let cached = model.managedObjects?[path]?[interface.rawValue] { return cached }
        if !fresh, !reconciling, let held = model.objects.properties(path, interface) { return held }
        guard let owner else { throw DBusError.disconnected("NetworkManager is not on the bus") }
        let myEpoch = epoch
        let reply = try await call(owner, path, NetworkManagerNames.properties, "GetAll", [.string(interface.rawValue)])
        guard let props = reply.first?.varDict else {
            throw NetworkManagerError.malformedReply("GetAll(\(interface)) on \(path) answered \(reply.map(\.signature).joined())")
        }
        if epoch == myEpoch { model.objects.read(path, interface, props) }
        return props
    }

    func call(_ destination: BusName, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
                      _ body: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(destination: destination, path: path, interface: interface, member: member,
                                  body: body, timeout: .seconds(10), autoStart: false)
    }
}
