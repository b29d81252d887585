// SPDX-License-Identifier: Apache-2.0
/* exported init */
'use strict';

// Hotspot Helper in GNOME Shell's Wi-Fi menu: a network a helper claims shows the helper's
// display name instead of its SSID, and the menu's header says what hotspot-helperd is doing
// for the current network. While the daemon is not on the system bus, and once disabled, the
// menu is Shell's own again. Daemon text is set as plain text, never as markup.

const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();
const {NM} = imports.gi;

const {HotspotDaemon} = Me.imports.daemon;
const {ssidKey, rowLabels, subtitleFor} = Me.imports.labels;
// The one Shell-version-specific file (see its header).
const Shell = Me.imports.shell43;

class HotspotHelperExtension {
    enable() {
        this._relabelled = new Map();  // St.Label → {network, id}: rows showing a display name
        this._subtitle = null;          // the subtitle this extension set, if any
        this._shellSubtitle = '';       // Shell's subtitle before it
        this._toggle = Shell.wirelessToggle();
        this._activeName = null;        // {ssid: Shell's label, text: ours} of the connected network
        this._stopWatchingRows = this._toggle ? Shell.watchRows(this._toggle, () => this._sync()) : null;
        // Shell renames the toggle when the connected network changes: which row is active is
        // read again then (no loop: once the label is ours, nothing is set).
        this._stopWatchingToggle = this._toggle ? Shell.watchToggleLabel(this._toggle, () => this._sync()) : null;
        this._daemon = new HotspotDaemon(() => this._sync());
        this._daemon.start();
    }

    disable() {
        this._daemon.stop();
        this._daemon = null;
        this._stopWatchingRows?.();
        this._stopWatchingRows = null;
        this._stopWatchingToggle?.();
        this._stopWatchingToggle = null;
        this._restore(new Set());
        this._setActiveName(null);
        this._setSubtitle('');
        this._toggle = null;
    }

    _sync() {
        if (!this._toggle || !this._daemon)
            return;
        const interfaces = this._daemon.interfaces;
        const kept = new Set();
        let activeName = null;
        for (const {devicePath, deviceItem} of Shell.wirelessDevices(this._toggle)) {
            const iface = interfaces.find(i => i.device === devicePath);
            if (!iface)
                continue;
            const labels = rowLabels(iface.scanList, ssid => NM.utils_ssid_to_utf8(ssid));
            for (const row of Shell.networkRows(deviceItem)) {
                const label = labels.get(ssidKey(row.ssid));
                if (!label)
                    continue;
                this._relabel(row, label);
                kept.add(row.label);
                if (row.active)
                    activeName = {ssid: row.shellName, text: label};
            }
        }
        this._restore(kept);
        this._setActiveName(activeName);
        // The network being joined or used: the interface the daemon is working on; else one
        // whose sign-in failed (and so was left), until the next join.
        const current = interfaces.find(i => i.status.State && i.status.State !== 'inactive');
        const failed = interfaces.find(i => i.failed);
        if (current)
            this._setSubtitle(subtitleFor(current.status));
        else if (failed)
            this._setSubtitle(subtitleFor({...failed.status, State: 'failure'}));
        else
            this._setSubtitle('');
    }

    /** Shows `text` on a row, and again whenever Shell rewrites the row's name. */
    _relabel(row, text) {
        let entry = this._relabelled.get(row.label);
        if (!entry) {
            // Shell binds the label to the network's name: a new name (rare: the first access
            // point of a network) would bring the SSID back, so this handler runs after the binding.
            const id = row.network.connect('notify::name', () => {
                const e = this._relabelled.get(row.label);
                if (e)
                    row.label.text = e.text;
            });
            const destroyId = row.label.connect('destroy', () => this._relabelled.delete(row.label));
            entry = {network: row.network, id, destroyId, text};
            this._relabelled.set(row.label, entry);
        }
        entry.text = text;
        if (row.label.text !== text)
            row.label.text = text;
    }

    /** The quick settings toggle names the connected network as its row does. */
    _setActiveName(name) {
        const previous = this._activeName;
        this._activeName = name;
        if (previous && this._toggle?.label === previous.text && previous.text !== name?.text)
            this._toggle.label = previous.ssid;
        this._syncToggleLabel();
    }

    _syncToggleLabel() {
        const name = this._activeName;
        if (name && this._toggle?.label === name.ssid)
            this._toggle.label = name.text;
    }

    /** Gives every relabelled row not in `kept` Shell's own label back. */
    _restore(kept) {
        for (const [label, entry] of this._relabelled) {
            if (kept.has(label))
                continue;
            entry.network.disconnect(entry.id);
            label.disconnect(entry.destroyId);
            this._relabelled.delete(label);
            label.text = entry.network.name;
        }
    }

    _setSubtitle(text) {
        if (!this._toggle)
            return;
        const header = Shell.headerOf(this._toggle);
        if (text) {
            if (this._subtitle === null)
                this._shellSubtitle = header.subtitle;
            if (header.subtitle !== text)
                header.setSubtitle(text);
            this._subtitle = text;
        } else if (this._subtitle !== null) {
            // Shell's own subtitle back, unless Shell changed it since.
            if (header.subtitle === this._subtitle)
                header.setSubtitle(this._shellSubtitle);
            this._subtitle = null;
        }
    }
}

/**
 * @returns {HotspotHelperExtension}
 */
function init() {
    return new HotspotHelperExtension();
}
