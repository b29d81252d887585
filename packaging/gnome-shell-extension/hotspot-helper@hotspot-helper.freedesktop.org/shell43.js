// SPDX-License-Identifier: Apache-2.0
/* exported wirelessToggle, wirelessDevices, networkRows, watchRows, headerOf, watchToggleLabel */
'use strict';

// Every private field of GNOME Shell 43's quick settings this extension touches, and nothing
// else: the Wi-Fi toggle, its device items, their network rows, the menu header. Shell gives no
// public API for these (js/ui/status/network.js, js/ui/quickSettings.js at 43.9), so a Shell
// release that renames one breaks only this file. Another Shell version is another file with
// these six functions (shell44.js…), chosen in extension.js by Config.PACKAGE_VERSION; from 45
// on, Shell loads extensions as ES modules, so extension.js's imports change too, but labels.js
// and daemon.js carry over.

const {NM} = imports.gi;
const Main = imports.ui.main;

/**
 * The quick settings' Wi-Fi toggle, or null while Shell has none.
 *
 * @returns {object|null}
 */
function wirelessToggle() {
    return Main.panel.statusArea.quickSettings?._network?._wirelessToggle ?? null;
}

/**
 * The toggle's Wi-Fi devices: NetworkManager's D-Bus path of each and Shell's item for it.
 *
 * @param {object} toggle - from wirelessToggle()
 * @returns {Array<{devicePath: string, deviceItem: object}>}
 */
function wirelessDevices(toggle) {
    return [...toggle._items.entries()].map(([device, deviceItem]) => ({
        // nm_object_get_path() is shadowed by nm_device_get_path() (network.js does the same).
        devicePath: NM.Object.prototype.get_path.call(device),
        deviceItem,
    }));
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
 * Calls `changed` when a device item or a network row is added to the Wi-Fi menu (Shell builds
 * them as access points come and go). Returns a function that stops watching.
 *
 * @param {object} toggle - from wirelessToggle()
 * @param {function(): void} changed - called after Shell added the row
 * @returns {function(): void}
 */
function watchRows(toggle, changed) {
    const watched = new Map();  // box → handler id
    const watch = box => {
        if (!watched.has(box))
            watched.set(box, box.connect('actor-added', onAdded));
    };
    const onAdded = () => {
        for (const {deviceItem} of wirelessDevices(toggle))
            watch(deviceItem.section.box);
        changed();
    };
    watch(toggle._itemsSection.box);
    onAdded();
    return () => {
        for (const [box, id] of watched)
            box.disconnect(id);
        watched.clear();
    };
}

/**
 * The Wi-Fi menu's header: reads what Shell set, and sets a subtitle.
 *
 * @param {object} toggle - from wirelessToggle()
 * @returns {{subtitle: string, setSubtitle: function(string): void}}
 */
function headerOf(toggle) {
    const {menu} = toggle;
    return {
        get subtitle() {
            return menu._headerSubtitle.text;
        },
        setSubtitle(text) {
            // setHeader() sets the three together; the icon and title are Shell's, kept as they are.
            const icon = menu._headerIcon.gicon ?? menu._headerIcon.icon_name;
            menu.setHeader(icon, menu._headerTitle.text, text);
        },
    };
}

/**
 * Calls `changed` whenever Shell sets the Wi-Fi toggle's label (the connected network's name,
 * from its SSID). Returns a function that stops watching.
 *
 * @param {object} toggle - from wirelessToggle()
 * @param {function(): void} changed - called after Shell set it
 * @returns {function(): void}
 */
function watchToggleLabel(toggle, changed) {
    const id = toggle.connect('notify::label', changed);
    return () => toggle.disconnect(id);
}
