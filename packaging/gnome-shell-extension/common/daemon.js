// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// hotspot-helperd as this extension sees it: its Wi-Fi interfaces, each with its properties
// (State, Helper, Reason, Connectivity, Device) and its annotated scan list. Everything is
// pushed by the daemon: the bus name appearing and vanishing, the manager's Interfaces, each
// interface's PropertiesChanged, and its ScanListChanged signal, on which GetScanList is read
// again. Nothing is polled. GetScanList carries no passwords (only has-password).

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';

const BUS_NAME = 'org.freedesktop.NetworkManager.HotspotHelper';
const MANAGER_PATH = '/org/freedesktop/NetworkManager/HotspotHelper';
const MANAGER_INTERFACE = 'org.freedesktop.NetworkManager.HotspotHelper';
const INTERFACE_INTERFACE = 'org.freedesktop.NetworkManager.HotspotHelper.Interface';
// The daemon is D-Bus activatable: reading it must not start it.
const PROXY_FLAGS = Gio.DBusProxyFlags.DO_NOT_AUTO_START;

export class HotspotDaemon {
    /**
     * @param {function(): void} changed - called whenever what `interfaces` returns changes
     */
    constructor(changed) {
        this._changed = changed;
        this._interfaces = new Map();  // object path → {proxy, scanList, generation, ids}
        this._manager = null;
        this._managerId = 0;
        this._cancellable = null;
        this._watch = 0;
        this._warned = new Set();
    }

    start() {
        this._watch = Gio.bus_watch_name(Gio.BusType.SYSTEM, BUS_NAME, Gio.BusNameWatcherFlags.NONE,
            () => this._appeared(), () => this._vanished());
    }

    stop() {
        if (this._watch)
            Gio.bus_unwatch_name(this._watch);
        this._watch = 0;
        this._drop();
    }

    /**
     * The daemon's interfaces now ([] while it is not on the bus).
     *
     * `failed`: the last sign-in on it failed, and no join began since (the daemon leaves a
     * network whose sign-in failed, so its State is back to inactive at once; its Reason stays).
     *
     * `signInForm`: the SignInForm property, unpacked ({} when no sign-in waits for the user).
     *
     * @returns {Array<{path: string, device: string, status: object, failed: boolean, scanList: Array<object>, signInForm: object}>}
     */
    get interfaces() {
        return [...this._interfaces.entries()]
            .filter(([, entry]) => entry.proxy)
            .map(([path, entry]) => ({
                path,
                device: this._string(entry.proxy, 'Device'),
                status: {
                    State: this._string(entry.proxy, 'State'),
                    Helper: this._string(entry.proxy, 'Helper'),
                    BuiltIn: this._builtIn(this._string(entry.proxy, 'Helper')),
                    Reason: this._string(entry.proxy, 'Reason'),
                    Connectivity: this._string(entry.proxy, 'Connectivity'),
                },
                failed: entry.failed,
                scanList: entry.scanList,
                signInForm: this._dict(entry.proxy, 'SignInForm'),
            }));
    }

    /**
     * Whether the helper called `name` is one of the daemon's own (the manager's Helpers says
     * commands-via "daemon"): its name ("Known Networks", "Portal") is the daemon's, not the
     * network's, and the header says who signed in in other words.
     *
     * @param {string} name - an interface's Helper
     * @returns {boolean}
     */
    _builtIn(name) {
        if (!name || !this._manager)
            return false;
        const helpers = this._manager.get_cached_property('Helpers')?.recursiveUnpack() ?? [];
        return Array.isArray(helpers) && helpers.some(h => h?.['display-name'] === name && h?.['commands-via'] === 'daemon');
    }

    _dict(proxy, name) {
        const value = proxy.get_cached_property(name);
        return value?.is_of_type(new GLib.VariantType('a{sv}')) ? value.recursiveUnpack() : {};
    }

    /**
     * Calls the interface's SignIn with `values` ({name: ['s'|'b', value]}) and `options`
     * (remember, allow-plain-http). Resolves to [result, message]; rejects with the daemon's
     * error (its message is in the user's words and carries no value).
     *
     * @param {string} path - the interface's object path
     * @param {Object<string, Array>} values - from signInValues()
     * @param {{remember: boolean, allowPlainHttp: boolean}} options - SignIn's options
     * @returns {Promise<Array<string>>}
     */
    signIn(path, values, options) {
        const proxy = this._interfaces.get(path)?.proxy;
        if (!proxy)
            return Promise.reject(new Error('hotspot-helperd is not running'));
        const v = {};
        for (const [name, [type, value]] of Object.entries(values))
            v[name] = type === 'b' ? GLib.Variant.new_boolean(value) : GLib.Variant.new_string(value);
        const args = new GLib.Variant('(a{sv}a{sv})', [v, {
            'remember': GLib.Variant.new_boolean(options.remember),
            'allow-plain-http': GLib.Variant.new_boolean(options.allowPlainHttp),
        }]);
        return new Promise((resolve, reject) => {
            // No time limit but D-Bus's own: a portal can take a while to answer a sign-in.
            proxy.call('SignIn', args, Gio.DBusCallFlags.NONE, -1, this._cancellable, (p, result) => {
                try {
                    resolve(p.call_finish(result).deepUnpack());
                } catch (e) {
                    if (e instanceof GLib.Error)
                        Gio.DBusError.strip_remote_error(e);
                    reject(e);
                }
            });
        });
    }

