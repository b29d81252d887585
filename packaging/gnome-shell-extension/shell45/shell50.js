// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// GNOME Shell 50's private fields where they differ from 45-49 (js/ui/status/network.js read at
// 50.4, run on 50.5): a device item keeps its rows in an ItemSorter (`_itemSorter`, iterable,
// each row's network in `_network`) instead of the `_networkItems` map. Everything else is
// shell45.js's.

import {networkRows as rowsOf} from './shell45.js';

export {whenToggle, wirelessDevices, menuBoxes, childAddedSignal, headerOf, toggleName, setToggleName, watchToggleName,
    networkIndicator, dialogModules} from './shell45.js';

/**
 * The rows of a device item as [network, row] pairs (Shell 50: its _itemSorter).
 *
 * @param {object} deviceItem - from wirelessDevices()
 * @returns {Array<Array<object>>}
 */
export function networkItems(deviceItem) {
    return [...deviceItem._itemSorter].map(row => [row._network, row]);
}

/**
 * A device item's network rows (shell45.js's networkRows, with Shell 50's rows).
 *
 * @param {object} deviceItem - from wirelessDevices()
 * @returns {Array<{ssid: Uint8Array, shellName: string, label: object, network: object, active: boolean}>}
 */
export function networkRows(deviceItem) {
    return rowsOf(deviceItem, networkItems);
}
