# SPDX-License-Identifier: Apache-2.0
"""What the lab's scenarios share (run in the guest by /usr/bin/python3, as root).

Real NetworkManager over dbus-python, the project's daemon and helpers as subprocesses, the AP
side's portal simulators over HTTP, results to /lab-out/results.tsv.
"""

import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import dbus

OUT = os.environ.get("LAB_OUT", "/lab-out")
BIN = os.environ["LAB_BIN"]
REPO = os.environ["LAB_REPO"]
NM = "org.freedesktop.NetworkManager"
NM_PATH = "/org/freedesktop/NetworkManager"
PROPS = "org.freedesktop.DBus.Properties"
HH = "org.freedesktop.NetworkManager.HotspotHelper"
HH_PATH = "/org/freedesktop/NetworkManager/HotspotHelper"
HH_IFACE = HH + ".Interface"
OFFICE_PSK = "office-passphrase-42"
SUBNETS = {"CityFree": "10.1.0", "Office": "10.2.0", "HomeNet": "10.3.0", "RoamNet": "10.4.0", "FailNet": "10.6.0",
           "WisprNet": "10.7.0", "CapNet": "10.8.0"}
BSSIDS = {"roamA": "02:00:00:00:04:00", "roamB": "02:00:00:00:05:00"}


class Failed(Exception):
    """A scenario's check did not hold; the message is the reason printed after FAIL."""


def now():
    return time.monotonic()


def note(text):
    print(f"[{time.clock_gettime(time.CLOCK_BOOTTIME):8.2f}] {text}", flush=True)


