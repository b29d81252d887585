// SPDX-License-Identifier: Apache-2.0
import Foundation
import HotspotTesting
import Testing

/// Sources/CLazyLibraries/lazy.c when the library it opens on first use is not there: its
/// functions fail, and the reason names each soname tried, dlopen's own words and the package to
/// install. Run on the real file, compiled with AddressSanitizer into a small program, in a mount
/// namespace of the test's own where every libxml2 soname is an empty file (a machine without the
/// package): glibc frees dlerror()'s text at the next dlopen, and a reason read after the second
/// soname's attempt was freed memory.
@Suite(.enabled(if: TestEnvironment.isRoot, "needs root (a mount namespace hides libxml2)"))
struct LazyLibraryTests {
    static let program = """
        #include <stdio.h>
        #include <libxml/HTMLparser.h>
        #include "CLazyLibraries.h"
        int main(void) {
            htmlDocPtr doc = htmlReadMemory("<p>x</p>", 8, NULL, NULL, 0);
            const char *why = hh_xml_load_error();
            printf("doc=%s why=%s\\n", doc ? "read" : "none", why ? why : "(none)");
            return 0;
        }
        """

    @Test func withoutLibxml2ThePagesAreNotReadAndTheReasonSaysWhatToInstall() async throws {
        let scratch = try ScratchDirectory("lazy")
        let lazy = TestKitPaths.repositoryRoot.appendingPathComponent("Sources/CLazyLibraries")
        let source = scratch.appendingPathComponent("main.c"), binary = scratch.appendingPathComponent("main")
        try Self.program.write(to: source, atomically: false, encoding: .utf8)
        let compiled = try await ManagedProcess.run("/bin/sh", ["-c", """
            exec clang -g -fsanitize=address -I"$1/include" $(pkg-config --cflags libxml-2.0 libcurl) -o "$2" "$3" "$1/lazy.c" -ldl -lpthread
            """, "sh", lazy.path, binary.path, source.path], timeout: .seconds(300))
        try #require(compiled.status == 0, "clang failed:\n\(compiled.stderr.suffix(3000))")

        // Every libxml2 the loader could find is an empty file in this namespace alone.
        let libraries = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/x86_64-linux-gnu")
            .filter { $0.hasPrefix("libxml2.so.") }.map { "/usr/lib/x86_64-linux-gnu/\($0)" }
        try #require(!libraries.isEmpty, "no libxml2 in /usr/lib/x86_64-linux-gnu")
        let empty = scratch.appendingPathComponent("empty")
        try Data().write(to: empty)
        let masks = libraries.map { "mount --bind '\(empty.path)' '\($0)'" }.joined(separator: " && ")
        let run = try await ManagedProcess.run("/usr/bin/unshare", ["-m", "/bin/sh", "-c", "\(masks) && exec '\(binary.path)'"],
                                               environment: ["ASAN_OPTIONS": "detect_leaks=0"], timeout: .seconds(120))
        #expect(run.status == 0 && !run.stderr.contains("AddressSanitizer"), "status \(run.status):\n\(run.stderr.suffix(3000))")
        #expect(run.stdout.contains("doc=none"), "\(run.stdout)")
        #expect(run.stdout.contains("why=libxml2.so.16 or libxml2.so.2 could not be loaded (libxml2.so.16: "),
                "\(run.stdout)")
        #expect(run.stdout.contains("install the libxml2-16 (or libxml2) package"), "\(run.stdout)")

        // The control: with the library there, the same program reads the page.
        let control = try await ManagedProcess.run(binary.path, [], environment: ["ASAN_OPTIONS": "detect_leaks=0"], timeout: .seconds(120))
        #expect(control.stdout.contains("doc=read why=(none)"), "\(control.stdout)\(control.stderr.suffix(2000))")
    }
}
