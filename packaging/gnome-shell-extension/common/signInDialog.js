// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later

// The sign-in dialog: the portal's form as Shell shows its own Wi-Fi password dialog
// (js/ui/components/networkAgent.js, NetworkSecretDialog): a ModalDialog with the
// 'prompt-dialog' style, a MessageDialogContent with the network's name and what the page asks,
// an St.Entry per field (St.PasswordEntry for a password), a check box for terms, a button that
// cycles a select's options, "Remember for this network", and Open in browser, Cancel and Sign in.
// Shell's dialog modules come from the running Shell's glue (`ui`: ModalDialog, Dialog,
// CheckBox, ShellEntry), so one file serves Shell 43 and 45-50. Every text from the network is
// set as plain text (`.text`, never markup). Nothing here talks to D-Bus: the controller does.

import Clutter from 'gi://Clutter';
import Pango from 'gi://Pango';
import St from 'gi://St';

import {descriptionFor, missingFields} from './signInForm.js';

export class SignInDialog {
    /**
     * @param {object} ui - the glue's dialogModules()
     * @param {object} callbacks - signIn(values: Map, remember: boolean), cancel(), browser()
     */
    constructor(ui, callbacks) {
        this._ui = ui;
        this._callbacks = callbacks;
        this._dialog = null;
        this._form = null;
        this._fieldActors = [];
        this._values = new Map();  // field name → what the user entered
        this._busy = false;
    }

    /**
     * Opens the dialog for `form` titled `title` (the network's name). Returns false when Shell
     * could not give it the keyboard (another modal has it).
     *
     * @param {string} title - plain text
     * @param {object} form - from formFrom()
     * @returns {boolean}
     */
    open(title, form) {
        const {ModalDialog, Dialog, CheckBox} = this._ui;
        this._dialog = new ModalDialog.ModalDialog({styleClass: 'prompt-dialog'});
        this._dialog.add_style_class_name('hotspot-helper-sign-in');
        // Wider than Shell's 28em prompt (set on the box holding the content and the buttons):
        // three buttons, "Open in browser" among them, uncut.
        this._dialog.contentLayout.get_parent().style = 'width: 34em;';
        this._content = new Dialog.MessageDialogContent({title, description: ''});
        this._dialog.contentLayout.add_child(this._content);

        this._message = new St.Label({style_class: 'prompt-dialog-error-label', visible: false});
        this._wrap(this._message);
        this._remember = new CheckBox.CheckBox('Remember for this network');
        this._remember.checked = true;
        this._dialog.contentLayout.add_child(this._message);
        this._dialog.contentLayout.add_child(this._remember);

        this._signInButton = {label: 'Sign in', action: () => this._signIn(), default: true};
        this._dialog.setButtons([
            {label: 'Open in browser', action: () => this._callbacks.browser()},
            {label: 'Cancel', action: () => this._callbacks.cancel(), key: Clutter.KEY_Escape},
            this._signInButton,
        ]);
        // Closed by Shell (a second modal, the session locking) counts as Cancel.
        this._dialog.connect('closed', () => {
            const wasOpen = this._dialog !== null;
            this._dialog = null;
            if (wasOpen)
                this._callbacks.cancel();
        });
        this.setForm(form);
        return this._dialog.open(global.get_current_time()) !== false;
    }

    get isOpen() {
        return this._dialog !== null;
    }

    /** The network's name, as it becomes known. */
    setTitle(title) {
        if (this._dialog && this._content.title !== title)
            this._content.title = title;
    }

    /**
     * Shows `form`'s fields (again: a changed page brings other fields), keeping what the user
     * typed in fields of the same name except passwords.
     *
     * @param {object} form - from formFrom()
     */
    setForm(form) {
        if (!this._dialog)
            return;
        this._form = form;
        this._content.description = descriptionFor(form);
        this._fieldActors.forEach(a => a.destroy());
        this._fieldActors = [];
        const kept = new Map(this._values);
        this._values.clear();
        let focused = false;
        for (const field of form.fields) {
            const actor = this._fieldActor(field, kept.get(field.name));
            this._content.add_child(actor);
            this._fieldActors.push(actor);
            if (!focused && field.kind !== 'checkbox' && field.kind !== 'select') {
                // The first entry takes the keyboard: when the dialog opens, or now for a page
                // that changed while it is open.
                this._dialog.setInitialKeyFocus(actor.get_last_child());
                if (this._dialog.visible)
                    actor.get_last_child().grab_key_focus();
                focused = true;
            }
        }
        this.showMessage(form.message);
        this._update();
    }

