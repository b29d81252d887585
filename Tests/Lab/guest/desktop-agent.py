# SPDX-License-Identifier: Apache-2.0
"""A stand-in desktop secret agent (run as the desktop user, e.g. uid 1000): registers with
NetworkManager like GNOME Shell's or plasma-nm's agent, records every call it gets as a JSON line
in LOG, and answers GetSecrets with a WRONG password, so a join that used it fails visibly.

    desktop-agent.py LOG
"""

import json
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

AGENT = "org.freedesktop.NetworkManager.SecretAgent"
WRONG = "wrong-password-from-the-desktop"


class Agent(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, "/org/freedesktop/NetworkManager/SecretAgent")
        self.log = log

    def note(self, member, **fields):
        with open(self.log, "a") as f:
            f.write(json.dumps({"time": time.time(), "call": member, **fields}) + "\n")

    @dbus.service.method(AGENT, in_signature="a{sa{sv}}osasu", out_signature="a{sa{sv}}")
    def GetSecrets(self, connection, path, setting, hints, flags):
        ssid = bytes(connection.get("802-11-wireless", {}).get("ssid", b"")).decode(errors="replace")
        self.note("GetSecrets", path=str(path), setting=str(setting), flags=int(flags), ssid=ssid)
        return {"802-11-wireless-security": {"psk": WRONG}}

    @dbus.service.method(AGENT, in_signature="os")
    def CancelGetSecrets(self, path, setting):
        self.note("CancelGetSecrets", path=str(path), setting=str(setting))

    @dbus.service.method(AGENT, in_signature="a{sa{sv}}o")
    def SaveSecrets(self, connection, path):
        self.note("SaveSecrets", path=str(path))

    @dbus.service.method(AGENT, in_signature="a{sa{sv}}o")
    def DeleteSecrets(self, connection, path):
        self.note("DeleteSecrets", path=str(path))


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    agent = Agent(bus, sys.argv[1])
    manager = bus.get_object("org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager/AgentManager")
    manager.RegisterWithCapabilities("lab.desktop-agent", dbus.UInt32(0), dbus_interface="org.freedesktop.NetworkManager.AgentManager")
    agent.note("Registered")
    print("registered", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
