# SPDX-License-Identifier: GPL-3.0-or-later
'''A mock bluetoothd for BlueZTests: python-dbusmock's bluez5 template, plus

- parameters: "adapter" (null: none; else {"powered": bool, "powerState": str}),
  "devices" (found by StartDiscovery: address, name, rssi, paired, uuids — added with no
  UUIDs, which arrive 100 ms later by PropertiesChanged, as with real bluetoothd),
  "record" (a file: one JSON line per ProfileManager1 / AgentManager1 call);
- ProfileManager1.RegisterProfile/UnregisterProfile that record their caller and
  arguments (the template's do nothing), AgentManager1 likewise;
- org.bluez.Mock.Connect(address, socket path): connects to the test's Unix socket and
  hands that descriptor to the registered profile (Profile1.NewConnection), as bluetoothd
  hands over an RFCOMM connection;
- org.bluez.Mock.RequestDisconnection(address): Profile1.RequestDisconnection for it;
- org.bluez.Mock.Pair(address, passkey): asks the registered agent
  (Agent1.RequestConfirmation) and returns "accepted" or the error name it replied.
'''
import json
import socket

import dbus
import dbus.lowlevel
from gi.repository import GLib
from dbusmock import mockobject
from dbusmock.templates import bluez5

BUS_NAME = bluez5.BUS_NAME
MAIN_OBJ = bluez5.MAIN_OBJ
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

ADAPTER = '/org/bluez/hci0'


def device_path(address):
    return ADAPTER + '/dev_' + address.replace(':', '_').upper()


def plain(v):
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, int):
        return int(v)
    return str(v)


def load(mock, parameters):
    bluez5.load(mock, parameters)
    bluez = mockobject.objects['/org/bluez']
    callers = {}

    def record(entry):
        if parameters.get('record'):
            with open(parameters['record'], 'a', encoding='utf-8') as f:
                f.write(json.dumps(entry) + '\n')

    # Who called: dbusmock's methods do not see the sender, a filter does.
    def remember(_connection, message):
        if message.get_type() == dbus.lowlevel.MESSAGE_TYPE_METHOD_CALL and message.get_path() == '/org/bluez':
            args = message.get_args_list()
            if args:
                callers[str(message.get_member())] = (message.get_sender(), str(args[0]))
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    mock.connection.add_message_filter(remember)

    def register_profile(_self, path, uuid, options):
        record({'call': 'RegisterProfile', 'path': str(path), 'uuid': str(uuid),
                'options': {str(k): plain(v) for k, v in options.items()},
                'types': {str(k): type(v).__name__ for k, v in options.items()}})

    def unregister_profile(_self, path):
        record({'call': 'UnregisterProfile', 'path': str(path)})

    def register_agent(_self, path, capability):
        record({'call': 'RegisterAgent', 'path': str(path), 'capability': str(capability)})

    def default_agent(_self, path):
        record({'call': 'RequestDefaultAgent', 'path': str(path)})

    def unregister_agent(_self, path):
        record({'call': 'UnregisterAgent', 'path': str(path)})

    bluez.AddMethods('org.bluez.ProfileManager1', [
        ('RegisterProfile', 'osa{sv}', '', register_profile),
        ('UnregisterProfile', 'o', '', unregister_profile),
    ])
    bluez.AddMethods('org.bluez.AgentManager1', [
        ('RegisterAgent', 'os', '', register_agent),
        ('RequestDefaultAgent', 'o', '', default_agent),
        ('UnregisterAgent', 'o', '', unregister_agent),
    ])

    def connect(_self, address, path):
        sender, profile = callers['RegisterProfile']
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(path))
        mock.connection.call_blocking(sender, profile, 'org.bluez.Profile1', 'NewConnection', 'oha{sv}',
                                      (dbus.ObjectPath(device_path(address)), dbus.types.UnixFd(s), {}), timeout=10)
        s.close()
        return 'connected'

    def request_disconnection(_self, address):
        sender, profile = callers['RegisterProfile']
        mock.connection.call_blocking(sender, profile, 'org.bluez.Profile1', 'RequestDisconnection', 'o',
                                      (dbus.ObjectPath(device_path(address)),), timeout=10)
        return 'asked'

    def pair(_self, address, passkey):
        sender, agent = callers['RegisterAgent']
        try:
            mock.connection.call_blocking(sender, agent, 'org.bluez.Agent1', 'RequestConfirmation', 'ou',
                                          (dbus.ObjectPath(device_path(address)), dbus.UInt32(passkey)), timeout=10)
            return 'accepted'
        except dbus.exceptions.DBusException as e:
            return e.get_dbus_name()

    mock.AddMethods('org.bluez.Mock', [('Connect', 'ss', 's', connect), ('Pair', 'su', 's', pair),
                                       ('RequestDisconnection', 's', 's', request_disconnection)])

    options = parameters.get('adapter')
    if options is None:
        return
    mockobject.objects.setdefault(MAIN_OBJ, mock)   # AddAdapter signals through it; dbusmock adds it after load
    bluez5.AddAdapter(mock, 'hci0', 'bendsynth test host')
    adapter = mockobject.objects[ADAPTER]
    adapter.props['org.bluez.Adapter1']['Powered'] = dbus.Boolean(options.get('powered', True), variant_level=1)
    if 'powerState' in options:
        adapter.props['org.bluez.Adapter1']['PowerState'] = dbus.String(options['powerState'], variant_level=1)

    def resolve():
        for d in parameters.get('devices', []):
            obj = mockobject.objects[device_path(d['address'])]
            obj.UpdateProperties('org.bluez.Device1', {
                'UUIDs': dbus.Array(d.get('uuids', []), signature='s', variant_level=1),
                'Paired': dbus.Boolean(d.get('paired', False), variant_level=1),
                'RSSI': dbus.Int16(d.get('rssi', -60), variant_level=1),
            })
        return False

    def start_discovery(_self):
        adapter.props['org.bluez.Adapter1']['Discovering'] = dbus.Boolean(True, variant_level=1)
        for d in parameters.get('devices', []):
            if device_path(d['address']) not in mockobject.objects:
                bluez5.AddDevice(mock, 'hci0', d['address'], d['name'])
        GLib.timeout_add(100, resolve)

    def stop_discovery(_self):
        adapter.props['org.bluez.Adapter1']['Discovering'] = dbus.Boolean(False, variant_level=1)

    adapter.AddMethods('org.bluez.Adapter1', [
        ('StartDiscovery', '', '', start_discovery),
        ('StopDiscovery', '', '', stop_discovery),
    ])
