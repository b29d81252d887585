import CGLib
import Foundation
import HotspotCore

/// The daemon's configuration: a GLib keyfile, NetworkManager's own format.
///
/// ```ini
/// [daemon]
/// state-dir=/var/lib/hotspot-helper
/// command-timeout=45
/// maintain-interval=300
/// filter-interval=5
/// ```
/// Durations are seconds and may have decimals (tests run with fractions of a second).
public struct DaemonConfiguration: Sendable, Equatable {
    public var stateDirectory: String = "/var/lib/hotspot-helper"
    public var commandTimeout: Duration = .seconds(45)
    public var maintainInterval: Duration = .seconds(300)
    public var filterInterval: Duration = .seconds(5)
    /// Keys the daemon did not recognise, for a warning (`group.key`).
    public var unknownKeys: [String] = []

    public init() {}

    /// The core's timings.
    public var core: HotspotConfiguration {
        HotspotConfiguration(maintainInterval: maintainInterval, commandDeadline: commandTimeout, filterScanListInterval: filterInterval)
    }

    /// Reads `path`. Errors name the file, the key and what is wrong.
    public static func load(path: String) throws(ConfigurationError) -> DaemonConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the file (\(String(cString: strerror(errno))))")
        }
        return try parse([UInt8](data), path: path)
    }

    /// Parses keyfile text; `path` names it in errors.
    public static func parse(_ bytes: [UInt8], path: String) throws(ConfigurationError) -> DaemonConfiguration {
        let file = g_key_file_new()
        defer { g_key_file_free(file) }
        var error: UnsafeMutablePointer<GError>? = nil
        let loaded = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { g_key_file_load_from_data(file, $0.baseAddress, gsize(buf.count), G_KEY_FILE_NONE, &error) }
        }
        guard loaded != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unreadable"
            g_error_free(error)
            throw ConfigurationError("\(path): \(message)")
        }
        var config = DaemonConfiguration()
        let known: Set<String> = ["state-dir", "command-timeout", "maintain-interval", "filter-interval"]
        for group in strings(g_key_file_get_groups(file, nil)) {
            for key in strings(g_key_file_get_keys(file, group, nil, nil)) where group != "daemon" || !known.contains(key) {
                config.unknownKeys.append("\(group).\(key)")
            }
        }
        func text(_ key: String) -> String? {
            guard let raw = g_key_file_get_string(file, "daemon", key, nil) else { return nil }
            defer { g_free(raw) }
            return String(cString: raw).trimmingCharacters(in: .whitespaces)
        }
        func seconds(_ key: String) throws(ConfigurationError) -> Duration? {
            guard let t = text(key) else { return nil }
            guard let v = Double(t), v.isFinite, v > 0, v < 31_536_000 else {
                throw ConfigurationError("\(path): [daemon] \(key)=\(t) is not a number of seconds greater than 0 (decimals allowed, e.g. \(key)=0.5)")
            }
            return .milliseconds(Int64((v * 1000).rounded()))
        }
        if let dir = text("state-dir") {
            guard dir.hasPrefix("/") else { throw ConfigurationError("\(path): [daemon] state-dir=\(dir) must be an absolute path") }
            config.stateDirectory = dir
        }
        if let v = try seconds("command-timeout") { config.commandTimeout = v }
        if let v = try seconds("maintain-interval") { config.maintainInterval = v }
        if let v = try seconds("filter-interval") { config.filterInterval = v }
        return config
    }

    private static func strings(_ list: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let list else { return [] }
        defer { g_strfreev(list) }
        var out: [String] = []
        var i = 0
        while let s = list[i] { out.append(String(cString: s)); i += 1 }
        return out
    }
}

public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