    _string(proxy, name) {
        const value = proxy.get_cached_property(name)?.deepUnpack();
        return typeof value === 'string' ? value : '';
    }

    _appeared() {
        this._drop();
        const cancellable = new Gio.Cancellable();
        this._cancellable = cancellable;
        Gio.DBusProxy.new_for_bus(Gio.BusType.SYSTEM, PROXY_FLAGS, null, BUS_NAME, MANAGER_PATH,
            MANAGER_INTERFACE, cancellable, (_o, result) => {
                let manager;
                try {
                    manager = Gio.DBusProxy.new_for_bus_finish(result);
                } catch (e) {
                    this._warn('manager', e);
                    return;
                }
                if (cancellable.is_cancelled())
                    return;
                this._manager = manager;
                this._managerId = manager.connect('g-properties-changed', (_p, changed) => {
                    if (changed.lookup_value('Interfaces', null))
                        this._syncInterfaces();
                    else if (changed.lookup_value('Helpers', null))
                        this._changed();
                });
                this._syncInterfaces();
            });
    }

    _vanished() {
        this._drop();
        this._changed();
    }

    _drop() {
        this._cancellable?.cancel();
        this._cancellable = null;
        if (this._managerId)
            this._manager.disconnect(this._managerId);
        this._managerId = 0;
        this._manager = null;
        for (const entry of this._interfaces.values())
            entry.ids?.forEach(id => entry.proxy.disconnect(id));
        this._interfaces.clear();
    }

    _syncInterfaces() {
        const paths = this._manager?.get_cached_property('Interfaces')?.deepUnpack() ?? [];
        let removed = false;
        for (const [path, entry] of this._interfaces) {
            if (paths.includes(path))
                continue;
            entry.ids?.forEach(id => entry.proxy.disconnect(id));
            this._interfaces.delete(path);
            removed = true;
        }
        for (const path of paths) {
            if (!this._interfaces.has(path))
                this._addInterface(path);
        }
        if (removed)
            this._changed();
    }

    _addInterface(path) {
        const entry = {proxy: null, scanList: [], generation: 0, ids: null, failed: false};
        this._interfaces.set(path, entry);
        const cancellable = this._cancellable;
        Gio.DBusProxy.new_for_bus(Gio.BusType.SYSTEM, PROXY_FLAGS, null, BUS_NAME, path,
            INTERFACE_INTERFACE, cancellable, (_o, result) => {
                let proxy;
                try {
                    proxy = Gio.DBusProxy.new_for_bus_finish(result);
                } catch (e) {
                    this._warn(path, e);
                    return;
                }
                if (cancellable?.is_cancelled() || this._interfaces.get(path) !== entry)
                    return;
                entry.proxy = proxy;
                entry.failed = this._string(proxy, 'State') === 'failure';
                entry.ids = [
                    proxy.connect('g-properties-changed', (_p, changed) => {
                        const state = changed.lookup_value('State', null)?.deepUnpack();
                        if (state === 'failure')
                            entry.failed = true;
                        else if (state && state !== 'inactive')
                            entry.failed = false;
                        this._changed();
                    }),
                    proxy.connect('g-signal', (_p, _sender, signal) => {
                        if (signal === 'ScanListChanged')
                            this._readScanList(entry);
                    }),
                ];
                this._readScanList(entry);
                this._changed();
            });
    }

    _readScanList(entry) {
        // Answers can cross: only the latest call's answer counts.
        const generation = ++entry.generation;
        entry.proxy.call('GetScanList', null, Gio.DBusCallFlags.NONE, -1, this._cancellable, (proxy, result) => {
            let list = [];
            try {
                [list] = proxy.call_finish(result).recursiveUnpack();
            } catch (e) {
                if (e.matches?.(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                    return;
                // NotAuthorized (polkit said no for this session): names stay Shell's.
                this._warn('GetScanList', e);
            }
            if (generation !== entry.generation || !entry.ids)
                return;
            entry.scanList = Array.isArray(list) ? list : [];
            this._changed();
        });
    }

    _warn(what, error) {
        if (error.matches?.(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
            return;
        // Once per cause: a refused GetScanList would otherwise log at every change.
        const key = `${what}: ${error.message}`;
        if (this._warned.has(key))
            return;
        this._warned.add(key);
        console.warn(`Hotspot Helper: ${key}`);
    }
}
