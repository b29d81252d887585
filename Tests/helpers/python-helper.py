#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A hotspot helper written in Python with dbus-python, to show the protocol is language-neutral.

usage: python-helper.py DISPLAY_NAME CONFIDENCE AUTHENTICATE_RESULT [CLAIM_SSID=PASSWORD ...]

It registers with hotspot-helperd on the system bus (DBUS_SYSTEM_BUS_ADDRESS), answers evaluate
with CONFIDENCE, authenticate with AUTHENTICATE_RESULT, everything else with success, claims the
given SSIDs in filter-scan-list, and prints each command it receives.
"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BUS_NAME = 'org.freedesktop.NetworkManager.HotspotHelper'
MANAGER = '/org/freedesktop/NetworkManager/HotspotHelper'
HANDLER = 'org.freedesktop.NetworkManager.HotspotHelper.Handler'
PATH = '/com/example/PythonHelper'


class Helper(dbus.service.Object):
    def __init__(self, bus, confidence, authenticate, claims):
        super().__init__(bus, PATH)
        self.bus = bus
        self.confidence = confidence
        self.authenticate = authenticate
        self.claims = claims

    @dbus.service.method(HANDLER, in_signature='a{sv}', out_signature='a{sv}', sender_keyword='sender')
    def HandleCommand(self, command, sender=None):
        if sender != self.bus.get_name_owner(BUS_NAME):
            raise dbus.exceptions.DBusException('only the daemon may send commands',
                                                name='org.freedesktop.DBus.Error.AccessDenied')
        kind = str(command['type'])
        print('command', kind, flush=True)
        if kind == 'evaluate':
            return {'result': 'success', 'confidence': self.confidence}
        if kind == 'authenticate':
            return {'result': self.authenticate}
        if kind == 'filter-scan-list':
            claimed = []
            for network in command.get('networks', []):
                ssid = bytes(network['ssid']).decode('utf-8', 'replace')
                if ssid in self.claims:
                    entry = {'ssid': dbus.ByteArray(bytes(network['ssid'])), 'confidence': 'high'}
                    if self.claims[ssid]:
                        entry['password'] = self.claims[ssid]
                    claimed.append(dbus.Dictionary(entry, signature='sv'))
            return {'result': 'success', 'networks': dbus.Array(claimed, signature='a{sv}')}
        return {'result': 'success'}


def main():
    name, confidence, authenticate = sys.argv[1:4]
    claims = dict(arg.split('=', 1) for arg in sys.argv[4:])
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    Helper(bus, confidence, authenticate, claims)
    manager = bus.get_object(BUS_NAME, MANAGER)
    manager.RegisterHelper(dbus.ObjectPath(PATH), {'DisplayName': name, 'Identifier': 'org.example.python',
                                                       'Purpose': 'Tests the daemon from Python'},
                           dbus_interface='org.freedesktop.NetworkManager.HotspotHelper')
    print('registered', flush=True)
    GLib.MainLoop().run()


if __name__ == '__main__':
    main()
