// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Foundation
import Testing

/// A layout that shows the architecture. Sources/ holds the product's libraries and
/// executables, and no file there grows past 600 lines (split it by concept instead).
@Suite struct LayoutTests {
    static let lineLimit = 600

    @Test func noSourceFileIsOverSixHundredLines() throws {
        let sources = TestKitPaths.repositoryRoot.appendingPathComponent("Sources")
        let walker = try #require(FileManager.default.enumerator(atPath: sources.path))
        var long: [String] = []
        var checked = 0
        for case let relative as String in walker where relative.hasSuffix(".swift") || relative.hasSuffix(".c") {
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            checked += 1
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
            if lines > Self.lineLimit { long.append("Sources/\(relative) (\(lines) lines)") }
        }
        #expect(checked > 100, "only \(checked) files found under \(sources.path)")
        #expect(long.isEmpty, "over \(Self.lineLimit) lines, split by concept: \(long)")
    }

    @Test func benchmarksFuzzersAndToolsLiveOutsideSources() throws {
        let root = TestKitPaths.repositoryRoot
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        let misplaced = folders.filter { name in
            let n = name.lowercased()
            return n.contains("benchmark") || n.contains("fuzz") || n.contains("stress") || n.contains("demo") || n.contains("sim")
        }
        #expect(misplaced.isEmpty, "belong under Benchmarks/, Fuzz/ or Tools/: \(misplaced)")
        for folder in ["Benchmarks", "Fuzz", "Tools"] {
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(folder).path, isDirectory: &isDirectory) && isDirectory.boolValue,
                    "\(folder)/ is missing")
        }
    }
}
