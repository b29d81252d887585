#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A misbehaving hotspot helper (dbus-python) that answers every command twice.

usage: twice-helper.py DISPLAY_NAME

It answers evaluate with high confidence and every other command with success, then sends a
second reply to the same call that says the opposite (evaluate: none; others: failure). A daemon
that took the second reply would change its mind; it must keep the first.
"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BUS_NAME = 'org.freedesktop.NetworkManager.HotspotHelper'
MANAGER = '/org/freedesktop/NetworkManager/HotspotHelper'
HANDLER = 'org.freedesktop.NetworkManager.HotspotHelper.Handler'
PATH = '/com/example/TwiceHelper'


class Helper(dbus.service.Object):
    @dbus.service.method(HANDLER, in_signature='a{sv}', out_signature='a{sv}', async_callbacks=('reply', 'error'))
    def HandleCommand(self, command, reply, error):
        kind = str(command['type'])
        if kind == 'evaluate':
            first, second = {'result': 'success', 'confidence': 'high'}, {'result': 'success', 'confidence': 'none'}
        elif kind == 'filter-scan-list':
            first = second = {'result': 'success', 'networks': dbus.Array([], signature='a{sv}')}
        else:
            first, second = {'result': 'success'}, {'result': 'failure'}
        reply(first)
        reply(second)
        print('command', kind, 'answered twice', flush=True)


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    Helper(bus, PATH)
    manager = bus.get_object(BUS_NAME, MANAGER)
    manager.RegisterHelper(dbus.ObjectPath(PATH), {'DisplayName': sys.argv[1], 'Identifier': 'org.example.twice',
                                                       'Purpose': 'Tests registering twice'},
                           dbus_interface='org.freedesktop.NetworkManager.HotspotHelper')
    print('registered', flush=True)
    GLib.MainLoop().run()


if __name__ == '__main__':
    main()
