// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// Keeps Shell's own captive-portal prompt away from a Wi-Fi device while this extension's
// sign-in dialog is up or signing in, and gives it back. Shell's network indicator
// (js/ui/status/network.js, `Indicator`) prompts from `_syncConnectivity()` when its main
// connection is ACTIVATED and NetworkManager says PORTAL:
//   43-46: it calls org.gnome.Shell.PortalHelper.Authenticate at once (the "Hotspot Login"
//          window) unless the connection's path is in `_connectivityQueue`; while the
//          connection is still activating it empties that queue, so a path put there early
//          would not stay: the held device's `_syncConnectivity()` is skipped instead.
//   47+:   it hands the connection to `_portalHandler.addConnection(name, path)`, which posts
//          "Sign Into Wi–Fi Network" / "Sign in to Network"; `_syncConnectivity()` also sets the
//          icon there, so only addConnection is skipped for the held device.
// Both are instance properties put over the prototype's methods and deleted again, so Shell's
// own code runs unchanged once nothing is held. Releasing asks Shell to look again: it prompts
// exactly as it would have, if NetworkManager still says PORTAL.

import NM from 'gi://NM';

/**
 * @param {object} connection - an NM.ActiveConnection
 * @returns {Array<string>} its devices' D-Bus paths
 */
function devicePaths(connection) {
    // nm_object_get_path() is shadowed by nm_device_get_path() (network.js does the same).
    return (connection?.get_devices() ?? []).map(d => NM.Object.prototype.get_path.call(d));
}

export class PortalPrompts {
    /**
     * @param {function(): ?object} indicator - the glue's networkIndicator()
     */
    constructor(indicator) {
        this._indicator = indicator;
        this._held = new Set();   // device paths
        this._patched = null;     // {indicator, handler}: where the overrides are
    }

    /** Whether the main connection of Shell's indicator is on a held device. */
    _mainIsHeld(indicator) {
        return devicePaths(indicator._mainConnection).some(p => this._held.has(p));
    }

    /**
     * Keeps Shell's prompt away from `devicePath`; closes one Shell already shows for it.
     *
     * @param {string} devicePath - NetworkManager's D-Bus path of the device
     */
    hold(devicePath) {
        const indicator = this._indicator();
        if (!indicator)
            return;
        this._held.add(devicePath);
        if (!this._patched) {
            const handler = indicator._portalHandler ?? null;
            if (handler) {
                const own = handler.addConnection;
                handler.addConnection = (...args) => (this._mainIsHeld(indicator) ? undefined : own.apply(handler, args));
            } else {
                const own = indicator._syncConnectivity;
                // Shell 43-46's is async: a held call answers as a finished one.
                indicator._syncConnectivity = (...args) => (this._mainIsHeld(indicator) ? Promise.resolve() : own.apply(indicator, args));
            }
            this._patched = {indicator, handler};
        }
        if (!this._mainIsHeld(indicator))
            return;
        const path = indicator._mainConnection.get_path();
        if (this._patched.handler)
            this._patched.handler.removeConnection(path);
        else if (indicator._connectivityQueue?.has(path))
            indicator._closeConnectivityCheck(path);
    }

    /**
     * Gives `devicePath` Shell's prompt back: Shell looks again and prompts as it would have
     * (43-46: its window; 47+: its notification). With `open`, the prompt is acted on as its
     * notification's click does (47+: the portal window); 43-46 open the window anyway.
     *
     * Without `resync`, Shell is not asked to look again: for a network being left, Shell's
     * own next look (the connection going) decides, and a look now could still see the old
     * connection ACTIVATED and prompt for a network no longer there.
     *
     * @param {string} devicePath - NetworkManager's D-Bus path of the device
     * @param {boolean} open - open Shell's sign-in window, not only its notification
     * @param {boolean} resync - ask Shell to look again now
     */
    release(devicePath, open = false, resync = true) {
        if (!this._held.delete(devicePath))
            return;
        const patched = this._patched;
        if (this._held.size === 0)
            this._unpatch();
        const indicator = patched?.indicator;
        if (!indicator || !resync)
            return;
        indicator._syncConnectivity();
        const path = indicator._mainConnection?.get_path();
        if (open && patched.handler && path && patched.handler._notifications?.has(path)) {
            // What clicking Shell's notification does, then the notification goes. Where that
            // fails (Shell built without its portal helper and no browser to open the page),
            // Shell's notification stays for the user, as without this extension.
            try {
                patched.handler._onNotificationActivated(path);
            } catch {
                return;
            }
            patched.handler._notifications.get(path)?.destroy();
        }
    }

    /** Whether `devicePath` is held. */
    holds(devicePath) {
        return this._held.has(devicePath);
    }

    /** Gives every device Shell's prompt back. */
    releaseAll() {
        for (const path of [...this._held])
            this.release(path);
        this._unpatch();
    }

    _unpatch() {
        if (!this._patched)
            return;
        const {indicator, handler} = this._patched;
        if (handler)
            delete handler.addConnection;
        else
            delete indicator._syncConnectivity;
        this._patched = null;
    }
}
