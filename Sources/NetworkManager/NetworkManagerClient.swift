// SPDX-License-Identifier: Apache-2.0
import DBus

/// A typed NetworkManager client: follows Wi-Fi devices, their access points and joins, and
/// reports them as ``NetworkManagerEvent``s; also performs the few actions a hotspot helper
/// needs (see `NetworkManagerClient+Actions.swift`).
///
/// How it stays correct: it watches the owner of `org.freedesktop.NetworkManager`. For each
/// owner it subscribes first (signals from that unique name only), then reads the state
/// (`GetManagedObjects`, falling back to `GetAll` per object), and reports the snapshot. Signals
/// that arrived meanwhile are held until the snapshot is in and then applied against it: each
/// re-reads what it names, so one the snapshot already reflects changes nothing. All input is
/// handled one item at a time, in arrival order. When the owner changes, everything is dropped
/// (`.managerAvailable(false)`) and rebuilt for the new owner.
///
/// Bounded intake: at most ``signalCapacity`` signals wait to be handled. When NetworkManager
/// (or whoever floods the bus under its name) sends faster than the client handles, the excess
/// is dropped, the client reports `.overloaded(droppedSignals:)` and then rebuilds exactly as
/// after a restart, re-reading NetworkManager's state, so a join announced by a dropped signal
/// is still reported.
public actor NetworkManagerClient {
    /// The bus connection the client uses (the system bus in production).
    public nonisolated let connection: Connection

    enum Input: Sendable {
        case owner(String?)
        case signal(epoch: UInt64, Signal, SignalIntake)
        /// Signals were dropped by the intake of subscription `epoch`: re-read everything.
        case resync(epoch: UInt64, SignalIntake)
        case snapshotApplied(epoch: UInt64)
        /// Report the access-point lists that changed since the last report (see
        /// ``pendingAccessPointDevices``, which an owner change empties).
        case flushAccessPoints
        /// ``reportJoinEarly(interface:token:)``: handled behind every signal read before it.
        case reportJoinEarly(interface: String, token: UInt64)
    }

    struct DeviceRecord {
        var device: WifiDevice
        var accessPoints: [ObjectPath]
        var reportedAccessPoints: [AccessPoint]?
        var activated = false
    }

    struct PrimaryConnection: Equatable {
        var type: String?
        var device: ObjectPath?
        var connectivity: Connectivity
    }

    /// What the client knows about the current NetworkManager; replaced whole on a restart.
    struct Model {
        var devices: [ObjectPath: DeviceRecord] = [:]
        var otherDevices: Set<ObjectPath> = []
        var accessPointProperties: [ObjectPath: [String: DBusValue]] = [:]
        var manager: [String: DBusValue] = [:]
        var primary: PrimaryConnection?
        /// Profiles that existed at the snapshot or when a device last went below PREPARE: the
        /// did-auto-join rule.
        var knownProfiles: Set<ObjectPath> = []
        /// `GetManagedObjects` while the snapshot is being read.
        var managedObjects: [ObjectPath: [String: [String: DBusValue]]]?
        /// Devices, active connections and profiles as last announced (see NetworkManagerObjects).
        var objects = NetworkManagerObjects()
        /// True when NetworkManager answered `GetManagedObjects`: then `InterfacesAdded` and
        /// `InterfacesRemoved` keep ``objects`` complete (older versions are read with GetAll).
        var followsObjects = false
        /// Profiles' settings read with `GetSettings`, until NetworkManager says one changed
        /// (`Updated`) or went away: a profile joined again is not read again.
        var settings: [ObjectPath: ConnectionSettings] = [:]

        func accessPoint(_ path: ObjectPath) -> AccessPoint? {
            accessPointProperties[path].flatMap { AccessPoint(path: path, properties: $0) }
        }
    }

    /// The events handed out and the client's input (signals, owners): ``AsyncQueue``s.
    private var events: AsyncQueue<NetworkManagerEvent>?
    var inputs: AsyncQueue<Input>?
    private var tasks: [Task<Void, Never>] = []
    private var signalSubscriptions: [SignalSubscription] = []
    var epoch: UInt64 = 0
    var owner: BusName?
    private var reportedAvailability: Bool?
    /// The connectivity-check setting last reported (`.connectivityCheckChanged`); `.none` before
    /// the first report.
    var reportedCheck: ConnectivityCheckSettings?? = .none
    /// True from the snapshot until the signals buffered during it have been applied.
    var reconciling = false
    var model = Model()
    /// Devices whose access-point list changed (a Strength, an access point added or removed) and
    /// is not reported yet. Such changes are applied to the model at once but reported together:
    /// when the inputs queued meanwhile have been handled (a `.flushAccessPoints` queued behind
    /// them), or before any other input is handled, so the order of events stays the same. A storm
    /// of changes then costs one list per device per batch instead of one per change.
    var pendingAccessPointDevices: Set<ObjectPath> = []
    var flushQueued = false

    /// How many NetworkManager signals may wait to be handled unless the initializer says
    /// otherwise: twice the 2,000 back-to-back Strength changes of the hotspot-stress load
    /// (which must be handled without a resync), small enough that a flood of small signals
    /// costs a few MiB.
    public static let defaultSignalCapacity = 4096

    /// How many signals may wait to be handled before the client drops them and resynchronizes.
    public nonisolated let signalCapacity: Int

    /// A client on `connection`. Nothing happens until ``start()``. `signalCapacity`: see
    /// ``defaultSignalCapacity``.
    public init(connection: Connection, signalCapacity: Int = NetworkManagerClient.defaultSignalCapacity) {
        self.connection = connection
        self.signalCapacity = max(1, signalCapacity)
    }

    /// Starts following NetworkManager and returns the events (one queue at a time: calling
    /// again before ``stop()`` returns a queue that is already finished). The first event is
    /// `.managerAvailable(_:)`. The queue ends when the connection closes or ``stop()`` is called;
    /// a consumer that stops reading calls ``stop()``.
    public func start() async throws -> AsyncQueue<NetworkManagerEvent> {
        guard events == nil else { return AsyncQueue.finished() }
        let eventQueue = AsyncQueue<NetworkManagerEvent>()
        let inputQueue = AsyncQueue<Input>()
        events = eventQueue
        inputs = inputQueue
        let owners: AsyncStream<String?>
        do {
            owners = try await connection.watchNameOwner(NetworkManagerNames.busName)
        } catch {
            eventQueue.finish()
            events = nil
            inputs = nil
            throw error
        }
        tasks.append(Task {
            for await owner in owners { inputQueue.yield(.owner(owner)) }
            inputQueue.finish()
        })
        tasks.append(Task { await self.run(inputQueue) })
        return eventQueue
    }

    /// The object path of the Wi-Fi device named `interface` (`wlan0`), if NetworkManager has one.
    public func devicePath(interface: String) -> ObjectPath? {
        model.devices.first { $0.value.device.interfaceName == interface }?.key
    }

    /// Stops following NetworkManager and finishes the event stream.
    public func stop() {
        for t in tasks { t.cancel() }
        tasks.removeAll()
        dropSubscriptions()
        inputs?.finish()
        events?.finish()
        inputs = nil
        events = nil
        model = Model()
        // A later start() follows NetworkManager afresh.
        owner = nil
        reportedAvailability = nil
        reportedCheck = .none
        epoch &+= 1
    }

    private func run(_ inputs: AsyncQueue<Input>) async {
        for await input in inputs {
            if Task.isCancelled { break }
            await handle(input)
        }
        events?.finish()
    }

    func emit(_ event: NetworkManagerEvent) {
        events?.yield(event)
    }

    private func handle(_ input: Input) async {
        switch input {
        case .owner(let newOwner):
            await ownerChanged(newOwner)
        case .signal(let e, let signal, let intake):
            intake.handled()
            guard e == epoch else { return }
            if deferAccessPointChange(signal) { return }
            await flushAccessPoints()
            await handleSignal(signal)
        case .resync(let e, let intake):
            guard e == epoch, let owner else { return }
            emit(.overloaded(droppedSignals: intake.droppedCount))
            await ownerChanged(owner.rawValue, forced: true)
        case .snapshotApplied(let e):
            guard e == epoch else { return }
            await flushAccessPoints()
            reconciling = false
        case .flushAccessPoints:
            flushQueued = false
            await flushAccessPoints()
        case .reportJoinEarly(let interface, let token):
            await flushAccessPoints()
            let reported = await reportEarly(interface)
            emit(.joinReportedEarly(interface: interface, token: token, reported: reported))
        }
    }

    // MARK: - Owner changes and the snapshot

    /// Drops the state and rebuilds it for `newOwner`; `forced` when the owner is the same
    /// (after an overload), which is reported as a restart all the same.
    private func ownerChanged(_ newOwner: String?, forced: Bool = false) async {
        epoch &+= 1
        pendingAccessPointDevices = []
        dropSubscriptions()
        model = Model()
        reconciling = false
        owner = newOwner.flatMap { try? BusName($0) }
        if reportedAvailability == true || (reportedAvailability == nil && owner == nil) || forced {
            reportedAvailability = false
            emit(.managerAvailable(false))
        }
        guard let owner else {
            reportCheck(nil)
            return
        }
        let myEpoch = epoch
        do {
            try await subscribe(to: owner, epoch: myEpoch)
        } catch {
            if epoch == myEpoch, !Self.peerGone(error) {
                emit(.readFailed("cannot subscribe to NetworkManager's signals: \(Self.text(error))"))
            }
            return
        }
        reportedAvailability = true
        emit(.managerAvailable(true))
        reconciling = true
        await readSnapshot(owner: owner, epoch: myEpoch)
        guard epoch == myEpoch else { return }
        reportCheck(ConnectivityCheckSettings(managerProperties: model.manager))
        emit(.snapshotComplete)
        inputs?.yield(.snapshotApplied(epoch: myEpoch))
    }

    private func subscribe(to owner: BusName, epoch: UInt64) async throws {
        let rules = [
            MatchRule(sender: owner, pathNamespace: NetworkManagerNames.managerPath,
                      interface: NetworkManagerNames.properties, member: "PropertiesChanged"),
            // The members handled, not whole interfaces: NetworkManager before 1.32 (and the
            // mock) also send a legacy PropertiesChanged on each, which would cost every change a
            // second delivery and decoding.
            MatchRule(sender: owner, path: NetworkManagerNames.managerPath, interface: NetworkManagerNames.manager, member: "DeviceAdded"),
            MatchRule(sender: owner, path: NetworkManagerNames.managerPath, interface: NetworkManagerNames.manager, member: "DeviceRemoved"),
            MatchRule(sender: owner, interface: NetworkManagerNames.device, member: "StateChanged"),
            MatchRule(sender: owner, interface: NetworkManagerNames.wireless, member: "AccessPointAdded"),
            MatchRule(sender: owner, interface: NetworkManagerNames.wireless, member: "AccessPointRemoved"),
            // Objects appearing and going (active connections, profiles) and profiles changing:
            // what keeps the model current without reads (NetworkManagerObjects).
            MatchRule(sender: owner, path: NetworkManagerNames.objectManagerPath, interface: NetworkManagerNames.objectManager),
            MatchRule(sender: owner, interface: NetworkManagerNames.settingsConnection, member: "Updated"),
        ]
        guard let inputs else { return }
        let intake = SignalIntake(capacity: signalCapacity)
        // One subscription for the (disjoint) rules: signals are handled in the order
        // NetworkManager sent them. Each goes to the input queue through the intake's bound on
        // the connection's thread as it is read, so the connection never holds signals while the
        // client is busy: the waiting ones are counted by the intake.
        let subscription = try await connection.subscribe(matchingAny: rules) { signal in
            switch intake.admit() {
            case .accepted: inputs.yield(.signal(epoch: epoch, signal, intake))
            case .overflowed: inputs.yield(.resync(epoch: epoch, intake))
            case .dropped: break
            }
        }
        guard self.epoch == epoch, self.inputs != nil else {
            // The owner changed (or the client stopped) while the rules were added: this
            // subscription is already stale.
            await connection.unsubscribe(subscription)
            return
        }
        signalSubscriptions.append(subscription)
    }

    /// Ends the signal subscriptions (those of an earlier owner, or all at the stop).
    private func dropSubscriptions() {
        let old = signalSubscriptions
        signalSubscriptions.removeAll()
        guard !old.isEmpty else { return }
        let connection = self.connection
        Task { for s in old { await connection.unsubscribe(s) } }
    }

    private func readSnapshot(owner: BusName, epoch myEpoch: UInt64) async {
        if let reply = try? await call(owner, NetworkManagerNames.objectManagerPath, NetworkManagerNames.objectManager, "GetManagedObjects"),
           let objects = reply.first.flatMap(Self.decodeManagedObjects) {
            model.managedObjects = objects
            for (path, interfaces) in objects { model.objects.added(path, interfaces) }
            model.followsObjects = true
        }
        defer { if epoch == myEpoch { model.managedObjects = nil } }
        do {
            model.manager = try await properties(NetworkManagerNames.managerPath, NetworkManagerNames.manager)
        } catch {
            if !Self.peerGone(error) { emit(.readFailed("cannot read NetworkManager's manager object: \(Self.text(error))")) }
            return
        }
        guard epoch == myEpoch else { return }
        model.knownProfiles = await currentProfiles() ?? []
        var devices = model.manager["Devices"]?.objectPaths
        if devices == nil {
            devices = try? await call(owner, NetworkManagerNames.managerPath, NetworkManagerNames.manager, "GetDevices").first?.objectPaths
        }
        for path in (devices ?? []).sorted() {
            guard epoch == myEpoch else { return }
            await addDevice(path)
        }
        guard epoch == myEpoch else { return }
        await updatePrimaryConnection()
    }

    // MARK: - Devices

    private func addDevice(_ path: ObjectPath) async {
        guard model.devices[path] == nil, !model.otherDevices.contains(path) else { return }
        let myEpoch = epoch
        guard let props = try? await properties(path, NetworkManagerNames.device), epoch == myEpoch else { return }
        guard props["DeviceType"]?.integer == 2 else {
            model.otherDevices.insert(path)
            return
        }
        let wireless = (try? await properties(path, NetworkManagerNames.wireless)) ?? [:]
        guard epoch == myEpoch, model.devices[path] == nil else { return }
        let device = Self.makeDevice(path, props, wireless)
        model.devices[path] = DeviceRecord(device: device, accessPoints: wireless["AccessPoints"]?.objectPaths ?? [])
        emit(.wifiDeviceAdded(device))
        reportPrimary(ifOn: path)
        await refreshAccessPoints(of: path, force: true)
        if device.state.isActivated, epoch == myEpoch {
            await activated(path)
        }
    }

    private func removeDevice(_ path: ObjectPath) {
        if model.otherDevices.remove(path) != nil { return }
        guard let record = model.devices.removeValue(forKey: path) else { return }
        if record.activated {
            emit(.deviceDeactivated(device: record.device, state: .unknown, reason: .removed))
        }
        emit(.wifiDeviceRemoved(record.device))
        dropUnreferencedAccessPoints()
    }

    private func reconcileDevices(_ list: [ObjectPath]) async {
        let current = Set(list)
        for path in Set(model.devices.keys).union(model.otherDevices).subtracting(current).sorted() {
            removeDevice(path)
        }
        for path in list where model.devices[path] == nil && !model.otherDevices.contains(path) {
            await addDevice(path)
        }
    }

    private func stateChanged(_ path: ObjectPath, new signalled: DeviceState, old: DeviceState, reason signalledReason: DeviceStateReason) async {
        guard model.devices[path] != nil else { return }
        var state = signalled
        var reason = signalledReason
        let myEpoch = epoch
        if reconciling {
            // Buffered while the snapshot was read: the snapshot may be newer than the signal.
            guard let props = try? await properties(path, NetworkManagerNames.device), epoch == myEpoch else { return }
            state = DeviceState(rawValue: UInt32(clamping: props["State"]?.integer ?? Int64(signalled.rawValue)))
            if let fields = props["StateReason"]?.structFields, fields.count == 2, let r = fields[1].integer {
                reason = DeviceStateReason(rawValue: UInt32(clamping: r))
            }
        }
        guard var record = model.devices[path] else { return }
        let previous = record.device.state
        if reconciling && state == previous { return }
        record.device.state = state
        model.devices[path] = record
        emit(.deviceStateChanged(device: path, state: state, previous: reconciling ? previous : old, reason: reason))
        if state.rawValue < DeviceState.prepare.rawValue, let profiles = await currentProfiles(), epoch == myEpoch {
            model.knownProfiles = profiles
        }
        guard epoch == myEpoch, var current = model.devices[path] else { return }
        if state.isActivated && !current.activated {
            await activated(path)
        } else if !state.holdsJoin && current.activated {
            current.activated = false
            current.device.activeAccessPoint = nil
            current.device.activeConnection = nil
            model.devices[path] = current
            emit(.deviceDeactivated(device: current.device, state: state, reason: reason))
        }
    }

    /// Asks for the join on the Wi-Fi device `interface` to be reported now, before NetworkManager
    /// announces it, for NetworkManager's pre-up dispatcher: it runs once the interface has its
    /// addresses (IP_CHECK) and NetworkManager waits for it before announcing ACTIVATED. The join
    /// is reported as `.deviceActivated`, as ACTIVATED would report it (ACTIVATED then reports
    /// nothing new), and the answer is `.joinReportedEarly` with `token`.
    ///
    /// The request is handled in order with the signals: behind every signal read before it,
    /// so a leave and a new activation NetworkManager announced before running its dispatcher
    /// are reported first, and the answer is about the join under way, never the one before.
    /// Returns false when the client is not following NetworkManager (nothing will answer).
    public func reportJoinEarly(interface: String, token: UInt64) -> Bool {
        guard let inputs else { return false }
        inputs.yield(.reportJoinEarly(interface: interface, token: token))
        return true
    }

    /// Reports the join on `interface` early (``reportJoinEarly(interface:token:)``); returns
    /// whether it is reported (false: no such Wi-Fi device, or it is not between its addresses
    /// and ACTIVATED).
    private func reportEarly(_ interface: String) async -> Bool {
        guard let path = devicePath(interface: interface) else { return false }
        if model.devices[path]?.activated != true { await activated(path, early: true) }
        return model.devices[path]?.activated == true
    }

    /// Reads the joined network afresh and reports the activation. `roamed`: the device is
    /// already activated and moved to another access point (reported again: the core refreshes
    /// the network's facts without a new evaluate). `early`: NetworkManager's pre-up dispatcher
    /// handed the device over before ACTIVATED (``reportJoinEarly(interface:)``).
    private func activated(_ path: ObjectPath, roamed: Bool = false, early: Bool = false) async {
        let myEpoch = epoch
        let device = (try? await properties(path, NetworkManagerNames.device, fresh: early)) ?? [:]
        let wireless = (try? await properties(path, NetworkManagerNames.wireless, fresh: early)) ?? [:]
        let activePath = device["ActiveConnection"]?.nonRootPath
        var active: [String: DBusValue] = [:]
        if let activePath { active = (try? await properties(activePath, NetworkManagerNames.activeConnection, fresh: early)) ?? [:] }
        let apPath = wireless["ActiveAccessPoint"]?.nonRootPath ?? active["SpecificObject"]?.nonRootPath
        var ap: AccessPoint?
        if let apPath {
            if model.accessPointProperties[apPath] == nil,
               let props = try? await properties(apPath, NetworkManagerNames.accessPoint), epoch == myEpoch {
                model.accessPointProperties[apPath] = props
            }
            ap = model.accessPoint(apPath)
        }
        let settingsPath = active["Connection"]?.nonRootPath
        var settings: ConnectionSettings?
        if let settingsPath { settings = await connectionSettings(settingsPath) }
        guard epoch == myEpoch, var record = model.devices[path], roamed || !record.activated else { return }
        if !device.isEmpty {
            var fresh = Self.makeDevice(path, device, wireless)
            fresh.state = record.device.state.isActivated ? record.device.state : fresh.state
            record.device = fresh
        }
        record.device.activeAccessPoint = apPath
        record.device.activeConnection = activePath
        guard record.device.state.isActivated || ((early || record.activated) && record.device.state.holdsJoin) else { return }
        let ssidFromAP = ap.flatMap { $0.ssid.isEmpty ? nil : $0.ssid }
        let autoconnect = settings.map(SettingsCoding.autoconnect) ?? false
        let network = JoinedNetwork(
            ssid: ssidFromAP ?? settings.flatMap(SettingsCoding.ssid) ?? [],
            bssid: ap?.bssid, strength: ap?.strength,
            security: ap?.security ?? NetworkSecurity(keyManagement: settings.flatMap(SettingsCoding.keyManagement)),
            accessPoint: apPath, activeConnection: activePath, settingsConnection: settingsPath,
            connectionID: settings?["connection"]?["id"]?.string ?? active["Id"]?.string,
            connectionUUID: (settings?["connection"]?["uuid"]?.string ?? active["Uuid"]?.string).map { ConnectionUUID($0) },
            autoconnect: autoconnect,
            didAutoJoin: autoconnect && settingsPath.map { model.knownProfiles.contains($0) } == true)
        record.activated = true
        model.devices[path] = record
        emit(.deviceActivated(device: record.device, network: network))
    }

    // MARK: - Signals

    private func handleSignal(_ signal: Signal) async {
        switch (signal.interface, signal.member) {
        case (NetworkManagerNames.properties.rawValue, "PropertiesChanged"):
            guard signal.body.count >= 2, let interface = signal.body[0].string, let changed = signal.body[1].varDict else { return }
            let invalidated = signal.body.count > 2 ? signal.body[2].strings ?? [] : []
            await propertiesChanged(signal.path, interface, changed, invalidated)
        case (NetworkManagerNames.manager.rawValue, "DeviceAdded"):
            if let path = signal.body.first?.objectPath { await addDevice(path) }
        case (NetworkManagerNames.manager.rawValue, "DeviceRemoved"):
            if let path = signal.body.first?.objectPath { removeDevice(path) }
        case (NetworkManagerNames.objectManager.rawValue, "InterfacesAdded"):
            guard signal.body.count == 2, let path = signal.body[0].objectPath, let interfaces = Self.decodeInterfaces(signal.body[1]) else { return }
            model.objects.added(path, interfaces)
            // An access point's properties come with its object (NetworkManager announces it before
            // listing it in AccessPointAdded): kept, so listing it needs no read.
            if !reconciling, let accessPoint = interfaces[NetworkManagerNames.accessPoint.rawValue] {
                model.accessPointProperties[path] = accessPoint
            }
            if reconciling {
                // Possibly older than the snapshot: read afresh when needed.
                for name in interfaces.keys { model.objects.forget(path, name) }
            } else if let profile = interfaces[NetworkManagerNames.activeConnection.rawValue]?["Connection"]?.nonRootPath {
                // An activation began: read its profile now, not when the device is up.
                _ = await connectionSettings(profile)
            }
            if !reconciling, interfaces[NetworkManagerNames.settingsConnection.rawValue] != nil { emit(.profilesChanged) }
        case (NetworkManagerNames.objectManager.rawValue, "InterfacesRemoved"):
            guard signal.body.count == 2, let path = signal.body[0].objectPath, let names = signal.body[1].strings else { return }
            model.objects.removed(path, names)
            if names.contains(NetworkManagerNames.settingsConnection.rawValue) {
                model.settings[path] = nil
                if !reconciling { emit(.profilesChanged) }
            }
            if names.contains(NetworkManagerNames.accessPoint.rawValue) { model.accessPointProperties[path] = nil }
        case (NetworkManagerNames.settingsConnection.rawValue, "Updated"):
            model.settings[signal.path] = nil
        case (NetworkManagerNames.device.rawValue, "StateChanged"):
            guard signal.body.count == 3, let new = signal.body[0].uint32, let old = signal.body[1].uint32,
                  let reason = signal.body[2].uint32 else { return }
            await stateChanged(signal.path, new: DeviceState(rawValue: new), old: DeviceState(rawValue: old),
                               reason: DeviceStateReason(rawValue: reason))
        default:
            break // e.g. the legacy per-interface PropertiesChanged, which NM ≥ 1.32 no longer sends
        }
    }

    private func propertiesChanged(_ path: ObjectPath, _ interface: String, _ changed: [String: DBusValue], _ invalidated: [String]) async {
        if reconciling {
            model.objects.forget(path, interface)  // possibly older than the snapshot
        } else {
            model.objects.changed(path, interface, changed, invalidated: invalidated)
        }
        switch interface {
        case NetworkManagerNames.manager.rawValue where path == NetworkManagerNames.managerPath:
            model.manager.merge(changed) { $1 }
            if !ConnectivityCheckSettings.propertyNames.isDisjoint(with: changed.keys) {
                reportCheck(ConnectivityCheckSettings(managerProperties: model.manager))
            }
            if let devices = changed["Devices"]?.objectPaths { await reconcileDevices(devices) }
            if !Set(changed.keys).isDisjoint(with: ["Connectivity", "PrimaryConnection", "ActiveConnections"]) {
                await updatePrimaryConnection()
            }
        case NetworkManagerNames.wireless.rawValue:
            guard var record = model.devices[path] else { return }
            var roamed = false
            if changed.keys.contains("ActiveAccessPoint") {
                let accessPoint = changed["ActiveAccessPoint"]?.nonRootPath
                // Real NetworkManager roams without a state change: only ActiveAccessPoint moves.
                roamed = record.activated && accessPoint != nil && accessPoint != record.device.activeAccessPoint
                record.device.activeAccessPoint = accessPoint
            }
            if let list = changed["AccessPoints"]?.objectPaths { record.accessPoints = list }
            model.devices[path] = record
            if roamed { await activated(path, roamed: true) }
            if changed["AccessPoints"] != nil { dropUnreferencedAccessPoints() }
            if changed["LastScan"] != nil || changed["AccessPoints"] != nil {
                await refreshAccessPoints(of: path, force: changed["LastScan"] != nil)
            }
        case NetworkManagerNames.device.rawValue:
            guard var record = model.devices[path] else { return }
            let previousName = record.device.interfaceName
            if let name = changed["Interface"]?.string { record.device.interfaceName = name }
            if let hw = changed["HwAddress"]?.string { record.device.hwAddress = hw }
            model.devices[path] = record
            if record.device.interfaceName != previousName {
                emit(.wifiDeviceRenamed(record.device, from: previousName))
                reportPrimary(ifOn: path)
            }
        case NetworkManagerNames.accessPoint.rawValue:
            // Changes without invalidated properties are deferred (deferAccessPointChange).
            guard model.accessPointProperties[path] != nil else { return }
            let myEpoch = epoch
            guard let fresh = try? await properties(path, NetworkManagerNames.accessPoint), epoch == myEpoch else { return }
            model.accessPointProperties[path] = fresh
            for (device, record) in model.devices.sorted(by: { $0.key < $1.key }) where record.accessPoints.contains(path) {
                await refreshAccessPoints(of: device, force: false)
            }
        default:
            break
        }
    }
}
