// SPDX-License-Identifier: Apache-2.0
import DBus

/// Access points: read when first listed, and reported per device when a list changes.
extension NetworkManagerClient {
    /// Fetches access points not known yet and reports the device's list when it changed (or
    /// always, with `force`: the snapshot and finished scans).
    func refreshAccessPoints(of device: ObjectPath, force: Bool) async {
        let myEpoch = epoch
        guard let paths = model.devices[device]?.accessPoints else { return }
        for path in paths where model.accessPointProperties[path] == nil {
            if let props = try? await properties(path, NetworkManagerNames.accessPoint), epoch == myEpoch {
                model.accessPointProperties[path] = props
            }
        }
        guard epoch == myEpoch, var record = model.devices[device] else { return }
        let list = record.accessPoints.compactMap { model.accessPoint($0) }
        guard force || list != record.reportedAccessPoints else { return }
        record.reportedAccessPoints = list
        model.devices[device] = record
        emit(.accessPointsChanged(device: record.device, list))
    }

    /// Applies an access point's property change, or an access point added to or removed from a
    /// device, to the model and marks the device's list for the next report; false for any other
    /// signal (and for a change that invalidates properties, which must be read afresh).
    func deferAccessPointChange(_ signal: Signal) -> Bool {
        switch (signal.interface, signal.member) {
        case (NetworkManagerNames.properties.rawValue, "PropertiesChanged"):
            guard signal.body.count >= 2, signal.body[0].string == NetworkManagerNames.accessPoint.rawValue,
                  let changed = signal.body[1].varDict, signal.body.count < 3 || signal.body[2].strings?.isEmpty == true else { return false }
            guard model.accessPointProperties[signal.path] != nil else { return true }
            model.accessPointProperties[signal.path]?.merge(changed) { $1 }
            for (device, record) in model.devices where record.accessPoints.contains(signal.path) {
                pendingAccessPointDevices.insert(device)
            }
        case (NetworkManagerNames.wireless.rawValue, "AccessPointAdded"):
            guard let ap = signal.body.first?.objectPath, var record = model.devices[signal.path] else { return true }
            if !record.accessPoints.contains(ap) {
                record.accessPoints.append(ap)
                model.devices[signal.path] = record
            }
            pendingAccessPointDevices.insert(signal.path)
        case (NetworkManagerNames.wireless.rawValue, "AccessPointRemoved"):
            guard let ap = signal.body.first?.objectPath, var record = model.devices[signal.path] else { return true }
            record.accessPoints.removeAll { $0 == ap }
            model.devices[signal.path] = record
            dropUnreferencedAccessPoints()
            pendingAccessPointDevices.insert(signal.path)
        default:
            return false
        }
        if !flushQueued && !pendingAccessPointDevices.isEmpty {
            flushQueued = true
            inputs?.yield(.flushAccessPoints)
        }
        return true
    }

    /// Reports the lists of the devices marked by ``deferAccessPointChange(_:)``, in path order.
    func flushAccessPoints() async {
        while let device = pendingAccessPointDevices.min() {
            pendingAccessPointDevices.remove(device)
            await refreshAccessPoints(of: device, force: false)
        }
    }

    /// Forgets the properties of access points no device lists. While NetworkManager's objects are
    /// followed, an access point's properties go with its object instead (`InterfacesRemoved`):
    /// one that leaves a list and comes back (or is announced before it is listed) is then not
    /// read again — a read in the middle of a signal burst holds up every signal behind its reply.
    func dropUnreferencedAccessPoints() {
        guard !model.followsObjects else { return }
        let referenced = Set(model.devices.values.flatMap(\.accessPoints))
        for path in model.accessPointProperties.keys where !referenced.contains(path) {
            model.accessPointProperties[path] = nil
        }
    }
}
