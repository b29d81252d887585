// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// Hotspot Helper in GNOME Shell's Wi-Fi menu: a network a helper claims shows the helper's
// display name instead of its SSID, and the menu's header says what hotspot-helperd is doing
// for the current network. While the daemon is not on the system bus, and once stopped, the
// menu is Shell's own again. Daemon text is set as plain text, never as markup.
//
// Shared by every Shell version: what differs (Shell's private fields) comes in `shell`, the
// glue module of the running Shell (shell43.js, shell45.js, shell50.js), which exports
// whenToggle, wirelessDevices, networkRows, menuBoxes, childAddedSignal, headerOf, toggleName,
// setToggleName, watchToggleName, networkIndicator and dialogModules. Nothing happens before
// start(); stop() undoes everything start() did.
//
// When the daemon publishes a sign-in form the user can fill (an interface's SignInForm, kind
// "form"), the sign-in dialog (signInDialog.js) asks for it, and Shell's own portal prompt is
// kept away from that device (portalPrompts.js) while the dialog is up, signing in, or the
// network it signed into is in use. Cancel, Open in browser, and a page that needs a browser
// give Shell's prompt back.

import Gio from 'gi://Gio';
import NM from 'gi://NM';

import {HotspotDaemon} from './daemon.js';
import {ssidKey, rowLabels, subtitleFor} from './labels.js';
import {PortalPrompts} from './portalPrompts.js';
import {SignInDialog} from './signInDialog.js';
import {formFrom, formKey, resultText, signInValues} from './signInForm.js';

// Longest text this extension puts on a row or the header: names and reasons come from helpers
// and networks, so they are bounded as well as plain.
const MAX_TEXT = 120;

/**
 * `text` cut to MAX_TEXT characters (an ellipsis marks the cut), on one line.
 *
 * @param {string} text - untrusted text
 * @returns {string}
 */
function bounded(text) {
    const line = String(text).replace(/[\r\n\t]+/g, ' ');
    const chars = [...line];
    return chars.length > MAX_TEXT ? `${chars.slice(0, MAX_TEXT - 1).join('')}…` : line;
}

export class HotspotHelperController {
    /**
     * @param {object} shell - the running Shell's glue module
     */
    constructor(shell) {
        this._shell = shell;
    }

    start() {
        this._relabelled = new Map();  // St.Label → {network, id, destroyId, text}: rows showing a display name
        this._subtitle = null;          // the subtitle this extension set, if any
        this._shellSubtitle = '';       // Shell's subtitle before it
        this._activeName = null;        // {ssid: Shell's name, text: ours} of the connected network
        this._toggle = null;
        this._stopWatchingRows = null;
        this._stopWatchingToggle = null;
        // Shell 45+ makes its network indicator asynchronously: the toggle may come after start().
        this._stopWaiting = this._shell.whenToggle(toggle => this._setToggle(toggle));
        this._prompts = new PortalPrompts(() => this._shell.networkIndicator());
        this._signIns = new Map();      // interface path → {device, form, dialog, signing, signedIn, dismissed}
        this._titles = new Map();       // device path → the connected network's name as its row shows it
        this._displayNames = new Map(); // device path → the connected network's display name (a helper's label)
        this._daemon = new HotspotDaemon(() => this._sync());
        this._daemon.start();
    }

