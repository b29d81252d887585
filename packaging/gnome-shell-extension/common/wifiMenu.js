// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// The private fields of Shell's Wi-Fi quick settings that Shell 43 and 45-50 keep alike: the
// toggle's device items (`_items`), the boxes the menu's rows go in (`_itemsSection`, each
// item's `section`) and the menu's header (`setHeader` and its `_header*` actors). shell43.js and
// shell45.js hand these on as their own, beside what differs between Shells. An ES module, made
// legacy for Shell 43 by extension.mk.

import NM from 'gi://NM';

/**
 * The toggle's Wi-Fi devices: NetworkManager's D-Bus path of each and Shell's item for it.
 *
 * @param {object} toggle - from whenToggle()
 * @returns {Array<{devicePath: string, deviceItem: object}>}
 */
export function wirelessDevices(toggle) {
    return [...toggle._items.entries()].map(([device, deviceItem]) => ({
        // nm_object_get_path() is shadowed by nm_device_get_path() (network.js does the same).
        devicePath: NM.Object.prototype.get_path.call(device),
        deviceItem,
    }));
}

/**
 * The boxes Shell adds the Wi-Fi menu's device items and network rows to: the toggle's, then
 * each device item's.
 *
 * @param {object} toggle - from whenToggle()
 * @returns {Array<object>}
 */
export function menuBoxes(toggle) {
    return [toggle._itemsSection.box, ...wirelessDevices(toggle).map(({deviceItem}) => deviceItem.section.box)];
}

/**
 * The Wi-Fi menu's header: reads what Shell set, and sets a subtitle (Shell 45-50 set none).
 *
 * @param {object} toggle - from whenToggle()
 * @returns {{subtitle: string, setSubtitle: function(string): void}}
 */
export function headerOf(toggle) {
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
