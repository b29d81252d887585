// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Foundation
import HotspotCore
import HotspotTesting
import Testing

/// profiles.d is read without following a link someone planted (a profile that is
/// a symlink to a file the daemon can read and the planter cannot) and without blocking on a FIFO.
@Suite struct PlantedProfileFileTests {
    @Test func aSymlinkedProfileIsRefusedAndTheOthersLoad() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let target = try d.write("real.txt", "[Linked]\nssid=Linked\npassword=linked-secret-1\n")
        let link = d.url.appendingPathComponent("linked.conf").path
        #expect(symlink(target, link) == 0)
        try d.write("good.conf", "[Good]\nssid=Good\n")
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.index.profile(for: SSID("Linked")) == nil)
        #expect(set.index.profile(for: SSID("Good")) != nil)
        #expect(set.problems == ["profile refused: \(link) is a symbolic link, which is not followed; replace it with a regular file; it is skipped"],
                "\(set.problems)")
    }

    @Test func aFIFOProfileIsRefusedWithoutBlockingStartUp() async throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let fifo = d.url.appendingPathComponent("fifo.conf").path
        #expect(mkfifo(fifo, 0o600) == 0)
        try d.write("good.conf", "[Good]\nssid=Good\n")
        let path = d.path
        // Loaded on a thread of its own, so a blocked open fails this test instead of hanging it.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var set = ProfileSet()
        Thread { set = ProfileLoader.load(directory: path, requireRootOwner: false); done.signal() }.start()
        let finished = done.wait(timeout: .now() + 5) == .success
        if !finished {
            // Unblock the reader so the thread ends.
            let w = open(fifo, O_WRONLY | O_NONBLOCK)
            if w >= 0 { close(w) }
            _ = done.wait(timeout: .now() + 5)
        }
        #expect(finished, "loading profiles.d blocked on a FIFO")
        #expect(set.index.profile(for: SSID("Good")) != nil)
        #expect(set.problems == ["profile refused: \(fifo) is not a regular file; move it aside and put a regular file there; it is skipped"],
                "\(set.problems)")
    }

    @Test func anOversizedProfileIsRefused() throws {
        let d = try ProfilesDirectory()
        defer { d.remove() }
        let big = try d.write("big.conf", "[Big]\nssid=Big\n" + String(repeating: "# padding\n", count: ProfileLoader.maximumFileSize / 10 + 1))
        let set = ProfileLoader.load(directory: d.path, requireRootOwner: false)
        #expect(set.index.profile(for: SSID("Big")) == nil)
        #expect(set.problems.first?.hasPrefix("profile refused: \(big) is ") == true, "\(set.problems)")
    }
}
