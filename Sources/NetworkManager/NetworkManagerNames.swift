// SPDX-License-Identifier: Apache-2.0
import DBus

/// NetworkManager's bus name, object paths and interface names (NM `nm-dbus-interface.h`).
public enum NetworkManagerNames {
    /// The well-known name NetworkManager owns on the system bus.
    public static let busName: BusName = "org.freedesktop.NetworkManager"
    /// Where NetworkManager's ObjectManager lives.
    public static let objectManagerPath: ObjectPath = "/org/freedesktop"
    /// The manager object.
    public static let managerPath: ObjectPath = "/org/freedesktop/NetworkManager"
    /// The settings object (saved connection profiles).
    public static let settingsPath: ObjectPath = "/org/freedesktop/NetworkManager/Settings"
    /// The agent manager, where secret agents register.
    public static let agentManagerPath: ObjectPath = "/org/freedesktop/NetworkManager/AgentManager"
    /// Where a secret agent exports itself in its own process.
    public static let secretAgentPath: ObjectPath = "/org/freedesktop/NetworkManager/SecretAgent"

    public static let manager: InterfaceName = "org.freedesktop.NetworkManager"
    public static let device: InterfaceName = "org.freedesktop.NetworkManager.Device"
    public static let wireless: InterfaceName = "org.freedesktop.NetworkManager.Device.Wireless"
    public static let accessPoint: InterfaceName = "org.freedesktop.NetworkManager.AccessPoint"
    public static let activeConnection: InterfaceName = "org.freedesktop.NetworkManager.Connection.Active"
    public static let settings: InterfaceName = "org.freedesktop.NetworkManager.Settings"
    public static let settingsConnection: InterfaceName = "org.freedesktop.NetworkManager.Settings.Connection"
    public static let ip4Config: InterfaceName = "org.freedesktop.NetworkManager.IP4Config"
    public static let ip6Config: InterfaceName = "org.freedesktop.NetworkManager.IP6Config"
    public static let agentManager: InterfaceName = "org.freedesktop.NetworkManager.AgentManager"
    public static let secretAgent: InterfaceName = "org.freedesktop.NetworkManager.SecretAgent"

    static let properties: InterfaceName = "org.freedesktop.DBus.Properties"
    static let objectManager: InterfaceName = "org.freedesktop.DBus.ObjectManager"
}
