// SPDX-License-Identifier: Apache-2.0
import DBus

// The three interfaces of the contract, declared once. The daemon's tables
// (HotspotDaemon.BusPublisher), HotspotHelperKit's Handler table and the client's calls take their
// members from here; DaemonTests.ContractSpecTests renders these declarations and compares them
// with dbus/org.freedesktop.NetworkManager.HotspotHelper.xml and with the live daemon.
extension HotspotContract {
    /// org.freedesktop.NetworkManager.HotspotHelper, at `managerPath`.
    public static let manager = InterfaceSpec(managerInterface,
        methods: [Manager.registerHelper, Manager.unregisterHelper, Manager.forgetNetwork, Manager.checkPermission,
                  Manager.settleJoin, Manager.listRememberedSignIns],
        properties: [Manager.interfaces, Manager.helpers, Manager.version, Manager.status, Manager.probePolicy],
        signals: [Manager.uiRequired, Manager.commandCompleted])

    /// org.freedesktop.NetworkManager.HotspotHelper.Interface, at `interfacePath(n)`.
    public static let interface = InterfaceSpec(interfaceInterface,
        methods: [Interface.getScanList, Interface.presentUI, Interface.logoff, Interface.checkConnectivity, Interface.getNetwork,
                  Interface.signIn],
        properties: [Interface.name, Interface.device, Interface.state, Interface.network, Interface.helper, Interface.connectivity,
                     Interface.portalUrl, Interface.venueInfoUrl, Interface.sessionExpires, Interface.reason, Interface.signInForm],
        signals: [Interface.scanListChanged])

    /// org.freedesktop.NetworkManager.HotspotHelper.Handler, exported by each helper.
    public static let handler = InterfaceSpec(handlerInterface, methods: [Handler.handleCommand])

    /// All three, in the order of the XML file.
    public static let interfaces = [manager, interface, handler]

    /// The manager's members.
    public enum Manager {
        public static let registerHelper = MethodSpec("RegisterHelper", inputs: [DBusArgument("handler", "o"), DBusArgument("options", "a{sv}")],
                                                      outputs: [DBusArgument("registration", "a{sv}")])
        public static let unregisterHelper = MethodSpec("UnregisterHelper")
        public static let forgetNetwork = MethodSpec("ForgetNetwork", inputs: [DBusArgument("ssid", "ay")])
        public static let checkPermission = MethodSpec("CheckPermission", inputs: [DBusArgument("action", "s")], outputs: [DBusArgument("result", "s")])
        /// For NetworkManager's pre-up dispatcher script (root only): the join on `interface` is
        /// settled before NetworkManager announces it; answers a ``JoinHoldOutcome``.
        public static let settleJoin = MethodSpec("SettleJoin", inputs: [DBusArgument("interface", "s")], outputs: [DBusArgument("outcome", "s")])
        /// The networks whose sign-in the daemon remembers (`ssid` ay, `host` s, `fields` as, `saved` t;
        /// never a value). Location data: read-scan-list.
        public static let listRememberedSignIns = MethodSpec("ListRememberedSignIns", outputs: [DBusArgument("networks", "aa{sv}")])

        public static let interfaces = PropertySpec("Interfaces", "ao")
        public static let helpers = PropertySpec("Helpers", "aa{sv}")
        public static let version = PropertySpec("Version", "s", emitsChanged: .const)
        public static let status = PropertySpec("Status", "s")
        public static let probePolicy = PropertySpec("ProbePolicy", "s")

        public static let uiRequired = SignalSpec("UIRequired", [DBusArgument("interface", "o"), DBusArgument("helper_display_name", "s"),
                                                                 DBusArgument("network", "a{sv}")])
        public static let commandCompleted = SignalSpec("CommandCompleted", [DBusArgument("interface", "o"), DBusArgument("helper", "s"),
                                                                             DBusArgument("command", "s"), DBusArgument("result", "s"),
                                                                             DBusArgument("seconds", "d")])
    }

    /// The members of a Wi-Fi interface's object.
    public enum Interface {
        public static let getScanList = MethodSpec("GetScanList", outputs: [DBusArgument("networks", "aa{sv}")])
        public static let presentUI = MethodSpec("PresentUI")
        public static let logoff = MethodSpec("Logoff")
        public static let checkConnectivity = MethodSpec("CheckConnectivity", outputs: [DBusArgument("result", "a{sv}")])
        /// The network the interface is on with its SSID and BSSID (location data: read-scan-list);
        /// the `Network` property and UIRequired carry it without them.
        public static let getNetwork = MethodSpec("GetNetwork", outputs: [DBusArgument("network", "a{sv}")])
        /// Submits the waiting sign-in form (`SignInForm`) with the user's values; polkit's sign-in.
        public static let signIn = MethodSpec("SignIn", inputs: [DBusArgument("values", "a{sv}"), DBusArgument("options", "a{sv}")],
                                              outputs: [DBusArgument("result", "s"), DBusArgument("message", "s")])

        /// The kernel's interface name: an object's name never changes (a renamed device is a new object).
        public static let name = PropertySpec("Name", "s", emitsChanged: .const)
        public static let device = PropertySpec("Device", "o")
        public static let state = PropertySpec("State", "s")
        public static let network = PropertySpec("Network", "a{sv}")
        public static let helper = PropertySpec("Helper", "s")
        public static let connectivity = PropertySpec("Connectivity", "s")
        public static let portalUrl = PropertySpec("PortalUrl", "s")
        public static let venueInfoUrl = PropertySpec("VenueInfoUrl", "s")
        public static let sessionExpires = PropertySpec("SessionExpires", "t")
        /// Why the chosen helper answered its last command as it did (its `reason`, escaped); "" when none.
        public static let reason = PropertySpec("Reason", "s")
        /// The portal's sign-in form waiting for the user (kind, fields, labels…), empty when none.
        public static let signInForm = PropertySpec("SignInForm", "a{sv}")

        /// The annotated scan list (`GetScanList`'s answer) changed; it carries nothing, so the
        /// list stays behind read-scan-list.
        public static let scanListChanged = SignalSpec("ScanListChanged")
    }

    /// The member of a helper's Handler object.
    public enum Handler {
        public static let handleCommand = MethodSpec("HandleCommand", inputs: [DBusArgument("command", "a{sv}")],
                                                     outputs: [DBusArgument("response", "a{sv}")])
    }
}
