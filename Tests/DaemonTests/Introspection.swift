// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Interfaces and their members, parsed from introspection XML, in a form two documents can be
/// compared in: "method Name(in sig)(out sig)", "property Name sig access", "signal Name(sig)".
struct IntrospectionModel: Equatable {
    var interfaces: [String: Set<String>] = [:]

    init(xml: String) {
        let delegate = Collector()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = delegate
        _ = parser.parse()
        interfaces = delegate.interfaces
    }

    final class Collector: NSObject, XMLParserDelegate {
        var interfaces: [String: Set<String>] = [:]
        var current: String?
        var member: (kind: String, name: String, access: String, type: String)?
        var ins = "", outs = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            switch name {
            case "interface": current = attributes["name"]; interfaces[current!, default: []] = interfaces[current!] ?? []
            case "method", "signal": member = (name, attributes["name"] ?? "", "", ""); ins = ""; outs = ""
            case "property": member = ("property", attributes["name"] ?? "", attributes["access"] ?? "", attributes["type"] ?? "")
            case "arg":
                let t = attributes["type"] ?? ""
                if member?.kind == "signal" || attributes["direction"] != "out" { ins += t } else { outs += t }
            default: break
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let iface = current else { return }
            switch name {
            case "method": interfaces[iface]!.insert("method \(member!.name)(\(ins))(\(outs))")
            case "signal": interfaces[iface]!.insert("signal \(member!.name)(\(ins))")
            case "property": interfaces[iface]!.insert("property \(member!.name) \(member!.type) \(member!.access)")
            case "interface": current = nil
            default: break
            }
        }
    }
}
