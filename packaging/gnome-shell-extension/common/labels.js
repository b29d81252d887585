// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// What the extension shows, worked out from the daemon's answers alone: no Shell, no D-Bus, so
// gjs can run it in a test and every Shell version shares it. An ES module, the one source for
// Shell 45-50 (copied) and Shell 43 (turned into a legacy gjs module by extension.mk).

/**
 * A map key for an SSID (its bytes in hex): SSIDs are bytes, not text.
 *
 * @param {Uint8Array|number[]} bytes - the SSID
 * @returns {string}
 */
export function ssidKey(bytes) {
    return Array.from(bytes ?? [], b => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The label for each visible network a helper claims: the helper's display name, or
 * "Name (SSID)" when that name would not tell two visible networks apart (two claimed networks
 * with one display name, or a display name that is also another visible network's SSID).
 * Unclaimed networks get no entry and keep Shell's own label.
 *
 * @param {Array<{ssid: Uint8Array, 'display-name': string}>} scanList - GetScanList's answer
 * @param {function(Uint8Array): string} ssidText - how Shell writes an SSID (NM.utils_ssid_to_utf8)
 * @returns {Map<string, string>} ssidKey → label
 */
export function rowLabels(scanList, ssidText) {
    // One entry per SSID: several access points of one network are one row in Shell.
    const networks = new Map();
    for (const entry of scanList) {
        const key = ssidKey(entry.ssid);
        const name = typeof entry['display-name'] === 'string' ? entry['display-name'] : '';
        const known = networks.get(key);
        if (!known)
            networks.set(key, {ssid: ssidText(entry.ssid), name});
        else if (!known.name && name)
            known.name = name;
    }
    const shown = new Map();  // text → how many visible rows would show it
    for (const {ssid, name} of networks.values()) {
        const text = name || ssid;
        shown.set(text, (shown.get(text) ?? 0) + 1);
    }
    const labels = new Map();
    for (const [key, {ssid, name}] of networks) {
        if (!name)
            continue;
        labels.set(key, shown.get(name) > 1 && name !== ssid ? `${name} (${ssid})` : name);
    }
    return labels;
}

/**
 * What the Wi-Fi menu's header says about the daemon's work on the current network, in plain
 * words, or '' for nothing (Shell's own header stays).
 *
 * A helper of the daemon's own (`BuiltIn`: a profile the administrator wrote, a sign-in the user
 * asked to remember, a click-through portal) is not named: its name ("Known Networks",
 * "Portal") says nothing to the user. The network's name a profile gives (`networkName`, its
 * display name in the scan list) is said instead, or "automatically".
 *
 * @param {{State: string, Helper: string, Reason: string, Connectivity: string, BuiltIn: boolean}} status -
 *   an interface's properties (daemon text, shown as plain text only)
 * @param {string} networkName - the display name the scan list gives the current network, or ''
 * @returns {string}
 */
export function subtitleFor(status, networkName = '') {
    const builtIn = status.BuiltIn === true;
    const helper = status.Helper ?? '';
    // Who signs in, as the user reads it: the helper, or for the daemon's own the network.
    const who = builtIn ? (networkName && networkName !== helper ? networkName : '') : helper;
    const reason = status.Reason ?? '';
    const offline = ['none', 'limited', 'portal'].includes(status.Connectivity);
    switch (status.State) {
    case 'evaluating':
        return 'Signing in…';
    case 'authenticating':
        return who ? `Signing in with ${who}…` : 'Signing in…';
    case 'presenting-ui':
        return who ? `${who} needs you to sign in` : 'This network needs you to sign in';
    case 'authenticated':
    case 'maintaining': {
        const signedIn = who ? `Signed in by ${who}` : builtIn ? 'Signed in automatically' : 'Signed in';
        return offline ? `${signedIn}, no internet yet` : signedIn;
    }
    case 'logging-off':
        return 'Signing out…';
    case 'failure':
        return reason ? `Sign-in failed: ${reason}` : 'Sign-in failed';
    default:
        return '';
    }
}
