// SPDX-License-Identifier: Apache-2.0
import Foundation
import HotspotCore
@testable import HotspotDaemon
import HotspotTesting
import Testing

/// Links planted in the state directory, files that are not regular, a
/// state file from a newer version, and configuration lines that would be copied into the log.
@Suite struct HostileFileTests {
    let scratch: ScratchDirectory
    var root: String { scratch.path }

    init() throws {
        scratch = try ScratchDirectory("hostile")
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func symlinkPlantedAtTheTemporaryNameDoesNotRedirectTheSave() throws {
        let victim = root + "/passwd"
        try write("root:x:0:0\n", to: victim)
        let store = StateFile(directory: root + "/state")
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: store.directory + "/.state.\(getpid()).tmp", withDestinationPath: victim)
        try store.saveState(PersistentState())
        #expect(read(victim) == "root:x:0:0\n", "the save wrote through a planted link")
        #expect(read(store.path)?.hasPrefix("hotspot-helper-state") == true)
    }

    @Test func stateFileThatIsASymlinkIsNeitherFollowedNorOverwritten() throws {
        let elsewhere = root + "/elsewhere"
        try write("hotspot-helper-state 1\nnetwork 43616665 open not-captive\n", to: elsewhere)
        let store = StateFile(directory: root + "/state")
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: store.path, withDestinationPath: elsewhere)
        #expect(throws: StateFileError.self) { try store.load() }
        let restored = store.restore()
        #expect(!restored.persisting)
        #expect(restored.state.cache.entries.isEmpty)
        #expect(restored.notes.contains { $0.contains("symbolic link") }, "\(restored.notes)")
    }

    @Test func stateFileThatIsAFifoIsRefusedWithoutBlocking() throws {
        let store = StateFile(directory: root + "/state")
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        #expect(mkfifo(store.path, 0o600) == 0)
        let restored = store.restore()
        #expect(!restored.persisting)
        #expect(restored.notes.contains { $0.contains("not a regular file") }, "\(restored.notes)")
    }

    @Test func stateFileFromANewerVersionIsLeftUntouchedAndNothingIsSaved() throws {
        let store = StateFile(directory: root + "/state")
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        let newer = "hotspot-helper-state 2\nnetwork 43616665 open helper future-field\n"
        try write(newer, to: store.path)
        let restored = store.restore()
        #expect(!restored.persisting, "the daemon would overwrite a newer version's file")
        #expect(restored.notes.contains { $0.contains("left untouched") && $0.contains("version 2") }, "\(restored.notes)")
        #expect(read(store.path) == newer)
    }

    @Test func damagedStateLinesAreLoggedByNumberNotContent() throws {
        let store = StateFile(directory: root + "/state")
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        try write("hotspot-helper-state 1\nnetwork SECRET\u{1B}[2J wpa9\n", to: store.path)
        let restored = store.restore()
        #expect(restored.persisting)
        #expect(restored.notes.count == 1)
        #expect(restored.notes.allSatisfy { !$0.contains("SECRET") && !$0.contains("\u{1B}") }, "\(restored.notes)")
        #expect(restored.notes.first?.contains("line 2") == true)
    }

    @Test func malformedConfigurationLineIsReportedByNumberNotContent() throws {
        let path = root + "/hotspot-helperd.conf"
        try write("[daemon]\ncommand-timeout=5\nSECRET-password-hunter2 with no equals sign\n", to: path)
        do {
            _ = try DaemonConfiguration.load(path: path)
            Issue.record("a malformed line was accepted")
        } catch {
            #expect(!error.message.contains("hunter2"), "\(error.message)")
            #expect(error.message.contains("hotspot-helperd.conf:3: "), "\(error.message)")
        }
        try write("[daemon]\n\nstate-dir=relative/SECRET\n", to: path)
        do {
            _ = try DaemonConfiguration.load(path: path)
            Issue.record("a relative state-dir was accepted")
        } catch {
            #expect(!error.message.contains("SECRET"), "\(error.message)")
            #expect(error.message.contains("hotspot-helperd.conf:3: ") && error.message.contains("state-dir"), "\(error.message)")
        }
    }

    @Test func configurationThatIsASymlinkIsRefused() throws {
        let real = root + "/real.conf"
        try write("[daemon]\ncommand-timeout=5\n", to: real)
        try FileManager.default.createSymbolicLink(atPath: root + "/link.conf", withDestinationPath: real)
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration.load(path: root + "/link.conf") }
        #expect(try DaemonConfiguration.load(path: real).commandTimeout == .seconds(5))
    }
}

/// The daemon's memory (passwords) cannot be read from a core dump or by
/// another process of its uid attaching to it.
@Suite struct ProcessHardeningTests {
    @Test func passwordsInMemoryCannotBeDumpedOrTraced() {
        #expect(ProcessHardening.apply() == nil)
        #expect(!ProcessHardening.isDumpable)
    }
}
