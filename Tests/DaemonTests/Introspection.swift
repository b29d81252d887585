// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Interfaces and their members, parsed from introspection XML, in a normal form two documents
/// can be compared in: member order, whitespace, comments and the standard interfaces' layout do
/// not matter; names, argument names, types, directions, access and annotations do.
struct IntrospectionModel: Equatable {
    /// A method, signal or property, with the annotations inside it (and inside its arguments).
    struct Member: Hashable, Comparable, CustomStringConvertible {
        var kind: String
        var name: String
        /// "type name" of each argument; a signal's arguments are its inputs.
        var inputs: [String] = []
        var outputs: [String] = []
        var type = ""
        var access = ""
        var annotations: [String] = []

        var inputSignature: String { inputs.map { String($0.split(separator: " ")[0]) }.joined() }
        var outputSignature: String { outputs.map { String($0.split(separator: " ")[0]) }.joined() }

        var description: String {
            let notes = annotations.isEmpty ? "" : " [" + annotations.sorted().joined(separator: ", ") + "]"
            switch kind {
            case "property": return "property \(name) \(type) \(access)\(notes)"
            case "signal": return "signal \(name)(\(inputs.joined(separator: ", ")))\(notes)"
            default: return "method \(name)(\(inputs.joined(separator: ", "))) -> (\(outputs.joined(separator: ", ")))\(notes)"
            }
        }

        static func < (a: Member, b: Member) -> Bool { a.description < b.description }
        static func == (a: Member, b: Member) -> Bool { a.description == b.description }
        func hash(into h: inout Hasher) { h.combine(description) }
    }

    var interfaces: [String: Set<Member>] = [:]
    /// Annotations directly inside each `<interface>`.
    var interfaceAnnotations: [String: Set<String>] = [:]
    /// Whether the document parsed.
    var parsed = false

    init(xml: String) {
        let delegate = Collector()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = delegate
        parsed = parser.parse()
        interfaces = delegate.interfaces
        interfaceAnnotations = delegate.interfaceAnnotations
    }

    /// What differs in `name` between this document and `other`, one line per member; empty when
    /// they agree.
    func difference(from other: IntrospectionModel, in name: String, labels: (String, String) = ("this", "other")) -> String {
        guard let mine = interfaces[name] else { return "\(labels.0) lacks the interface \(name)" }
        guard let theirs = other.interfaces[name] else { return "\(labels.1) lacks the interface \(name)" }
        var lines = mine.subtracting(theirs).sorted().map { "only in \(labels.0): \($0)" }
        lines += theirs.subtracting(mine).sorted().map { "only in \(labels.1): \($0)" }
        let (a, b) = (interfaceAnnotations[name] ?? [], other.interfaceAnnotations[name] ?? [])
        if a != b { lines.append("interface annotations: \(labels.0) \(a.sorted()), \(labels.1) \(b.sorted())") }
        return lines.joined(separator: "\n")
    }

    final class Collector: NSObject, XMLParserDelegate {
        var interfaces: [String: Set<Member>] = [:]
        var interfaceAnnotations: [String: Set<String>] = [:]
        var current: String?
        var member: Member?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            switch name {
            case "interface":
                let iface = attributes["name"] ?? ""
                current = iface
                interfaces[iface, default: []] = interfaces[iface] ?? []
                interfaceAnnotations[iface, default: []] = interfaceAnnotations[iface] ?? []
            case "method", "signal":
                member = Member(kind: name, name: attributes["name"] ?? "")
            case "property":
                member = Member(kind: name, name: attributes["name"] ?? "", type: attributes["type"] ?? "", access: attributes["access"] ?? "")
            case "arg":
                let arg = "\(attributes["type"] ?? "") \(attributes["name"] ?? "")"
                if member?.kind == "signal" || attributes["direction"] != "out" { member?.inputs.append(arg) } else { member?.outputs.append(arg) }
            case "annotation":
                let note = "\(attributes["name"] ?? "")=\(attributes["value"] ?? "")"
                if member != nil { member?.annotations.append(note) } else if let current { interfaceAnnotations[current]?.insert(note) }
            default: break
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let iface = current else { return }
            switch name {
            case "method", "signal", "property":
                if let member { interfaces[iface]!.insert(member) }
                member = nil
            case "interface": current = nil
            default: break
            }
        }
    }
}
