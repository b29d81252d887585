// SPDX-License-Identifier: Apache-2.0
/// A form found in a portal page (read by `HTMLFormReader` with libxml2's HTML parser), and what
/// a careful person would submit with it.
///
/// The rules (docs/CONNECTIVITY.md, "Forms"): hidden fields with their values; a checkbox only when
/// the form cannot be accepted without it (`required`, or a box about the terms: its name, id,
/// value or label mentions terms, accept, agree, consent, conditions, policy, AUP or ToS), never an
/// optional box (newsletters, offers, marketing, partners), even a pre-ticked one; no disabled
/// control; a select's selected option (or its first); textarea contents; the checked radio of a
/// group; the first submit button's name and value when it has a name. A field the form needs that
/// the profile does not fill (name, room number, e-mail) is reported, not guessed.
public struct HTMLForm: Sendable, Hashable {
    /// One named control of the form.
    public struct Control: Sendable, Hashable {
        /// The `name` attribute.
        public var name: String
        /// The lower-cased `type`: an input's type (`text` when absent), `select`, `textarea`, or a
        /// button's type (`submit` when absent).
        public var type: String
        /// The value a browser would send: the `value` attribute, a textarea's text, a select's
        /// selected (or first) option; empty for a select without options.
        public var value: String
        /// `checked` (checkboxes and radios).
        public var checked: Bool
        /// `required`.
        public var required: Bool
        /// `disabled`, on the control or on a fieldset around it.
        public var disabled: Bool
        /// The text that describes it: its `<label>`, or the text right after it (checkboxes).
        public var label: String
        /// The `id` attribute.
        public var id: String
        /// The `placeholder` attribute ("" when none).
        public var placeholder = ""
        /// The `aria-label` attribute ("" when none).
        public var ariaLabel = ""
        /// The text just before the control on the page (a table cell before it, words before it).
        public var before = ""
        /// A select's options, in order (at most `HTMLFormReader.maxControls`).
        public var choices: [Choice] = []
        /// The first http(s) link in the text beside a checkbox (its terms), "" when none.
        public var link = ""

        /// One option of a select.
        public struct Choice: Sendable, Hashable {
            public var value: String
            public var label: String
            public init(value: String, label: String) {
                self.value = value
                self.label = label
            }
        }

        /// A control.
        public init(name: String, type: String, value: String = "", checked: Bool = false, required: Bool = false,
                    disabled: Bool = false, label: String = "", id: String = "") {
            self.name = name
            self.type = type
            self.value = value
            self.checked = checked
            self.required = required
            self.disabled = disabled
            self.label = label
            self.id = id
        }
    }

    /// The `action` attribute, entities decoded (nil: the page's own URL).
    public var action: String?
    /// GET or POST.
    public var method: String
    /// The named controls, in page order.
    public var controls: [Control]
    /// The form runs a script when submitted (`onsubmit`), or its only buttons are script buttons.
    public var scripted = false

    /// A form.
    public init(action: String?, method: String, controls: [Control]) {
        self.action = action
        self.method = method
        self.controls = controls
    }

    /// Input types a person types into.
    static let typedTypes: Set<String> = ["text", "password", "email", "tel", "number", "search", "url", "date", "datetime-local",
                                          "month", "week", "time", "textarea"]

    /// Whether accepting it needs nothing typed by a person (no enabled text-like field).
    public var isClickThrough: Bool {
        !controls.contains { !$0.disabled && Self.typedTypes.contains($0.type) }
    }

    /// What `submission(filling:)` decided.
    public enum Submission: Sendable, Hashable {
        /// The fields to send, in order.
        case ready([FormPair])
        /// The form needs what only a person can give: these fields (names from the page) are
        /// empty and not filled by the profile, or a box it requires is an optional one.
        case needsUser([String])
    }

    /// The fields a browser would send when a careful person fills in `filling` (a profile's
    /// fields, which replace or add to the page's) and ticks only what is required.
    public func submission(filling: [FormField] = []) -> Submission {
        let filled = Set(filling.map(\.name))
        var out: [FormPair] = []
        var unfilled: [String] = []
        var submitted = false
        var requiredRadios: [String] = []
        var answeredRadios: Set<String> = []
        for c in controls where !c.disabled {
            switch c.type {
            case "checkbox":
                if filled.contains(c.name) { continue }
                switch CheckboxRole(of: c) {
                case .optional:
                    if c.required { unfilled.append(c.name) }
                case .terms:
                    out.append(FormPair(c.name, c.value.isEmpty ? "on" : c.value))
                case .other:
                    if c.required { out.append(FormPair(c.name, c.value.isEmpty ? "on" : c.value)) }
                }
            case "radio":
                if filled.contains(c.name) { continue }
                if c.required { requiredRadios.append(c.name) }
                if c.checked && !answeredRadios.contains(c.name) {
                    answeredRadios.insert(c.name)
                    out.append(FormPair(c.name, c.value.isEmpty ? "on" : c.value))
                }
            case "submit", "image":
                guard !submitted else { continue }
                submitted = true
                if c.name.isEmpty { continue }
                if c.type == "image" {
                    out.append(FormPair(c.name + ".x", "0"))
                    out.append(FormPair(c.name + ".y", "0"))
                } else {
                    out.append(FormPair(c.name, c.value))
                }
            case "button", "reset", "file":
                continue
            case "hidden":
                out.append(FormPair(c.name, c.value))
            default:
                if c.name.isEmpty { continue }
                if filled.contains(c.name) {
                    out.append(FormPair(c.name, c.value))
                } else if c.value.isEmpty && (Self.typedTypes.contains(c.type) && c.type != "textarea" || c.required) {
                    unfilled.append(c.name)
                } else {
                    out.append(FormPair(c.name, c.value))
                }
            }
        }
        for name in requiredRadios where !answeredRadios.contains(name) && !unfilled.contains(name) { unfilled.append(name) }
        guard unfilled.isEmpty else { return .needsUser(unfilled) }
        for f in filling {
            if let at = out.firstIndex(where: { $0.name == f.name }) { out[at].value = f.value } else { out.append(FormPair(f.name, f.value)) }
        }
        return .ready(out.filter { !$0.name.isEmpty })
    }

    /// What a checkbox is for, from its name, id, value and label.
    enum CheckboxRole {
        /// Marketing, newsletters, offers, partners: never ticked.
        case optional
        /// The terms of use: ticked.
        case terms
        /// Anything else: ticked only when `required`.
        case other

        static let optionalWords = ["newsletter", "offer", "marketing", "promo", "advert", "partner", "subscribe", "news",
                                    "mailing", "third part", "updates", "sms", "special"]
        static let termsWords = ["terms", "accept", "agree", "consent", "condition", "policy", "aup", "tos", "eula", "rules"]

        init(of c: Control) {
            let text = [c.name, c.id, c.value, c.label].joined(separator: " ").lowercased()
            if Self.optionalWords.contains(where: { text.contains($0) }) {
                self = .optional
            } else if Self.termsWords.contains(where: { text.contains($0) }) {
                self = .terms
            } else {
                self = .other
            }
        }
    }
}

/// One name=value pair of a form submission.
public struct FormPair: Sendable, Hashable {
    /// The field name.
    public var name: String
    /// The value (may be a credential: never logged).
    public var value: String
    /// A pair.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
