// SPDX-License-Identifier: Apache-2.0
import CXML2
import CLazyLibraries

/// Reads the forms of a portal page with libxml2's HTML parser (`htmlReadMemory` in recover mode,
/// never touching the network), so broken markup, entities, comments and `<script>` bodies are
/// handled as a browser's parser would rather than by a hand-written scanner: nothing inside
/// `<script>`, `<style>`, `<template>` or a comment becomes a control, attribute values and the
/// action URL have their entities decoded.
///
/// Controls belong to their enclosing `<form>`, to the form their `form="id"` attribute names, or
/// (as browsers do for `<form>` opened in a table and closed by the parser) to the last form opened
/// before them. Bounded: at most `maxForms` forms, `maxControls` controls per form, values cut at
/// `maxValueBytes`.
///
/// The work is linear in the page and capped: every node visited counts against a budget of
/// `workPerByte` visits per byte of the page (plus `workAllowance`), a text (a label's, the words after
/// a checkbox, an option's) is read from at most `maxTextNodes` nodes, and a label's text is read once
/// however many controls it holds. A page of one `<label>` around thousands of `<input>`s used to
/// read the label again for each input (quadratic: seconds of the daemon's thread for 64 KiB). A
/// page that uses the budget up has no form this reader vouches for: `forms(in:)` returns none.
public enum HTMLFormReader {
    /// Forms kept per page.
    public static let maxForms = 32
    /// Controls kept per form.
    public static let maxControls = 256
    /// Bytes kept of any value or label.
    public static let maxValueBytes = 4096
    /// Nodes one text is read from (a label, the words after a checkbox, an option).
    public static let maxTextNodes = 128
    /// Node visits allowed per byte of the page. Each node costs at least a byte, and each text
    /// read (≤ `maxTextNodes` visits) belongs to an element of at least seven bytes, so a linear
    /// reading stays well inside; a regression to per-control walks of a shared label does not.
    public static let workPerByte = 24
    /// Node visits allowed besides `workPerByte` (the nodes libxml2 implies in a tiny page).
    public static let workAllowance = 4096

    /// What reading a page found and cost.
    public struct Reading: Sendable {
        /// The forms, in page order (none when the budget ran out).
        public var forms: [HTMLForm]
        /// Node visits spent.
        public var work: Int
        /// Node visits the page was allowed (`workPerByte` × bytes + `workAllowance`).
        public var budget: Int
        /// The budget ran out before the page was read.
        public var exhausted: Bool
        /// What the page holds besides its forms that a person needs a browser for.
        public var traits = PageTraits()
    }

    /// What a page holds that only a browser can deal with (docs/CONNECTIVITY.md, "Forms").
    public struct PageTraits: Sendable, Hashable {
        /// `<script>` elements.
        public var scripts = false
        /// A captcha (reCAPTCHA, hCaptcha, Turnstile, or an element named captcha).
        public var captcha = false
        /// An `<input type=file>`.
        public var fileInput = false
        /// An `<iframe>` (or `<frame>`).
        public var iframe = false
        /// The text of the page's first error notice (an element with role alert, or whose class
        /// or id says error, alert, invalid, warning or fail), "" when none.
        public var message = ""
        public init() {}
    }

    /// A count of node visits against a limit.
    struct Work {
        let limit: Int
        var done = 0
        var exhausted: Bool { done > limit }
        /// Counts one visit; false once the limit is passed.
        mutating func spend() -> Bool {
            done += 1
            return done <= limit
        }
    }

    /// Why pages cannot be read (libxml2, loaded when first used, could not be loaded: its
    /// soname, the reason and the package to install), or nil.
    public static var unavailableReason: String? { hh_xml_load_error().map { String(cString: $0) } }

    /// The forms of `html` (UTF-8 bytes), in page order; none for a page that uses up its budget.
    public static func forms(in html: [UInt8]) -> [HTMLForm] { read(html).forms }

    /// The node visits a page of `bytes` bytes is allowed.
    public static func budget(forBytes bytes: Int) -> Int { workAllowance + workPerByte * bytes }

    /// Reads `html` (UTF-8 bytes): its forms and the work it cost.
    public static func read(_ html: [UInt8]) -> Reading { read(html, budget: budget(forBytes: html.count)) }

