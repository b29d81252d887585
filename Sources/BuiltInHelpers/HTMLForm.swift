/// A form found in a portal page, read with a tolerant scanner (portal HTML is rarely valid).
public struct HTMLForm: Sendable, Hashable {
    /// One input, select or button of the form.
    public struct Input: Sendable, Hashable {
        public var name: String
        public var type: String
        public var value: String
        public var checked: Bool
    }

    /// The action attribute (nil: the page's own URL).
    public var action: String?
    /// GET or POST.
    public var method: String
    /// The named controls, in page order.
    public var inputs: [Input]

    /// Whether accepting it needs nothing from a person: no text, password or e-mail field.
    public var isClickThrough: Bool {
        !inputs.contains { ["text", "password", "email", "tel", "number", "search", "url"].contains($0.type) }
    }

    /// The fields a browser would post when a person ticks every box and presses the first
    /// submit button, with `overrides` replacing or adding values.
    public func submission(overrides: [FormField] = []) -> [(String, String)] {
        var out: [(String, String)] = []
        var submitted = false
        for i in inputs {
            switch i.type {
            case "checkbox", "radio":
                if i.type == "radio", out.contains(where: { $0.0 == i.name }) { continue }
                out.append((i.name, i.value.isEmpty ? "on" : i.value))
            case "submit", "image", "button":
                if !submitted && i.type != "button" { out.append((i.name, i.value)); submitted = true }
            case "reset", "file":
                continue
            default:
                out.append((i.name, i.value))
            }
        }
        for o in overrides {
            if let at = out.firstIndex(where: { $0.0 == o.name }) { out[at].1 = o.value } else { out.append((o.name, o.value)) }
        }
        return out
    }

    /// The forms of a page, in order.
    public static func parse(_ html: String) -> [HTMLForm] {
        let bytes = Array(html.utf8)
        var forms: [HTMLForm] = []
        var current: HTMLForm?
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            var j = i + 1
            while j < bytes.count && bytes[j] != UInt8(ascii: ">") { j += 1 }
            let tag = String(decoding: bytes[(i + 1)..<min(j, bytes.count)], as: UTF8.self)
            i = j + 1
            let (name, attributes) = Self.tag(tag)
            switch name {
            case "form":
                if let c = current { forms.append(c) }
                current = HTMLForm(action: attributes["action"].map(Self.decodeEntities), method: (attributes["method"] ?? "get").uppercased(), inputs: [])
            case "/form":
                if let c = current { forms.append(c) }
                current = nil
            case "input", "button":
                guard current != nil, let n = attributes["name"], !n.isEmpty else { continue }
                let type = (attributes["type"] ?? (name == "button" ? "submit" : "text")).lowercased()
                current?.inputs.append(Input(name: n, type: type, value: Self.decodeEntities(attributes["value"] ?? ""),
                                             checked: attributes["checked"] != nil))
            default:
                continue
            }
        }
        if let c = current { forms.append(c) }
        return forms
    }

    /// A tag's lower-cased name and its attributes (quoted, unquoted or bare).
    static func tag(_ text: String) -> (String, [String: String]) {
        let chars = Array(text)
        var k = 0
        func skipSpace() { while k < chars.count && chars[k].isWhitespace { k += 1 } }
        skipSpace()
        var name = ""
        while k < chars.count && !chars[k].isWhitespace && chars[k] != "/" || (k < chars.count && chars[k] == "/" && name.isEmpty) {
            name.append(chars[k]); k += 1
        }
        var attributes: [String: String] = [:]
        while k < chars.count {
            skipSpace()
            var key = ""
            while k < chars.count && !chars[k].isWhitespace && chars[k] != "=" && chars[k] != "/" { key.append(chars[k]); k += 1 }
            if key.isEmpty { k += 1; continue }
            skipSpace()
            var value = ""
            if k < chars.count && chars[k] == "=" {
                k += 1
                skipSpace()
                if k < chars.count && (chars[k] == "\"" || chars[k] == "'") {
                    let q = chars[k]; k += 1
                    while k < chars.count && chars[k] != q { value.append(chars[k]); k += 1 }
                    k += 1
                } else {
                    while k < chars.count && !chars[k].isWhitespace { value.append(chars[k]); k += 1 }
                }
            }
            attributes[key.lowercased()] = value
        }
        return (name.lowercased(), attributes)
    }

    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        return s.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
    }
}
