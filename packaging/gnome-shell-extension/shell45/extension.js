// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// GNOME Shell 45-50's entry point (an ES module): the controller shared with Shell 43
// (controller.js, daemon.js, labels.js: copied from common/ by extension.mk) with the running
// Shell's glue: shell45.js for 45-49, shell50.js for 50. Nothing happens at import or in the
// constructor; disable() undoes everything enable() did.

import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import * as Config from 'resource:///org/gnome/shell/misc/config.js';

import {HotspotHelperController} from './controller.js';
import * as Shell45 from './shell45.js';
import * as Shell50 from './shell50.js';

export default class HotspotHelperExtension extends Extension {
    enable() {
        const major = parseInt(Config.PACKAGE_VERSION, 10);
        this._controller = new HotspotHelperController(major >= 50 ? Shell50 : Shell45);
        this._controller.start();
    }

    disable() {
        this._controller?.stop();
        this._controller = null;
    }
}