    static func read(_ html: [UInt8], budget: Int) -> Reading {
        guard !html.isEmpty, html.count < Int(Int32.max) / workPerByte else {
            return Reading(forms: [], work: 0, budget: budget, exhausted: false)
        }
        let doc = html.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { chars in
                htmlReadMemory(chars.baseAddress, Int32(chars.count), "portal.html", "UTF-8", hotspot_html_options())
            }
        }
        guard let doc else { return Reading(forms: [], work: 0, budget: budget, exhausted: false) }
        defer { xmlFreeDoc(doc) }
        guard let root = xmlDocGetRootElement(doc) else { return Reading(forms: [], work: 0, budget: budget, exhausted: false) }
        var walk = Walk(work: Work(limit: budget))
        walk.run(root)
        let exhausted = walk.work.exhausted
        return Reading(forms: exhausted ? [] : walk.result(), work: walk.work.done, budget: budget, exhausted: exhausted, traits: walk.traits)
    }

    /// The forms of `html`.
    public static func forms(in html: String) -> [HTMLForm] { forms(in: Array(html.utf8)) }

    /// One pass over the tree in document order, with an explicit stack (pages can be deep).
    struct Walk {
        struct Found {
            var control: HTMLForm.Control
            var owner: Int?
            var formAttribute: String?
            var labelFor: String
        }
        var forms: [HTMLForm] = []
        var formIDs: [String: Int] = [:]
        var found: [Found] = []
        var labels: [String: String] = [:]
        var work: Work
        /// Each `<label>`'s text, read once however many controls it holds.
        var labelTexts: [xmlNodePtr: String] = [:]
        var traits = PageTraits()

        init(work: Work) { self.work = work }

        mutating func run(_ root: xmlNodePtr) {
            // (node, owning form, inside a disabled fieldset)
            var stack: [(xmlNodePtr, Int?, Bool)] = [(root, nil, false)]
            while let (node, owner, disabledSet) = stack.popLast(), work.spend() {
                guard node.pointee.type == XML_ELEMENT_NODE else { continue }
                let tag = HTMLFormReader.name(node)
                var childOwner = owner
                var childDisabled = disabledSet
                noteTraits(node, tag: tag)
                switch tag {
                case "script", "style", "template", "textarea", "select", "title":
                    if tag == "textarea" || tag == "select" { control(node, tag: tag, owner: owner, disabledSet: disabledSet) }
                    continue
                case "form":
                    guard forms.count < HTMLFormReader.maxForms else { continue }
                    let action = HTMLFormReader.attribute(node, "action").flatMap { $0.isEmpty ? nil : $0 }
                    let method = (HTMLFormReader.attribute(node, "method") ?? "get").uppercased() == "POST" ? "POST" : "GET"
                    var form = HTMLForm(action: action, method: method, controls: [])
                    form.scripted = HTMLFormReader.has(node, "onsubmit")
                    forms.append(form)
                    if let id = HTMLFormReader.attribute(node, "id"), formIDs[id] == nil { formIDs[id] = forms.count - 1 }
                    childOwner = forms.count - 1
                case "fieldset":
                    childDisabled = disabledSet || HTMLFormReader.has(node, "disabled")
                case "input", "button":
                    control(node, tag: tag, owner: owner, disabledSet: disabledSet)
                case "label":
                    if let target = HTMLFormReader.attribute(node, "for"), labels[target] == nil {
                        labels[target] = labelText(node)
                    }
                default:
                    break
                }
                var children: [xmlNodePtr] = []
                var child = node.pointee.children
                while let c = child {
                    children.append(c)
                    child = c.pointee.next
                }
                for c in children.reversed() { stack.append((c, childOwner, childDisabled)) }
            }
        }

        /// Notes what a browser would be needed for: scripts, a captcha, frames.
        mutating func noteTraits(_ node: xmlNodePtr, tag: String) {
            switch tag {
            case "script":
                traits.scripts = true
            case "iframe", "frame":
                traits.iframe = true
            default:
                break
            }
            let marks = [HTMLFormReader.attribute(node, "class"), HTMLFormReader.attribute(node, "id"),
                         tag == "script" || tag == "iframe" ? HTMLFormReader.attribute(node, "src") : nil]
            if marks.contains(where: { m in m.map { v in Self.captchaWords.contains { v.lowercased().contains($0) } } ?? false }) {
                traits.captcha = true
            }
            if traits.message.isEmpty, !["script", "style", "template", "form", "input", "body", "html"].contains(tag) {
                let role = HTMLFormReader.attribute(node, "role")?.lowercased() ?? ""
                let named = (marks[0] ?? "") + " " + (marks[1] ?? "")
                if role == "alert" || Self.errorWords.contains(where: { named.lowercased().contains($0) }) {
                    traits.message = HTMLFormReader.text(node, &work)
                }
            }
        }

        static let errorWords = ["error", "alert", "invalid", "warning", "fail"]

        static let captchaWords = ["captcha", "turnstile"]

        mutating func control(_ node: xmlNodePtr, tag: String, owner: Int?, disabledSet: Bool) {
            let name = HTMLFormReader.attribute(node, "name") ?? ""
            let id = HTMLFormReader.attribute(node, "id") ?? ""
            let disabled = disabledSet || HTMLFormReader.has(node, "disabled")
            let required = HTMLFormReader.has(node, "required")
            let implicitOwner = owner ?? (forms.isEmpty ? nil : forms.count - 1)
            let formAttribute = HTMLFormReader.attribute(node, "form")
            var controls: [HTMLForm.Control] = []
            switch tag {
            case "input":
                let type = (HTMLFormReader.attribute(node, "type") ?? "text").lowercased()
                if type == "file" { traits.fileInput = true }
                var label = enclosingLabel(node)
                var link = label.isEmpty ? "" : enclosingLabelLink(node)
                if label.isEmpty && (type == "checkbox" || type == "radio") {
                    label = HTMLFormReader.followingText(node, &work)
                    link = HTMLFormReader.followingLink(node, &work)
                }
                var c = HTMLForm.Control(name: name, type: type, value: HTMLFormReader.attribute(node, "value") ?? "",
                                         checked: HTMLFormReader.has(node, "checked"), required: required,
                                         disabled: disabled, label: label, id: id)
                c.placeholder = HTMLFormReader.attribute(node, "placeholder") ?? ""
                c.ariaLabel = HTMLFormReader.attribute(node, "aria-label") ?? ""
                c.link = link
                if label.isEmpty && c.placeholder.isEmpty && c.ariaLabel.isEmpty && type != "hidden" && type != "submit" {
                    c.before = HTMLFormReader.precedingText(node, &work)
                }
                controls.append(c)
            case "button":
                let type = (HTMLFormReader.attribute(node, "type") ?? "submit").lowercased()
                controls.append(HTMLForm.Control(name: name, type: type, value: HTMLFormReader.attribute(node, "value") ?? "",
                                                 disabled: disabled, id: id))
            case "textarea":
                controls.append(HTMLForm.Control(name: name, type: "textarea", value: HTMLFormReader.rawText(node), required: required,
                                                 disabled: disabled, id: id))
            case "select":
                let options = HTMLFormReader.options(node, &work)
                let multiple = HTMLFormReader.has(node, "multiple")
                var chosen = options.filter { $0.selected && !$0.disabled }
                if chosen.isEmpty && !multiple, let first = options.first(where: { !$0.disabled }) { chosen = [first] }
                if !multiple && chosen.count > 1 { chosen = [chosen.last!] }
                let choices = options.filter { !$0.disabled }.map { HTMLForm.Control.Choice(value: $0.value, label: $0.label) }
                var described = HTMLForm.Control(name: name, type: "select", value: "", required: required, disabled: disabled || multiple, id: id)
                described.label = enclosingLabel(node)
                described.ariaLabel = HTMLFormReader.attribute(node, "aria-label") ?? ""
                if described.label.isEmpty && described.ariaLabel.isEmpty { described.before = HTMLFormReader.precedingText(node, &work) }
                described.choices = choices
                if chosen.isEmpty { controls.append(described) }
                for o in chosen {
                    var c = described
                    c.value = o.value
                    c.disabled = disabled
                    controls.append(c)
                }
            default:
                return
            }
            for c in controls {
                found.append(Found(control: c, owner: implicitOwner, formAttribute: formAttribute, labelFor: id))
            }
        }

        /// The text of `label`, read the first time it is asked for.
        mutating func labelText(_ label: xmlNodePtr) -> String {
            if let known = labelTexts[label] { return known }
            let text = HTMLFormReader.text(label, &work)
            labelTexts[label] = text
            return text
        }

        /// The first http(s) link in the `<label>` around `node`.
        mutating func enclosingLabelLink(_ node: xmlNodePtr) -> String {
            var p = node.pointee.parent
            var depth = 0
            while let parent = p, parent.pointee.type == XML_ELEMENT_NODE, depth < 8, work.spend() {
                if HTMLFormReader.name(parent) == "label" { return HTMLFormReader.link(in: parent, &work) }
                p = parent.pointee.parent
                depth += 1
            }
            return ""
        }

        /// The text of the `<label>` around `node`.
        mutating func enclosingLabel(_ node: xmlNodePtr) -> String {
            var p = node.pointee.parent
            var depth = 0
            while let parent = p, parent.pointee.type == XML_ELEMENT_NODE, depth < 8, work.spend() {
                if HTMLFormReader.name(parent) == "label" { return labelText(parent) }
                p = parent.pointee.parent
                depth += 1
            }
            return ""
        }

        func result() -> [HTMLForm] {
            var out = forms
            for f in found {
                guard let index = f.formAttribute.map({ formIDs[$0] }) ?? f.owner, out[index].controls.count < HTMLFormReader.maxControls else {
                    continue
                }
                var c = f.control
                if c.label.isEmpty, !f.labelFor.isEmpty, let text = labels[f.labelFor] { c.label = text }
                out[index].controls.append(c)
            }
            return out
        }
    }

    // MARK: - Tree helpers

    static func name(_ node: xmlNodePtr) -> String {
        guard let n = node.pointee.name else { return "" }
        return String(cString: n).lowercased()
    }

    static func has(_ node: xmlNodePtr, _ attribute: String) -> Bool { xmlHasProp(node, attribute) != nil }

    /// An attribute's value, entities decoded by libxml2, cut at `maxValueBytes`.
    static func attribute(_ node: xmlNodePtr, _ attribute: String) -> String? {
        guard let raw = xmlGetProp(node, attribute) else { return nil }
        defer { hh_xml_free(raw) }
        return capped(String(cString: raw))
    }

    /// The text inside `node`, without script or style, whitespace collapsed: read from at most
    /// `maxTextNodes` nodes, each counted in `work`.
    static func text(_ node: xmlNodePtr, _ work: inout Work) -> String {
        var out = ""
        var visited = 0
        // Document order without gathering a node's children first (a label can hold thousands):
        // `next` is the node to visit, `resume` the siblings to come back to.
        var next = node.pointee.children
        var resume: [xmlNodePtr] = []
        while out.utf8.count < maxValueBytes, visited < maxTextNodes {
            guard let n = next ?? resume.popLast() else { break }
            guard work.spend() else { break }
            visited += 1
            next = n.pointee.next
            switch n.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = n.pointee.content { out += String(cString: content) + " " }
            case XML_ELEMENT_NODE:
                let tag = name(n)
                if tag == "script" || tag == "style" || tag == "template" { continue }
                if let child = n.pointee.children {
                    if let after = next { resume.append(after) }
                    next = child
                }
            default:
                continue
            }
        }
        return capped(collapse(out))
    }

    /// A textarea's text as written (libxml2 decodes its entities).
    static func rawText(_ node: xmlNodePtr) -> String {
        guard let raw = xmlNodeGetContent(node) else { return "" }
        defer { hh_xml_free(raw) }
        var s = String(cString: raw)
        if s.hasPrefix("\n") { s.removeFirst() }
        return capped(s)
    }

    /// The text right after a checkbox (`<input type=checkbox> I accept the terms`), up to the next
    /// control, from at most `maxTextNodes` siblings.
    static func followingText(_ node: xmlNodePtr, _ work: inout Work) -> String {
        var out = ""
        var n = node.pointee.next
        var visited = 0
        while let s = n, out.utf8.count < 200, visited < maxTextNodes, work.spend() {
            visited += 1
            if s.pointee.type == XML_ELEMENT_NODE {
                let tag = name(s)
                if ["input", "select", "textarea", "button", "br", "p", "div", "form"].contains(tag) { break }
                out += text(s, &work) + " "
            } else if s.pointee.type == XML_TEXT_NODE, let content = s.pointee.content {
                out += String(cString: content) + " "
            }
            n = s.pointee.next
        }
        return capped(collapse(out))
    }

    struct Option {
        var value: String
        var selected: Bool
        var disabled: Bool
        var label = ""
    }

    /// The text just before a control: the words before it in its parent, else the text of the
    /// element before it (a table cell, a `<span>`), looking up at most two parents; at most
    /// `maxTextNodes` nodes.
    static func precedingText(_ node: xmlNodePtr, _ work: inout Work) -> String {
        var start: xmlNodePtr? = node
        var level = 0
        while let from = start, level < 3 {
            var n = from.pointee.prev
            var visited = 0
            while let s = n, visited < maxTextNodes, work.spend() {
                visited += 1
                if s.pointee.type == XML_TEXT_NODE, let content = s.pointee.content {
                    let t = collapse(String(cString: content))
                    if !t.isEmpty { return capped(t) }
                } else if s.pointee.type == XML_ELEMENT_NODE {
                    let tag = name(s)
                    if ["input", "select", "textarea", "button", "form", "script", "style"].contains(tag) { return "" }
                    let t = text(s, &work)
                    if !t.isEmpty { return t }
                }
                n = s.pointee.prev
            }
            guard let parent = from.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE,
                  ["td", "th", "div", "span", "p", "li", "dd", "font", "b", "strong"].contains(name(parent)) else { return "" }
            start = parent
            level += 1
        }
        return ""
    }

    /// The first http(s) `<a href>` inside `node`, at most `maxTextNodes` nodes deep into it.
    static func link(in node: xmlNodePtr, _ work: inout Work) -> String {
        var next = node.pointee.children
        var resume: [xmlNodePtr] = []
        var visited = 0
        while visited < maxTextNodes {
            guard let n = next ?? resume.popLast(), work.spend() else { break }
            visited += 1
            next = n.pointee.next
            guard n.pointee.type == XML_ELEMENT_NODE else { continue }
            if name(n) == "a", let href = attribute(n, "href") { return href }
            if let child = n.pointee.children {
                if let after = next { resume.append(after) }
                next = child
            }
        }
        return ""
    }

    /// The first link among the siblings after a checkbox, up to the next control.
    static func followingLink(_ node: xmlNodePtr, _ work: inout Work) -> String {
        var n = node.pointee.next
        var visited = 0
        while let s = n, visited < maxTextNodes, work.spend() {
            visited += 1
            if s.pointee.type == XML_ELEMENT_NODE {
                let tag = name(s)
                if ["input", "select", "textarea", "button", "br", "p", "div", "form"].contains(tag) { break }
                if tag == "a", let href = attribute(s, "href") { return href }
                let inner = link(in: s, &work)
                if !inner.isEmpty { return inner }
            }
            n = s.pointee.next
        }
        return ""
    }

    /// A select's options (also those inside optgroups), in order.
    static func options(_ select: xmlNodePtr, _ work: inout Work) -> [Option] {
        var out: [Option] = []
        func visit(_ parent: xmlNodePtr, disabledGroup: Bool) {
            var child = parent.pointee.children
            while let c = child, out.count < maxControls, work.spend() {
                if c.pointee.type == XML_ELEMENT_NODE {
                    switch name(c) {
                    case "option":
                        let label = text(c, &work)
                        out.append(Option(value: attribute(c, "value") ?? label, selected: has(c, "selected"),
                                          disabled: disabledGroup || has(c, "disabled"), label: label))
                    case "optgroup":
                        visit(c, disabledGroup: disabledGroup || has(c, "disabled"))
                    default:
                        break
                    }
                }
                child = c.pointee.next
            }
        }
        visit(select, disabledGroup: false)
        return out
    }

    static func collapse(_ s: String) -> String {
        s.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    static func capped(_ s: String) -> String {
        guard s.utf8.count > maxValueBytes else { return s }
        return String(decoding: s.utf8.prefix(maxValueBytes), as: UTF8.self)
    }
}
