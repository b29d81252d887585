// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later
/* exported whenToggle, wirelessDevices, networkRows, menuBoxes, childAddedSignal, headerOf, toggleName, setToggleName, watchToggleName, networkIndicator, dialogModules */
'use strict';

// Every private field of GNOME Shell 43's quick settings this extension touches, and nothing
// else: the Wi-Fi toggle, its device items, their network rows, the menu header. Shell gives no
// public API for these (js/ui/status/network.js, js/ui/quickSettings.js at 43.9), so a Shell
// release that renames one breaks only this file. Shell 45-49 have shell45.js, 50 shell50.js,
// with the same functions (ES modules); controller.js, daemon.js, labels.js and wifiMenu.js
// (the functions alike in every Shell) are shared.

const Main = imports.ui.main;
// The functions Shell 43 and 45-50 share (common/wifiMenu.js), handed on as this module's own.
var {wirelessDevices, menuBoxes, headerOf} = imports.misc.extensionUtils.getCurrentExtension().imports.wifiMenu;

/**
 * Calls `ready` with the quick settings' Wi-Fi toggle (Shell 43 makes it with the panel, before
 * any extension is enabled; none without NetworkManager). Returns a function that stops waiting.
 *
 * @param {function(object): void} ready - called once with the toggle
 * @returns {function(): void}
 */
function whenToggle(ready) {
    const toggle = Main.panel.statusArea.quickSettings?._network?._wirelessToggle ?? null;
    if (toggle)
        ready(toggle);
    return () => {};
}

/**
 * A device item's network rows: the SSID, Shell's own label text for it, the St.Label, and
 * whether the device is connected to it.
 *
 * @param {object} deviceItem - from wirelessDevices()
 * @returns {Array<{ssid: Uint8Array, shellName: string, label: object, network: object, active: boolean}>}
 */
function networkRows(deviceItem) {
    return [...deviceItem._networkItems.entries()]
        .filter(([network]) => network._ssid)
        .map(([network, row]) => ({
            ssid: network._ssid.get_data(),
            shellName: network.name,
            label: row._label,
            network,
            active: network.is_active,
        }));
}

/**
 * The signal a child's addition emits (Shell 43: Clutter's `actor-added`).
 *
 * @returns {string}
 */
function childAddedSignal() {
    return 'actor-added';
}

/**
 * The connected network's name on the Wi-Fi toggle (Shell sets it from the SSID): its label.
 *
 * @param {object} toggle - from whenToggle()
 * @returns {string}
 */
function toggleName(toggle) {
    return toggle.label;
}

/**
 * @param {object} toggle - from whenToggle()
 * @param {string} text - plain text
 */
function setToggleName(toggle, text) {
    toggle.label = text;
}

/**
 * Calls `changed` whenever Shell sets the Wi-Fi toggle's name. Returns a function that stops
 * watching.
 *
 * @param {object} toggle - from whenToggle()
 * @param {function(): void} changed - called after Shell set it
 * @returns {function(): void}
 */
function watchToggleName(toggle, changed) {
    const id = toggle.connect('notify::label', changed);
    return () => toggle.disconnect(id);
}

/**
 * Shell's network indicator, which prompts for captive portals (`_syncConnectivity`,
 * `_connectivityQueue`), or null without NetworkManager.
 *
 * @returns {?object}
 */
function networkIndicator() {
    return Main.panel.statusArea.quickSettings?._network ?? null;
}

/**
 * The Shell modules the sign-in dialog is built of, as Shell 43 names them.
 *
 * @returns {{ModalDialog: object, Dialog: object, CheckBox: object, ShellEntry: object}}
 */
function dialogModules() {
    return {
        ModalDialog: imports.ui.modalDialog,
        Dialog: imports.ui.dialog,
        CheckBox: imports.ui.checkBox,
        ShellEntry: imports.ui.shellEntry,
    };
}
