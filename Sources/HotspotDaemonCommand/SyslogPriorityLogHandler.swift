// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import ProgramSupport

/// A swift-log handler for a program whose stderr is the systemd journal: each line starts with
/// the syslog priority journald reads (`<3>` for error, sd-daemon(3)'s SD_ERR), then the
/// message and its metadata. No timestamp or level word: the journal records both.
struct SyslogPriorityLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// swift-log's levels as syslog priorities (RFC 5424 severities).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// One line: `<N>message key=value…`; a message with newlines becomes several lines, each
    /// with the priority, so no part of it lands in the journal at the default level.
    static func format(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        let tail = metadata.isEmpty ? "" : " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let prefix = "<\(priority(level))>"
        return (message + tail).split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n")
    }

    func log(event: LogEvent) {
        StandardError.writeLine(Self.format(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}

/// systemd's `JOURNAL_STREAM=DEVICE:INODE`: set when stdout or stderr is connected to the
/// journal; stderr is the journal when its device and inode match (systemd.exec(5)).
enum JournalStream {
    static func isStandardError(environment value: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var s = stat()
        guard fstat(2, &s) == 0 else { return false }
        return UInt64(s.st_dev) == device && UInt64(s.st_ino) == inode
    }
}
