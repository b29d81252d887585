// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing

/// The project is Apache-2.0, and every source file says so in an SPDX line near its top.
@Suite struct LicenceTests {
    static let sourceSuffixes = [".swift", ".c", ".h", ".py", ".sh", "module.modulemap"]

    @Test func everySourceFileCarriesItsSPDXLine() throws {
        let root = TestKitPaths.repositoryRoot
        let licence = try String(contentsOf: root.appendingPathComponent("LICENSE"), encoding: .utf8)
        #expect(licence.contains("Apache License") && licence.contains("Version 2.0"))
        var missing: [String] = []
        var checked = 0
        for top in ["Sources", "Tests", "Benchmarks", "Fuzz", "Tools", "scripts"] {
            guard let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(top).path) else { continue }
            for case let relative as String in walker {
                guard Self.sourceSuffixes.contains(where: { relative.hasSuffix($0) }), !relative.contains("__pycache__") else { continue }
                let path = root.appendingPathComponent(top).appendingPathComponent(relative).path
                guard let head = FileManager.default.contents(atPath: path)?.prefix(600) else { continue }
                checked += 1
                if !String(decoding: head, as: UTF8.self).contains("SPDX-License-Identifier: Apache-2.0") { missing.append("\(top)/\(relative)") }
            }
        }
        #expect(checked > 200, "only \(checked) source files found under \(root.path)")
        #expect(missing.isEmpty, "no SPDX line (add `// SPDX-License-Identifier: Apache-2.0` at the top): \(missing)")
    }
}