    /**
     * Shows `text` (plain) in the dialog, or hides the message line for ''.
     *
     * @param {string} text - plain text
     */
    showMessage(text) {
        if (!this._dialog)
            return;
        this._message.text = text ?? '';
        this._message.visible = Boolean(text);
    }

    /** While signing in, the fields and buttons wait. */
    setBusy(busy) {
        this._busy = busy;
        if (busy)
            this.showMessage('Signing in…');
        this._fieldActors.forEach(a => (a.reactive = !busy));
        this._update();
    }

    close() {
        const dialog = this._dialog;
        this._dialog = null;
        dialog?.close(global.get_current_time());
    }

    _wrap(label) {
        label.clutter_text.line_wrap = true;
        label.clutter_text.ellipsize = Pango.EllipsizeMode.NONE;
    }

    /** One field: its label over its entry, a check box with its terms, or a select's button. */
    _fieldActor(field, previous) {
        const {CheckBox, ShellEntry} = this._ui;
        const box = new St.Widget({layout_manager: new Clutter.BoxLayout({orientation: Clutter.Orientation.VERTICAL}), x_expand: true});
        if (field.kind === 'checkbox') {
            const text = field.terms || field.label;
            const check = new CheckBox.CheckBox(field.termsUrl ? `${text} (${field.termsUrl})` : text);
            // Unticked until the user ticks it: accepting terms is the user's act.
            check.checked = previous === true;
            this._values.set(field.name, check.checked);
            check.connect('notify::checked', () => {
                this._values.set(field.name, check.checked);
                this._update();
            });
            box.add_child(check);
            return box;
        }
        const label = new St.Label({text: field.required ? field.label : `${field.label} (optional)`, style_class: 'hotspot-helper-field-label'});
        this._wrap(label);
        box.add_child(label);
        if (field.kind === 'select') {
            // A button naming the chosen option; each press moves to the next one.
            let index = Math.max(0, field.options.findIndex(o => o.value === (previous ?? field.value)));
            const button = new St.Button({style_class: 'button', label: field.options[index].label, can_focus: true, x_expand: true});
            this._values.set(field.name, field.options[index].value);
            button.connect('clicked', () => {
                index = (index + 1) % field.options.length;
                button.label = field.options[index].label;
                this._values.set(field.name, field.options[index].value);
                this._update();
            });
            box.add_child(button);
            return box;
        }
        const params = {
            style_class: 'prompt-dialog-password-entry',
            hint_text: field.label,
            text: field.kind === 'password' ? '' : String(previous ?? field.value ?? ''),
            can_focus: true,
            reactive: true,
            x_expand: true,
        };
        const entry = field.kind === 'password' ? new St.PasswordEntry(params) : new St.Entry(params);
        ShellEntry.addContextMenu(entry);
        this._values.set(field.name, entry.text);
        entry.clutter_text.connect('text-changed', () => {
            this._values.set(field.name, entry.text);
            this._update();
        });
        entry.clutter_text.connect('activate', () => this._signIn());
        box.add_child(entry);
        return box;
    }

    /** Sign in waits until every required field is filled, as Shell's Connect does. */
    _update() {
        const ready = !this._busy && this._form !== null && missingFields(this._form, this._values).length === 0;
        const button = this._signInButton?.button;
        if (button) {
            button.reactive = ready;
            button.can_focus = ready;
        }
    }

    _signIn() {
        if (this._busy || !this._form || missingFields(this._form, this._values).length > 0)
            return;
        this._callbacks.signIn(new Map(this._values), this._remember.checked);
    }
}
