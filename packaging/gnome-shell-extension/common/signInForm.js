// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// The portal's sign-in form as the daemon publishes it (an interface's SignInForm property), and
// everything the sign-in dialog says about it, worked out without Shell or D-Bus so that every
// Shell version shares it and gjs can run it in a test. Every string in a form comes from the
// network: it is bounded here and only ever shown as plain text.

import {isSignInUrl} from './urls.js';

const MAX_LABEL = 200;
const MAX_MESSAGE = 300;
const MAX_FIELDS = 32;
const MAX_OPTIONS = 64;
const TEXT_KINDS = ['text', 'email', 'number', 'tel', 'password'];

/**
 * `value` as a string of at most `max` characters (an ellipsis marks a cut); '' for a non-string.
 *
 * @param {*} value - untrusted
 * @param {number} max - characters kept
 * @returns {string}
 */
export function boundedText(value, max) {
    if (typeof value !== 'string')
        return '';
    const chars = [...value.replace(/[\u0000-\u001f\u007f]+/g, ' ')];
    return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/**
 * The form in a SignInForm property (recursively unpacked), or null when it is not one the user
 * can fill here (empty, "browser", no usable field).
 *
 * @param {object} property - SignInForm, unpacked
 * @returns {?{kind: string, portalUrl: string, actionHost: string, plainHttp: boolean,
 *   message: string, remembered: boolean, fields: Array<object>}}
 */
export function formFrom(property) {
    if (!property || property.kind !== 'form' || !Array.isArray(property.fields))
        return null;
    const fields = [];
    for (const f of property.fields.slice(0, MAX_FIELDS)) {
        if (!f || typeof f.name !== 'string' || !f.name)
            continue;
        const kind = [...TEXT_KINDS, 'checkbox', 'select'].includes(f.kind) ? f.kind : 'text';
        const field = {
            name: f.name,
            kind,
            label: boundedText(f.label, MAX_LABEL) || boundedText(f.name, MAX_LABEL),
            required: f.required === true,
            value: kind === 'password' ? '' : boundedText(f.value, MAX_LABEL),
        };
        if (kind === 'checkbox') {
            field.terms = boundedText(f.terms, MAX_MESSAGE);
            field.termsUrl = /^https?:\/\//.test(f['terms-url'] ?? '') ? boundedText(f['terms-url'], MAX_MESSAGE) : '';
        }
        if (kind === 'select') {
            field.options = (Array.isArray(f.options) ? f.options : []).slice(0, MAX_OPTIONS)
                .filter(o => Array.isArray(o) && typeof o[0] === 'string')
                .map(([value, label]) => ({value, label: boundedText(label, MAX_LABEL) || boundedText(value, MAX_LABEL)}));
            if (field.options.length === 0)
                continue;
            if (!field.options.some(o => o.value === field.value))
                field.value = field.options[0].value;
        }
        fields.push(field);
    }
    if (fields.length === 0)
        return null;
    return {
        kind: 'form',
        // From the network: kept only when it is an address the extension would open.
        portalUrl: isSignInUrl(property['portal-url']) ? property['portal-url'] : '',
        actionHost: boundedText(property['action-host'], MAX_LABEL),
        plainHttp: property['plain-http'] === true,
        message: boundedText(property.message, MAX_MESSAGE),
        remembered: property.remembered === true,
        fields,
    };
}

/**
 * A key that changes when the form asks for something else (its fields or where it posts), not
 * when only its message does.
 *
 * @param {object} form - from formFrom()
 * @returns {string}
 */
export function formKey(form) {
    return JSON.stringify([form.actionHost, form.plainHttp, form.fields.map(f => [f.name, f.kind, f.label])]);
}

/**
 * What the dialog says under the network's name.
 *
 * @param {object} form - from formFrom()
 * @returns {string}
 */
export function descriptionFor(form) {
    const host = form.actionHost || 'the network';
    let text = `This network's sign-in page asks for the details below. Signing in sends them to ${host}.`;
    if (form.remembered)
        text += ' The details remembered for this network were not accepted: check them.';
    if (form.plainHttp) {
        text += ` This page sends what you type unencrypted (plain http): others on this network can read it. ` +
            'By pressing Sign in you accept sending it so; to avoid it, press Cancel or Open in browser.';
    }
    return text;
}

/**
 * The required fields the user has not filled, by label.
 *
 * @param {object} form - from formFrom()
 * @param {Map<string, string|boolean>} values - field name → what the user entered
 * @returns {Array<string>}
 */
export function missingFields(form, values) {
    return form.fields
        .filter(f => f.required && (f.kind === 'checkbox' ? values.get(f.name) !== true : !values.get(f.name)))
        .map(f => f.label);
}

/**
 * SignIn's `values` argument as plain JavaScript: checkboxes as booleans, everything else as
 * strings ({name: ['b'|'s', value]}), so the caller builds the variants.
 *
 * @param {object} form - from formFrom()
 * @param {Map<string, string|boolean>} values - field name → what the user entered
 * @returns {Object<string, Array>}
 */
export function signInValues(form, values) {
    const out = {};
    for (const f of form.fields) {
        if (f.kind === 'checkbox')
            out[f.name] = ['b', values.get(f.name) === true];
        else
            out[f.name] = ['s', String(values.get(f.name) ?? (f.kind === 'select' ? f.value : ''))];
    }
    return out;
}

/**
 * What the dialog says after SignIn answered `result` (with the daemon's `message`), or '' when
 * it closes.
 *
 * @param {string} result - signed-in, rejected, needs-browser, form-changed
 * @param {string} message - the portal's or the daemon's words
 * @returns {string}
 */
export function resultText(result, message) {
    const said = boundedText(message, MAX_MESSAGE);
    switch (result) {
    case 'signed-in':
    case 'needs-browser':
        return '';
    case 'rejected':
        return said ? `The network did not accept these details: ${said}` : 'The network did not accept these details. Check them and try again.';
    case 'form-changed':
        return 'The sign-in page has changed: check the details and sign in again.';
    default:
        return said ? `Could not sign in: ${said}` : 'Could not sign in.';
    }
}