def wait(what, condition, timeout, interval=0.05):
    """Polls `condition` until it returns a true value, which is returned; Failed after `timeout` s."""
    deadline = now() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except dbus.DBusException as e:
            last_error = e.get_dbus_message()
        if now() > deadline:
            raise Failed(f"timed out after {timeout:g} s waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))
        time.sleep(interval)


def run(*cmd, check=True, timeout=60, user=None):
    """Runs a command; returns its stdout. Failed (with stderr) when it exits non-zero and check."""
    argv = list(cmd)
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--"] + argv
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise Failed(f"`{' '.join(cmd)}` exited {p.returncode}: {(p.stderr or p.stdout).strip()[:300]}")
    return p.stdout


class Bus:
    """The guest's system bus: NetworkManager's objects and the daemon's."""

    def __init__(self):
        self.bus = dbus.SystemBus()

    def get(self, service, path, interface, name):
        return self.bus.get_object(service, path, introspect=False).Get(interface, name, dbus_interface=PROPS)

    def call(self, service, path, interface, member, *args, timeout=30):
        obj = self.bus.get_object(service, path, introspect=False)
        return obj.get_dbus_method(member, interface)(*args, timeout=timeout)

    # NetworkManager
    def device(self, iface="wlan0"):
        return str(self.call(NM, NM_PATH, NM, "GetDeviceByIpIface", iface))

    def device_state(self, iface="wlan0"):
        return int(self.get(NM, self.device(iface), NM + ".Device", "State"))

    def nm_connectivity(self):
        return int(self.get(NM, NM_PATH, NM, "Connectivity"))

    def device_connectivity(self, iface="wlan0"):
        return int(self.get(NM, self.device(iface), NM + ".Device", "Ip4Connectivity"))

    def active_bssid(self, iface="wlan0"):
        ap = str(self.get(NM, self.device(iface), NM + ".Device.Wireless", "ActiveAccessPoint"))
        return "" if ap == "/" else str(self.get(NM, ap, NM + ".AccessPoint", "HwAddress")).lower()

    def ap_path(self, iface="wlan0"):
        return str(self.get(NM, self.device(iface), NM + ".Device.Wireless", "ActiveAccessPoint"))

    def access_points(self, iface="wlan0"):
        """{bssid: ssid} of the device's access points as NetworkManager publishes them."""
        aps = {}
        for ap in self.get(NM, self.device(iface), NM + ".Device.Wireless", "AccessPoints"):
            aps[str(self.get(NM, ap, NM + ".AccessPoint", "HwAddress")).lower()] = bytes(self.get(NM, ap, NM + ".AccessPoint", "Ssid")).decode()
        return aps

    def ip4(self, iface="wlan0"):
        out = run("ip", "-4", "-o", "addr", "show", "dev", iface, check=False)
        for word in out.split():
            if "/" in word and word[0].isdigit():
                return word.split("/")[0]
        return ""

    # The daemon
    def daemon_interface(self, iface="wlan0"):
        for path in self.get(HH, HH_PATH, HH, "Interfaces"):
            if str(self.get(HH, path, HH_IFACE, "Name")) == iface:
                return str(path)
        return None

    def daemon(self, name, iface="wlan0"):
        path = self.daemon_interface(iface)
        if path is None:
            raise Failed(f"the daemon publishes no interface {iface}")
        return native(self.get(HH, path, HH_IFACE, name))

    def daemon_network(self, iface="wlan0"):
        """The network the daemon says wlan0 is on, SSID and BSSID included (GetNetwork: the
        `Network` property leaves out location data; root may read it)."""
        path = self.daemon_interface(iface)
        if path is None:
            raise Failed(f"the daemon publishes no interface {iface}")
        return native(self.call(HH, path, HH_IFACE, "GetNetwork"))


def native(value):
    """A dbus-python value as plain Python (str, int, bool, float, bytes, list, dict)."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, dbus.Dictionary):
        return {str(k): native(v) for k, v in value.items()}
    if isinstance(value, dbus.Array):
        if value.signature == "y":
            return bytes(value)
        return [native(v) for v in value]
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.Int32, dbus.Int64, dbus.UInt16, dbus.UInt32, dbus.UInt64)):
        return int(value)
    if isinstance(value, dbus.Double):
        return float(value)
    return value


class Process:
    """A child with its output in /lab-out/NAME.log, stopped by stop()."""

    def __init__(self, name, argv, user=None):
        self.name = name
        self.path = os.path.join(OUT, f"{name}.log")
        if user is not None:
            argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--"] + argv
        self.log = open(self.path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def text(self):
        with open(self.path, errors="replace") as f:
            return f.read()

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def portal_events(ssid):
    """What the network's portal simulator saw (a list of event dicts), fetched on the AP side."""
    url = f"http://{SUBNETS[ssid]}.1/__sim/events"
    out = run("ip", "netns", "exec", "ap", "/usr/bin/python3", "-c",
              f"import urllib.request,sys; sys.stdout.write(urllib.request.urlopen({url!r}, timeout=5).read().decode())")
    return json.loads(out)


def portal_reset(ssid):
    url = f"http://{SUBNETS[ssid]}.1/__sim/reset"
    run("ip", "netns", "exec", "ap", "/usr/bin/python3", "-c", f"import urllib.request; urllib.request.urlopen({url!r}, timeout=5).read()")


def nmcli(*args, check=True, timeout=90, user=None):
    return run("nmcli", *args, check=check, timeout=timeout, user=user)


PROVISIONED_MARK = "org.freedesktop.NetworkManager.HotspotHelper.provisioned"


def provisioned_profiles():
    """UUIDs of the profiles the daemon provisioned (its mark in user.data, read over D-Bus)."""
    bus = dbus.SystemBus()
    settings = bus.get_object(NM, NM_PATH + "/Settings", introspect=False)
    found = []
    for path in settings.ListConnections(dbus_interface=NM + ".Settings"):
        conf = bus.get_object(NM, path, introspect=False).GetSettings(dbus_interface=NM + ".Settings.Connection")
        if PROVISIONED_MARK in conf.get("user", {}).get("data", {}):
            found.append(str(conf["connection"]["uuid"]))
    return found


def forget_connections():
    """Deletes every profile but the daemon's own (so nothing the scenarios made autoconnects
    later; the daemon would not re-add a provisioned profile someone deleted)."""
    keep = set(provisioned_profiles())
    for uuid in nmcli("-g", "UUID", "connection", "show").split():
        if uuid not in keep:
            nmcli("connection", "delete", "uuid", uuid, check=False)


def record(verdict, name, reason=""):
    with open(os.path.join(OUT, "results.tsv"), "a") as f:
        f.write(f"{verdict}\t{name}\t{reason.replace(chr(9), ' ').replace(chr(10), ' ')}\n")
        f.flush()
        os.fsync(f.fileno())


NM_PORTAL = 2
AC_ACTIVATED = 2


class PortalWatch:
    """NetworkManager's signals in the order the bus delivered them (`gdbus monitor`), to tell
    whether its Connectivity was ever PORTAL while an active connection was ACTIVATED: the moment
    GNOME Shell opens its "Hotspot Login" window (docs/DESKTOP.md). Start it before the join."""

    PROPS_CHANGED = re.compile(r"^(\S+): org\.freedesktop\.DBus\.Properties\.PropertiesChanged \('([^']+)', \{(.*)\}")

    def __init__(self, bus):
        self.start = now()
        self.initial = bus.nm_connectivity()
        self.lines = []
        self.proc = subprocess.Popen(["stdbuf", "-oL", "gdbus", "monitor", "--system", "--dest", NM],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        time.sleep(0.3)  # gdbus subscribes before the join starts

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append((now(), line.rstrip("\n")))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.reader.join(5)

    def events(self):
        """(seconds since start, "connectivity" or "active:PATH", value) in bus order."""
        out = []
        for t, line in self.lines:
            m = self.PROPS_CHANGED.match(line)
            if not m:
                continue
            path, interface, body = m.groups()
            if interface == NM and path == NM_PATH:
                c = re.search(r"'Connectivity': <uint32 (\d+)>", body)
                if c:
                    out.append((t - self.start, "connectivity", int(c.group(1))))
            elif interface == NM + ".Connection.Active":
                st = re.search(r"'State': <uint32 (\d+)>", body)
                if st:
                    out.append((t - self.start, "active:" + path, int(st.group(1))))
        return out

    def portal_while_activated(self):
        """The first (seconds, event) at which Connectivity was PORTAL with a connection
        ACTIVATED, or None."""
        connectivity, activated = self.initial, set()
        for t, what, value in self.events():
            if what == "connectivity":
                connectivity = value
            elif value == AC_ACTIVATED:
                activated.add(what)
            else:
                activated.discard(what)
            if connectivity == NM_PORTAL and activated:
                return t, f"{what}={value}"
        return None

    def connectivity_before_activated(self):
        """NetworkManager's Connectivity values announced while the join was still activating (its
        check runs during IP_CONFIG and the pre-up hold), in order, as names."""
        names = {0: "UNKNOWN", 1: "NONE", 2: "PORTAL", 3: "LIMITED", 4: "FULL"}
        seen = []
        for _, what, value in self.events():
            if what.startswith("active:") and value == AC_ACTIVATED:
                break
            if what == "connectivity":
                seen.append(names.get(value, str(value)))
        return seen

    def portal_before_activated(self):
        """Whether NetworkManager said PORTAL while the connection was still activating (its check
        runs during the pre-up hold): the hold is what kept it from the desktop."""
        activated = False
        for _, what, value in self.events():
            if what.startswith("active:") and value == AC_ACTIVATED:
                activated = True
            if what == "connectivity" and value == NM_PORTAL and not activated:
                return True
        return False

