// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later
/* exported init */
'use strict';

// GNOME Shell 43's entry point (a legacy gjs module): the controller shared with Shell 45-50
// (controller.js, daemon.js, labels.js: generated from common/ by extension.mk) with Shell 43's
// glue. Nothing happens before enable(); disable() undoes everything.

const Me = imports.misc.extensionUtils.getCurrentExtension();

class HotspotHelperExtension {
    enable() {
        this._controller = new Me.imports.controller.HotspotHelperController(Me.imports.shell43);
        this._controller.start();
    }

    disable() {
        this._controller?.stop();
        this._controller = null;
    }
}

/**
 * @returns {HotspotHelperExtension}
 */
function init() {
    return new HotspotHelperExtension();
}
