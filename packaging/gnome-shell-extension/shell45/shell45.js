// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// Every private field of GNOME Shell 45-49's quick settings this extension touches, and nothing
// else (js/ui/status/network.js, js/ui/quickSettings.js, js/ui/panel.js; read at 46.10, 47.10,
// 48.8, 49.9 and run on 48.7): the Wi-Fi toggle, its device items, their network rows, the menu
// header. The same functions as shell43.js; shell50.js changes what Shell 50 changed.
// What changed since 43: the network indicator is made asynchronously (panel.js
// _setupIndicators), so the toggle may come after enable(); the toggle's `label` is `title`
// ("Wi-Fi") and `subtitle` (the connected network) since 44; `actor-added` is `child-added`
// since 46.

import Clutter from 'gi://Clutter';
import GObject from 'gi://GObject';
import * as CheckBox from 'resource:///org/gnome/shell/ui/checkBox.js';
import * as Dialog from 'resource:///org/gnome/shell/ui/dialog.js';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as ModalDialog from 'resource:///org/gnome/shell/ui/modalDialog.js';
import * as ShellEntry from 'resource:///org/gnome/shell/ui/shellEntry.js';

// The functions every Shell shares (common/wifiMenu.js), handed on as this module's own.
export {wirelessDevices, menuBoxes, headerOf} from './wifiMenu.js';

function quickSettingsToggle() {
    return Main.panel.statusArea.quickSettings?._network?._wirelessToggle ?? null;
}

/**
 * Calls `ready` once with the quick settings' Wi-Fi toggle: now, or when Shell has made its
 * network indicator (added to the quick settings' indicators then). Returns a function that
 * stops waiting.
 *
 * @param {function(object): void} ready - called once with the toggle
 * @returns {function(): void}
 */
export function whenToggle(ready) {
    const toggle = quickSettingsToggle();
    if (toggle) {
        ready(toggle);
        return () => {};
    }
    const indicators = Main.panel.statusArea.quickSettings?._indicators;
    if (!indicators)
        return () => {};
    let id = indicators.connect(childAdded(), () => {
        const t = quickSettingsToggle();
        if (!t)
            return;
        indicators.disconnect(id);
        id = 0;
        ready(t);
    });
    return () => {
        if (id)
            indicators.disconnect(id);
        id = 0;
    };
}

/** The signal a child's addition emits: `child-added` from 46, `actor-added` in 45. */
function childAdded() {
    return GObject.signal_lookup('child-added', Clutter.Actor) ? 'child-added' : 'actor-added';
}

/**
 * The rows of a device item as [network, row] pairs (Shell 45-49: its _networkItems map).
 *
 * @param {object} deviceItem - from wirelessDevices()
 * @returns {Array<Array<object>>}
 */
export function networkItems(deviceItem) {
    return [...deviceItem._networkItems.entries()];
}

/**
 * A device item's network rows: the SSID, Shell's own label text for it, the St.Label, and
 * whether the device is connected to it.
 *
 * @param {object} deviceItem - from wirelessDevices()
 * @param {function(object): Array<Array<object>>} items - how to reach the rows (networkItems)
 * @returns {Array<{ssid: Uint8Array, shellName: string, label: object, network: object, active: boolean}>}
 */
export function networkRows(deviceItem, items = networkItems) {
    return items(deviceItem)
        .filter(([network, row]) => network?._ssid && row?._label)
        .map(([network, row]) => ({
            ssid: network._ssid.get_data(),
            shellName: network.name,
            label: row._label,
            network,
            active: network.is_active,
        }));
}

/**
 * The signal a child's addition emits: `child-added` from 46, `actor-added` in 45.
 *
 * @returns {string}
 */
export function childAddedSignal() {
    return childAdded();
}

/**
 * The connected network's name on the Wi-Fi toggle: its subtitle (the title says "Wi-Fi").
 *
 * @param {object} toggle - from whenToggle()
 * @returns {string}
 */
export function toggleName(toggle) {
    return toggle.subtitle ?? '';
}

/**
 * @param {object} toggle - from whenToggle()
 * @param {string} text - plain text
 */
export function setToggleName(toggle, text) {
    toggle.subtitle = text;
}

/**
 * Calls `changed` whenever Shell sets the Wi-Fi toggle's name. Returns a function that stops
 * watching.
 *
 * @param {object} toggle - from whenToggle()
 * @param {function(): void} changed - called after Shell set it
 * @returns {function(): void}
 */
export function watchToggleName(toggle, changed) {
    const id = toggle.connect('notify::subtitle', changed);
    return () => toggle.disconnect(id);
}

/**
 * Shell's network indicator, which prompts for captive portals (45-46: `_syncConnectivity`,
 * `_connectivityQueue`; 47+: `_portalHandler`), or null until Shell made it.
 *
 * @returns {?object}
 */
export function networkIndicator() {
    return Main.panel.statusArea.quickSettings?._network ?? null;
}

/**
 * The Shell modules the sign-in dialog is built of.
 *
 * @returns {{ModalDialog: object, Dialog: object, CheckBox: object, ShellEntry: object}}
 */
export function dialogModules() {
    return {ModalDialog, Dialog, CheckBox, ShellEntry};
}
