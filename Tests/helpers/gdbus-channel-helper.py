#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A hotspot helper written with GLib's GDBus (python3-gi) that takes its command channel, to show
the channel is plain peer-to-peer D-Bus that another implementation speaks unchanged.

usage: gdbus-channel-helper.py DISPLAY_NAME CONFIDENCE

It registers with hotspot-helperd on the system bus (DBUS_SYSTEM_BUS_ADDRESS) asking for a
command channel (the option CommandChannel), makes a GDBusConnection on the socket the reply
carries (GDBus authenticates as a client), exports its Handler there too, and answers evaluate with CONFIDENCE and everything else
with success. It prints each command with the way it came ("bus" or "channel").
"""
import sys

from gi.repository import Gio, GLib

BUS_NAME = 'org.freedesktop.NetworkManager.HotspotHelper'
MANAGER = '/org/freedesktop/NetworkManager/HotspotHelper'
INTERFACE = 'org.freedesktop.NetworkManager.HotspotHelper'
PATH = '/com/example/GDBusHelper'
HANDLER_XML = '''<node>
  <interface name="org.freedesktop.NetworkManager.HotspotHelper.Handler">
    <method name="HandleCommand">
      <arg name="command" type="a{sv}" direction="in"/>
      <arg name="response" type="a{sv}" direction="out"/>
    </method>
  </interface>
</node>'''


def main():
    name, confidence = sys.argv[1:3]
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    handler = Gio.DBusNodeInfo.new_for_xml(HANDLER_XML).interfaces[0]

    def serve(connection, how):
        def on_call(_conn, sender, _path, _iface, _method, parameters, invocation):
            # On the bus only the daemon may command; on the channel only the daemon can.
            if how == 'bus' and sender != bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                                                       'GetNameOwner', GLib.Variant('(s)', (BUS_NAME,)), None,
                                                       Gio.DBusCallFlags.NONE, -1, None).unpack()[0]:
                invocation.return_dbus_error('org.freedesktop.DBus.Error.AccessDenied', 'only the daemon may send commands')
                return
            command = parameters.unpack()[0]
            kind = command['type']
            print('command', kind, 'via', how, flush=True)
            response = {'result': GLib.Variant('s', 'success')}
            if kind == 'evaluate':
                response['confidence'] = GLib.Variant('s', confidence)
            invocation.return_value(GLib.Variant('(a{sv})', (response,)))
        connection.register_object(PATH, handler, on_call, None, None)

    serve(bus, 'bus')
    options = {'DisplayName': GLib.Variant('s', name), 'Identifier': GLib.Variant('s', 'org.example.gdbus'),
               'Purpose': GLib.Variant('s', 'Tests the command channel from GDBus'), 'CommandChannel': GLib.Variant('b', True)}
    # The daemon's first commands may already be on the socket: it is served before the main loop runs.
    reply, fds = bus.call_with_unix_fd_list_sync(BUS_NAME, MANAGER, INTERFACE, 'RegisterHelper', GLib.Variant('(oa{sv})', (PATH, options)),
                                                 GLib.VariantType('(a{sv})'), Gio.DBusCallFlags.NONE, -1, None, None)
    fd = fds.get(reply.unpack()[0]['command-channel'])
    stream = Gio.Socket.new_from_fd(fd).connection_factory_create_connection()
    channel = Gio.DBusConnection.new_sync(stream, None, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT, None, None)
    serve(channel, 'channel')
    print('registered, channel open', flush=True)
    GLib.MainLoop().run()


if __name__ == '__main__':
    main()