    stop() {
        // Turned off with a dialog up: Shell's own prompt is back at once.
        for (const path of [...(this._signIns?.keys() ?? [])])
            this._endSignIn(path, true);
        this._prompts?.releaseAll();
        this._prompts = null;
        this._stopWaiting?.();
        this._stopWaiting = null;
        this._daemon?.stop();
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

    _setToggle(toggle) {
        this._toggle = toggle;
        this._stopWatchingRows = this._watchRows(toggle);
        // Shell renames the toggle when the connected network changes: which row is active is
        // read again then (no loop: once the name is ours, nothing is set).
        this._stopWatchingToggle = this._shell.watchToggleName(toggle, () => this._sync());
    }

    /**
     * Syncs when Shell adds a device item or a network row to the Wi-Fi menu (it builds them as
     * devices and access points come and go). Returns a function that stops watching.
     *
     * @param {object} toggle - from whenToggle()
     * @returns {function(): void}
     */
    _watchRows(toggle) {
        const signal = this._shell.childAddedSignal();
        const watched = new Map();  // box → [handler ids]: live boxes only
        const onAdded = () => {
            for (const box of this._shell.menuBoxes(toggle)) {
                if (watched.has(box))
                    continue;
                // Shell destroys a device's box when the device goes: its handlers go with it,
                // and are not disconnected again later.
                watched.set(box, [
                    box.connect(signal, onAdded),
                    box.connect('destroy', () => watched.delete(box)),
                ]);
            }
            this._sync();
        };
        onAdded();
        return () => {
            for (const [box, ids] of watched)
                ids.forEach(id => box.disconnect(id));
            watched.clear();
        };
    }

    _sync() {
        if (!this._toggle || !this._daemon)
            return;
        const interfaces = this._daemon.interfaces;
        const kept = new Set();
        let activeName = null;
        this._titles.clear();
        this._displayNames.clear();
        for (const {devicePath, deviceItem} of this._shell.wirelessDevices(this._toggle)) {
            const iface = interfaces.find(i => i.device === devicePath);
            if (!iface)
                continue;
            const labels = rowLabels(iface.scanList, ssid => NM.utils_ssid_to_utf8(ssid));
            for (const row of this._shell.networkRows(deviceItem)) {
                const label = labels.get(ssidKey(row.ssid));
                if (row.active) {
                    this._titles.set(devicePath, bounded(label ?? row.shellName ?? ''));
                    if (label)
                        this._displayNames.set(devicePath, label);
                }
                if (!label)
                    continue;
                const text = bounded(label);
                this._relabel(row, text);
                kept.add(row.label);
                if (row.active)
                    activeName = {ssid: row.shellName, text};
            }
        }
        this._restore(kept);
        this._setActiveName(activeName);
        // The network being joined or used: the interface the daemon is working on; else one
        // whose sign-in failed (and so was left), until the next join.
        const current = interfaces.find(i => i.status.State && i.status.State !== 'inactive');
        const failed = interfaces.find(i => i.failed);
        if (current)
            this._setSubtitle(bounded(subtitleFor(current.status, this._displayNames.get(current.device) ?? '')));
        else if (failed)
            this._setSubtitle(bounded(subtitleFor({...failed.status, State: 'failure'})));
        else
            this._setSubtitle('');
        this._syncSignIns(interfaces);
    }

    /** Opens, updates or ends the sign-in dialog of each interface as its SignInForm says. */
    _syncSignIns(interfaces) {
        for (const path of [...this._signIns.keys()]) {
            if (!interfaces.some(i => i.path === path))
                this._endSignIn(path, true);
        }
        for (const iface of interfaces) {
            const form = formFrom(iface.signInForm);
            let s = this._signIns.get(iface.path);
            if (!form) {
                if (!s)
                    continue;
                if (s.dialog && !s.signing) {
                    s.dialog.close();
                    s.dialog = null;
                }
                // Shell's prompt stays away while the network the dialog signed into is in use
                // (NetworkManager's check may say PORTAL a little longer); a page that needs a
                // browser, or a network left, gives it back.
                const inUse = ['evaluating', 'authenticating', 'authenticated', 'maintaining'].includes(iface.status.State);
                const browser = iface.signInForm?.kind === 'browser';
                if (s.signing || (s.signedIn && inUse && !browser))
                    continue;
                // A page that needs a browser: Shell's prompt now. A network left (or signed in
                // and then left): Shell's own look at the connection going decides.
                this._endSignIn(iface.path, browser);
                continue;
            }
            if (!s) {
                s = {device: iface.device, form: null, dialog: null, signing: false, signedIn: false, dismissed: null};
                this._signIns.set(iface.path, s);
            }
            // The user chose Shell's prompt for this form: not asked again until the page changes.
            if (s.dismissed === formKey(form))
                continue;
            if (!s.dialog) {
                this._openSignIn(iface.path, s, form);
            } else if (!s.signing && formKey(form) !== formKey(s.form)) {
                s.form = form;
                s.dialog.setForm(form);
            } else if (!s.signing && form.message !== s.form.message) {
                s.form = form;
                s.dialog.showMessage(form.message ? resultText('rejected', form.message) : '');
            }
            s.dialog?.setTitle(this._title(s.device));
        }
    }

    _title(devicePath) {
        return this._titles.get(devicePath) || (this._toggle ? this._shell.toggleName(this._toggle) : '') || 'Wi-Fi network';
    }

    _openSignIn(path, s, form) {
        s.form = form;
        s.signedIn = false;
        this._prompts.hold(s.device);
        const dialog = new SignInDialog(this._shell.dialogModules(), {
            signIn: (values, remember) => this._signIn(path, s, values, remember),
            cancel: () => this._dismiss(path, s, false),
            browser: () => this._dismiss(path, s, true),
        });
        s.dialog = dialog;
        if (!dialog.open(this._title(s.device), form)) {
            // Another modal holds the keyboard: Shell's own prompt, as without this extension.
            s.dialog = null;
            this._dismiss(path, s, false);
        }
    }

    /** Cancel, Open in browser or a page that needs one: Shell's prompt is back for this form. */
    _dismiss(path, s, openBrowser) {
        if (this._signIns.get(path) !== s)
            return;
        s.dismissed = s.form ? formKey(s.form) : null;
        const dialog = s.dialog;
        s.dialog = null;
        dialog?.close();
        this._prompts.release(s.device, openBrowser);
    }

    /** Ends the sign-in on `path`: its dialog closes; `resync` asks Shell to prompt now. */
    _endSignIn(path, resync) {
        const s = this._signIns.get(path);
        if (!s)
            return;
        this._signIns.delete(path);
        const dialog = s.dialog;
        s.dialog = null;
        dialog?.close();
        this._prompts?.release(s.device, false, resync);
    }

    async _signIn(path, s, values, remember) {
        const daemon = this._daemon;
        const form = s.form;
        s.signing = true;
        s.dialog?.setBusy(true);
        let result, message;
        try {
            // allow-plain-http only for a form whose dialog said it sends in plain http: the user
            // accepted that by pressing Sign in there.
            [result, message] = await daemon.signIn(path, signInValues(form, values), {remember, allowPlainHttp: form.plainHttp});
        } catch (e) {
            if (e.matches?.(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                return;
            result = 'error';
            message = e.message;
        }
        s.signing = false;
        if (this._signIns.get(path) !== s || this._daemon !== daemon)
            return;
        const iface = daemon.interfaces.find(i => i.path === path);
        switch (result) {
        case 'signed-in':
            s.signedIn = true;
            s.dialog?.close();
            s.dialog = null;
            break;
        case 'needs-browser':
            this._dismiss(path, s, false);
            break;
        case 'form-changed': {
            const changed = formFrom(iface?.signInForm);
            if (!changed) {
                this._dismiss(path, s, false);
                break;
            }
            s.form = changed;
            s.dialog?.setBusy(false);
            s.dialog?.setForm(changed);
            s.dialog?.showMessage(resultText(result, message));
            break;
        }
        default:
            s.dialog?.setBusy(false);
            s.dialog?.showMessage(resultText(result, message));
        }
        this._sync();
    }

    /** Shows `text` on a row, and again whenever Shell rewrites the row's name. */
    _relabel(row, text) {
        let entry = this._relabelled.get(row.label);
        if (!entry) {
            const {label, network} = row;
            // Shell binds the label to the network's name: a new name (rare: the first access
            // point of a network) would bring the SSID back, so this handler runs after the binding.
            const id = network.connect('notify::name', () => {
                const e = this._relabelled.get(label);
                if (e)
                    label.text = e.text;
            });
            // Shell destroys a row when its network goes: both handlers go with it.
            const destroyId = label.connect('destroy', () => this._forget(label));
            entry = {network, id, destroyId, text};
            this._relabelled.set(label, entry);
        }
        entry.text = text;
        if (row.label.text !== text)
            row.label.text = text;
    }

    /** Disconnects what _relabel() connected for `label`; returns its entry. */
    _forget(label) {
        const entry = this._relabelled.get(label);
        if (!entry)
            return null;
        this._relabelled.delete(label);
        entry.network.disconnect(entry.id);
        label.disconnect(entry.destroyId);
        return entry;
    }

    /** The quick settings toggle names the connected network as its row does. */
    _setActiveName(name) {
        const previous = this._activeName;
        this._activeName = name;
        if (this._toggle && previous && this._shell.toggleName(this._toggle) === previous.text && previous.text !== name?.text)
            this._shell.setToggleName(this._toggle, previous.ssid);
        if (this._toggle && name && this._shell.toggleName(this._toggle) === name.ssid)
            this._shell.setToggleName(this._toggle, name.text);
    }

    /** Gives every relabelled row not in `kept` Shell's own label back. */
    _restore(kept) {
        for (const label of [...this._relabelled.keys()]) {
            if (kept.has(label))
                continue;
            const entry = this._forget(label);
            label.text = entry.network.name;
        }
    }

    _setSubtitle(text) {
        if (!this._toggle)
            return;
        const header = this._shell.headerOf(this._toggle);
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
