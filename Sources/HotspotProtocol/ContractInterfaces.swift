// SPDX-License-Identifier: Apache-2.0
import DBus

// The three interfaces of the contract, declared once. The daemon's tables
// (HotspotDaemon.BusPublisher), HotspotHelperKit's Handler table and the client's calls take their
// members from here; DaemonTests.ContractSpecTests renders these declarations and compares them
// with dbus/org.freedesktop.NetworkManager.HotspotHelper.xml and with the live daemon.
// Properties are rows of an enum (``ManagerProperty``, ``InterfaceProperty``): the declaration
// lists every case, and the daemon's encoder is a `switch` over them with no `default`, so a
// property added without its encoding does not compile.
extension HotspotContract {
    /// org.freedesktop.NetworkManager.HotspotHelper, at `managerPath`.
    public static let manager = InterfaceSpec(managerInterface,
        methods: [Manager.registerHelper, Manager.unregisterHelper, Manager.forgetNetwork, Manager.checkPermission,
                  Manager.settleJoin, Manager.listRememberedSignIns],
        properties: ManagerProperty.allCases.map(\.spec),
        signals: [Manager.uiRequired, Manager.commandCompleted])

    /// org.freedesktop.NetworkManager.HotspotHelper.Interface, at `interfacePath(n)`.
    public static let interface = InterfaceSpec(interfaceInterface,
        methods: [Interface.getScanList, Interface.presentUI, Interface.logoff, Interface.checkConnectivity, Interface.getNetwork,
                  Interface.signIn],
        properties: InterfaceProperty.allCases.map(\.spec),
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

        /// The annotated scan list (`GetScanList`'s answer) changed; it carries nothing, so the
        /// list stays behind read-scan-list.
        public static let scanListChanged = SignalSpec("ScanListChanged")
    }

    /// The manager's properties, one row each: its name, then its type and how it announces changes.
    public enum ManagerProperty: String, PropertyRow {
        /// The interface objects, by path.
        case interfaces = "Interfaces"
        /// The registered helpers (`identifier`, `display-name`, `purpose`, `state`, `commands-via`).
        case helpers = "Helpers"
        case version = "Version"
        /// The machine's connection as NetworkManager reports it ("connected-via-wifi"…).
        case status = "Status"
        /// Which probes the daemon sends and why, in words.
        case probePolicy = "ProbePolicy"

        public var spec: PropertySpec {
            switch self {
            case .interfaces: declared("ao")
            case .helpers: declared("aa{sv}")
            case .version: declared("s", emitsChanged: .const)
            case .status: declared("s")
            case .probePolicy: declared("s")
            }
        }
    }

    /// A Wi-Fi interface object's properties, one row each: its name, then its type and how it
    /// announces changes.
    public enum InterfaceProperty: String, PropertyRow {
        /// The kernel's interface name: an object's name never changes (a renamed device is a new object).
        case name = "Name"
        /// NetworkManager's device object.
        case device = "Device"
        case state = "State"
        /// The network joined, without its SSID and BSSID (location data: `GetNetwork`).
        case network = "Network"
        /// The chosen helper's display name.
        case helper = "Helper"
        case connectivity = "Connectivity"
        case portalUrl = "PortalUrl"
        case venueInfoUrl = "VenueInfoUrl"
        case sessionExpires = "SessionExpires"
        /// Why the chosen helper answered its last command as it did (its `reason`, escaped), or the
        /// daemon's explanation (``HotspotContract/explanationMark`` first); "" when none.
        case reason = "Reason"
        /// The portal's sign-in form waiting for the user (kind, fields, labels…), empty when none.
        case signInForm = "SignInForm"

        public var spec: PropertySpec {
            switch self {
            case .name: declared("s", emitsChanged: .const)
            case .device: declared("o")
            case .state: declared("s")
            case .network: declared("a{sv}")
            case .helper: declared("s")
            case .connectivity: declared("s")
            case .portalUrl: declared("s")
            case .venueInfoUrl: declared("s")
            case .sessionExpires: declared("t")
            case .reason: declared("s")
            case .signInForm: declared("a{sv}")
            }
        }
    }

    /// The member of a helper's Handler object.
    public enum Handler {
        public static let handleCommand = MethodSpec("HandleCommand", inputs: [DBusArgument("command", "a{sv}")],
                                                     outputs: [DBusArgument("response", "a{sv}")])
    }
}
