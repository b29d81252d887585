// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// The rule for a sign-in page's address before the extension opens it: the same as the daemon's
// and the agent's (Sources/HotspotCore/SignInURL.swift, docs/ARCHITECTURE.md "Hostile networks
// and local users"). An address comes from the network or a helper; opening `smb:`, `file:` or
// `ssh:` would run whatever handler the desktop registers. No Shell, no D-Bus: gjs can run it in
// a test, and every Shell version shares it (an ES module, made legacy for Shell 43 by extension.mk).

const MAXIMUM_BYTES = 2048;

/**
 * Why `url` may not be opened as a sign-in page, or null when it may: http or https, `//`, a host
 * (a DNS name, an IPv4 address or a bracketed IPv6 literal) without user information, an optional
 * port 1-65535, and no white space, control or format character, at most 2048 UTF-8 bytes.
 *
 * @param {string} url - the address (PortalUrl, a sign-in form's portal-url)
 * @returns {string|null} why not, in words for the log; null when it may be opened
 */
export function signInUrlRefusal(url) {
    if (typeof url !== 'string' || url.length === 0)
        return 'it is empty';
    if (new TextEncoder().encode(url).length > MAXIMUM_BYTES)
        return `it is longer than ${MAXIMUM_BYTES} bytes`;
    if (/[\s\p{Cc}\p{Cf}\u2028\u2029]/u.test(url))
        return 'it contains white space, a control or a format character';
    const colon = url.indexOf(':');
    const scheme = colon < 0 ? '' : url.slice(0, colon).toLowerCase();
    if (scheme !== 'http' && scheme !== 'https')
        return 'only http and https addresses are opened';
    const rest = url.slice(colon + 1);
    if (!rest.startsWith('//'))
        return 'it names no host';
    const after = rest.slice(2);
    const end = after.search(/[/?#\\]/);
    const authority = end < 0 ? after : after.slice(0, end);
    if (end >= 0 && after[end] === '\\')
        return 'its host is not a host name or IP address';
    if (authority.includes('@'))
        return "it carries a user name before the host ('user@host')";
    if (authority.length === 0)
        return 'it names no host';
    let host = authority;
    let port = null;
    if (authority.startsWith('[')) {
        const close = authority.indexOf(']');
        if (close < 0)
            return 'its host is not a host name or IP address';
        host = authority.slice(1, close);
        const tail = authority.slice(close + 1);
        if (tail.length > 0) {
            if (!tail.startsWith(':'))
                return 'its host is not a host name or IP address';
            port = tail.slice(1);
        }
        if (!/^[0-9A-Fa-f:.]+$/.test(host) || !host.includes(':'))
            return 'its host is not a host name or IP address';
    } else {
        const c = authority.lastIndexOf(':');
        if (c >= 0) {
            host = authority.slice(0, c);
            port = authority.slice(c + 1);
        }
        if (host.length === 0)
            return 'it names no host';
        if (!isHostName(host))
            return 'its host is not a host name or IP address';
    }
    if (port !== null && (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535))
        return 'its port is not a number from 1 to 65535';
    return null;
}

/**
 * Whether `url` may be opened as a sign-in page (see signInUrlRefusal).
 *
 * @param {string} url - the address
 * @returns {boolean}
 */
export function isSignInUrl(url) {
    return signInUrlRefusal(url) === null;
}

function isHostName(host) {
    const labels = host.split('.');
    if (labels.length > 1 && labels[labels.length - 1] === '')
        labels.pop();
    if (labels.length === 0 || new TextEncoder().encode(host).length > 253)
        return false;
    return labels.every(label => label.length > 0 && new TextEncoder().encode(label).length <= 63 &&
        !label.startsWith('-') && !label.endsWith('-') && /^[\p{L}\p{Nd}\p{Mn}\p{Mc}_-]+$/u.test(label));
}
