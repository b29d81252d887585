// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore
import SystemSupport

/// A sign-in the user asked the daemon to remember: for the network with this SSID, the form
/// that posts to `host` with these visible fields, the values typed. Its values are secrets: the
/// description never shows them.
public struct RememberedSignIn: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The SSID's bytes, hex-encoded (SSIDs are bytes, not text).
    public var ssidHex: String
    /// The host the form posts to, lower case.
    public var host: String
    /// "https" or "http".
    public var scheme: String
    /// The visible fields' names in page order.
    public var fields: [String]
    /// Field name → value (an unticked checkbox has none).
    public var values: [String: String]
    /// The user accepted plain http for this network.
    public var allowPlainHTTP: Bool
    /// CLOCK_REALTIME seconds when it was saved.
    public var saved: UInt64

    public init(ssid: SSID, host: String, scheme: String, fields: [String], values: [String: String], allowPlainHTTP: Bool, saved: UInt64) {
        self.ssidHex = RememberedSignIns.hex(ssid.bytes)
        self.host = host
        self.scheme = scheme
        self.fields = fields
        self.values = values
        self.allowPlainHTTP = allowPlainHTTP
        self.saved = saved
    }

    public var ssid: SSID { SSID(bytes: RememberedSignIns.unhex(ssidHex) ?? []) }

    public var description: String {
        "remembered sign-in for \(ssid.displayForm): \(scheme)://\(UntrustedText.forLog(host)) fields \(UntrustedText.forLog(fields.joined(separator: ",")))"
    }
}

/// The remembered sign-ins: one root-only (0600) file per network in a directory of the daemon's
/// state directory (0700), each written to a temporary file, synced and renamed, as the state
/// file is. Files are read when used (a join, a listing), so nothing is cached that a restart or
/// a `ForgetNetwork` could leave stale.
public struct RememberedSignIns: Sendable {
    public let directory: String
    /// The largest file read.
    public static let maximumSize = 64 * 1024

    /// The store in `stateDirectory`/sign-ins.
    public init(stateDirectory: String) { self.directory = stateDirectory + "/sign-ins" }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    static func unhex(_ s: String) -> [UInt8]? {
        let chars = Array(s.utf8)
        guard chars.count % 2 == 0, chars.count <= 64 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            default: nil
            }
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: chars.count, by: 2) {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    func path(_ ssid: SSID) -> String { directory + "/" + Self.hex(ssid.bytes) + ".json" }

    /// The sign-in remembered for `ssid`, or nil (none, or a file that cannot be used: the reason
    /// goes to `problem`).
    public func load(_ ssid: SSID, problem: (String) -> Void = { _ in }) -> RememberedSignIn? {
        let p = path(ssid)
        do {
            guard let c = try RegularFile.contents(p, maximumSize: Self.maximumSize) else { return nil }
            if c.mode & 0o077 != 0 || (geteuid() == 0 && c.owner != 0) {
                problem("\(p) is mode \(String(c.mode, radix: 8)) owned by uid \(c.owner); a remembered sign-in must be root's, mode 0600; it is not used")
                return nil
            }
            let r = try JSONDecoder().decode(RememberedSignIn.self, from: Data(c.bytes))
            guard r.ssid == ssid else { return nil }
            return r
        } catch let e as RegularFileError {
            problem(e.message)
        } catch {
            problem("\(p) is not a remembered sign-in the daemon wrote; it is not used (remove it, or forget the network)")
        }
        return nil
    }

    /// Every remembered sign-in, by SSID order.
    public func all() -> [RememberedSignIn] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var ssids: [SSID] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(".json"), let bytes = Self.unhex(String(name.dropLast(5))), !bytes.isEmpty else { continue }
            ssids.append(SSID(bytes: bytes))
        }
        return ssids.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.compactMap { load($0) }
    }

    /// Saves `r` (replacing what was remembered for its network).
    public func save(_ r: RememberedSignIn) throws {
        let bytes = [UInt8](try JSONEncoder().encode(r))
        let final = Self.hex(r.ssid.bytes) + ".json"
        do {
            try AtomicFile.makeDirectories(directory)
            try AtomicFile.replace(final, in: directory, with: bytes)
        } catch {
            switch error.step {
            case .makeDirectory: throw RememberedSignInError("cannot create \(error.path): \(error.reason)")
            case .openDirectory: throw RememberedSignInError("cannot open \(error.path): \(error.reason)")
            case .write, .replace: throw RememberedSignInError("cannot write \(directory)/\(final): \(error.reason)")
            }
        }
    }

    /// Forgets the sign-in remembered for `ssid`; true when there was one.
    @discardableResult
    public func forget(_ ssid: SSID) -> Bool { unlink(path(ssid)) == 0 }
}

public struct RememberedSignInError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}
