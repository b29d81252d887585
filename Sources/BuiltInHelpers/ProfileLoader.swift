// SPDX-License-Identifier: Apache-2.0
import SystemSupport
import Connectivity
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore

/// The profiles found in a directory, and what was wrong with the rest.
public struct ProfileSet: Sendable {
    /// The usable profiles, indexed.
    public var index: ProfileIndex
    /// One message per refused file or broken profile, each naming the file and line and how to
    /// fix it. Never contains a secret.
    public var problems: [String]
    /// Doubts that do not stop a profile loading (a value that looks like it ends in a comment),
    /// each naming the file, line and key. Never contains a value.
    public var warnings: [String]

    /// An empty set.
    public init(index: ProfileIndex = ProfileIndex([]), problems: [String] = [], warnings: [String] = []) {
        self.index = index
        self.problems = problems
        self.warnings = warnings
    }
}

/// Reads profile files: key files (`KeyFile`, GLib's format) named `*.conf` in a directory, one
/// profile per group.
///
/// ```ini
/// [CityFree]
/// # or ssid-prefix=CityFree-
/// ssid=CityFree
/// # default: the group name
/// display-name=City Free Wi-Fi
/// # the Wi-Fi password (a secret)
/// password=…
/// # low or high
/// confidence=high
/// # none, click-through, form, wispr, capport
/// sign-in=click-through
/// # wispr: username= and user-password= (a secret)
/// # form: form-url=https://… (default: the portal page's form), form-field-NAME=VALUE (a secret)
/// # form and wispr: login-hosts=portal.example.net;*.example.org (the only hosts credentials go to)
/// # form and wispr: plain-http-login=true lets them go over plain http (a portal without https)
/// # capport: capport-url=https://…/api (the RFC 8908 API)
/// ```
/// Key files have no inline comments: `ssid=CityFree  # note` makes the SSID "CityFree  # note".
/// Such a value is loaded as written and reported in ``ProfileSet/warnings``.
/// Who may change a profile decides which network gets which password, so the directory and every
/// file must be owned by root (when the daemon runs as root) and not writable by group or others,
/// or they are refused with the reason and the fix; a file holding a secret must also be mode 0600.
/// A refused file contributes no profile, so it never shadows another: which profile wins an SSID
/// is decided among the files that were accepted (``ProfileIndex``: files in name order, the first
/// profile for an exact SSID or prefix wins, exact beats prefix, the longest prefix wins). A broken profile is reported with its file and line; the others still load.
/// Messages never quote the file's content (a broken line may hold a secret): they name the file,
/// the line and what is wrong. A file is opened without following a symbolic link and must be a
/// regular file of at most `maximumFileSize` bytes; a FIFO or device is refused without blocking.
public enum ProfileLoader {
    /// The keys a profile may have (besides `form-field-*`).
    public static let keys: Set<String> = ["ssid", "ssid-prefix", "display-name", "password", "confidence", "sign-in",
                                           "username", "user-password", "form-url", "capport-url", "login-hosts",
                                           "plain-http-login"]

    /// The largest profile file read.
    public static let maximumFileSize = 256 * 1024

    /// Loads every `*.conf` in `directory`, in name order. A missing directory is no profiles, and
    /// a warning naming it.
    public static func load(directory: String, requireRootOwner: Bool = geteuid() == 0) -> ProfileSet {
        if let refusal = directoryProblem(directory, requireRootOwner: requireRootOwner) {
            return ProfileSet(problems: [refusal])
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            var st = stat()
            guard stat(directory, &st) != 0, errno == ENOENT else { return ProfileSet() }
            return ProfileSet(warnings: ["profiles directory \(directory) does not exist, so no profile is loaded. "
                                         + "Fix: sudo install -d -m 755 \(directory), or set [daemon] profiles-dir= to where the profiles are"])
        }
        var profiles: [Profile] = []
        var problems: [String] = []
        var warnings: [String] = []
        for name in names.sorted() where name.hasSuffix(".conf") && !name.hasPrefix(".") {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let file = loadFile(path: path, requireRootOwner: requireRootOwner)
            profiles += file.profiles
            problems += file.problems
            warnings += file.warnings
        }
        let index = ProfileIndex(profiles)
        return ProfileSet(index: index, problems: problems + index.conflicts, warnings: warnings)
    }

    /// Loads one file: its profiles, the problems found, and the warnings (see
    /// ``ProfileSet/warnings``) about the file as read.
    public static func loadFile(path: String, requireRootOwner: Bool = geteuid() == 0) -> (profiles: [Profile], problems: [String], warnings: [String]) {
        let contents: RegularFile.Contents
        do {
            guard let c = try RegularFile.contents(path, maximumSize: maximumFileSize) else {
                return ([], ["profile \(path): it is gone (removed while the directory was read); it is skipped"], [])
            }
            contents = c
        } catch {
            return ([], ["profile refused: \(error.message); it is skipped"], [])
        }
        return load(bytes: contents.bytes, mode: contents.mode, owner: contents.owner, path: path, requireRootOwner: requireRootOwner)
    }

    /// ``loadFile(path:requireRootOwner:)`` once the file is read: its `bytes`, with the permission
    /// bits and owner its `stat` gave (the fuzzer calls it with bytes alone, no file written).
    public static func load(bytes: [UInt8], mode: UInt32, owner: UInt32, path: String,
                            requireRootOwner: Bool) -> (profiles: [Profile], problems: [String], warnings: [String]) {
        // Before the content is read: what someone other than root could change does not count.
        if let refusal = ownershipProblem(path: path, mode: mode, owner: owner, requireRootOwner: requireRootOwner) {
            return ([], [refusal], [])
        }
        // Read as text (bytes that are not UTF-8 become U+FFFD), as GKeyFile was given it.
        let file: KeyFile
        let text = Array(String(decoding: bytes, as: UTF8.self).utf8)
        do { file = try KeyFile(parsing: text) } catch {
            // Where and what, never the line itself (it may hold a secret); every such line at once.
            let all = KeyFile.diagnosing(text).problems.map(\.description).joined(separator: "; ")
            return ([], ["profile \(path): \(all.isEmpty ? "\(error)" : all); the whole file is skipped. Each profile is a [group] followed by key=value lines"], [])
        }
        var profiles: [Profile] = []
        var problems: [String] = []
        var secrets: [String] = []
        for group in file.groups {
            let keys = file.keys(in: group).filter { !KeyFile.isTranslation($0) }
            switch parse(group: group, keys: keys, value: { file.string($0, in: group) }, path: path, file: file) {
            case .success(let p):
                profiles.append(p)
                if p.password != nil { secrets.append("[\(group)] password") }
                switch p.signIn {
                case .wispr: secrets.append("[\(group)] user-password")
                case .form(_, let fields, _) where !fields.isEmpty: secrets.append("[\(group)] form fields")
                default: break
                }
                switch p.signIn {
                case .wispr(_, nil), .form(_, _, nil):
                    problems.append("profile \(p.location): [\(group)] has sign-in credentials but no login-hosts=, so it sends them nowhere "
                                    + "and its sign-in is left to the user. Fix: add login-hosts= naming the portal's sign-in hosts, "
                                    + "e.g. login-hosts=portal.example.net;*.example.org")
                default: break
                }
            case .failure(let problem):
                problems.append(problem.message)
                if keys.contains(where: { $0 == "password" || $0 == "user-password" || $0.hasPrefix("form-field-") }) {
                    secrets.append("[\(group)]")
                }
            }
        }
        let warnings = InlineComments.warnings(in: file, name: "profile \(path)")
        if !secrets.isEmpty, let refusal = permissionProblem(path: path, mode: mode, owner: owner, secrets: secrets,
                                                             requireRootOwner: requireRootOwner) {
            return ([], [refusal], warnings)
        }
        return (profiles, problems, warnings)
    }

    /// Why the profiles directory may not be trusted (owned by another user than root when the
    /// daemon runs as root, or writable by group or others: whoever can write it can add a profile
    /// or replace root's), or nil. A directory that does not exist holds no profiles.
    static func directoryProblem(_ directory: String, requireRootOwner: Bool) -> String? {
        var st = stat()
        guard stat(directory, &st) == 0 else { return nil }
        let mode = UInt32(st.st_mode) & 0o7777
        guard UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFDIR) else {
            return "profiles directory \(directory) is not a directory; no profile is loaded. Fix: make it a directory owned by root, mode 755"
        }
        if requireRootOwner && st.st_uid != 0 {
            return "profiles directory \(directory) is owned by uid \(st.st_uid), not root, so that user could add or replace profiles; "
                + "every profile in it is REFUSED. Fix: chown root:root \(directory)"
        }
        if mode & 0o022 != 0 {
            return "profiles directory \(directory) is mode \(String(mode & 0o777, radix: 8).leftPadded(to: 4)), writable by group or others, "
                + "so they could add or replace profiles; every profile in it is REFUSED. Fix: chmod go-w \(directory)"
        }
        return nil
    }

    /// Why a profile file may not be used whatever it holds (owned by another user than root when
    /// the daemon runs as root, or writable by group or others), or nil.
    static func ownershipProblem(path: String, mode fileMode: UInt32, owner: UInt32, requireRootOwner: Bool) -> String? {
        let mode = fileMode & 0o777
        if requireRootOwner && owner != 0 {
            return "profile \(path): is owned by uid \(owner), not root, so that user could change which networks it names; it is REFUSED. "
                + "Fix: chown root:root \(path)"
        }
        if mode & 0o022 != 0 {
            return "profile \(path): is mode \(String(mode, radix: 8).leftPadded(to: 4)), writable by group or others; it is REFUSED. "
                + "Fix: chmod go-w \(path)"
        }
        return nil
    }

    /// Why a file holding secrets may not be used, or nil when its owner and mode are safe.
    /// `mode` and `owner` are those of the file that was read.
    static func permissionProblem(path: String, mode fileMode: UInt32, owner: UInt32, secrets: [String], requireRootOwner: Bool) -> String? {
        let mode = fileMode & 0o777
        let holds = "holds secrets (\(secrets.prefix(3).joined(separator: ", ")))"
        if mode & 0o077 != 0 {
            return "profile \(path): \(holds) but is mode \(String(mode, radix: 8, uppercase: false).leftPadded(to: 4)), readable by others; it is REFUSED. Fix: chmod 600 \(path)"
        }
        if requireRootOwner && owner != 0 {
            return "profile \(path): \(holds) but is owned by uid \(owner), not root; it is REFUSED. Fix: chown root:root \(path)"
        }
        return nil
    }

    struct Problem: Error { var message: String }

    static func parse(group: String, keys: [String], value: (String) -> String?, path: String, file: KeyFile) -> Result<Profile, Problem> {
        let groupLine = file.line(ofGroup: group) ?? 1
        func fail(_ key: String?, _ what: String) -> Result<Profile, Problem> {
            let line = key.flatMap { file.line(ofKey: $0, in: group) } ?? groupLine
            return .failure(Problem(message: "profile \(path) line \(line): [\(group)] \(what); this profile is skipped"))
        }
        // Every unknown key of the profile at once, by line (a key is not quoted: a mistyped line
        // may hold a secret), each with the key it most likely meant.
        let unknown = keys.filter { !Self.keys.contains($0) && !$0.hasPrefix("form-field-") }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if let first = unknown.first {
            let known = (Self.keys.sorted() + ["form-field-NAME"]).joined(separator: ", ")
            func hint(_ key: String) -> String { Suggestion.didYouMean(key, among: Self.keys.sorted(), format: { "'\($0)'" }) }
            let more = unknown.dropFirst().map { key in "another on line \(file.line(ofKey: key, in: group) ?? groupLine)\(hint(key))" }
            return fail(first, "has an unknown key\(hint(first))" + (more.isEmpty ? "" : ", and \(more.joined(separator: ", "))") + " (the keys are: \(known))")
        }
        let ssid = value("ssid")
        let prefix = value("ssid-prefix")
        let match: SSIDMatch
        switch (ssid, prefix) {
        case (let s?, nil):
            guard !s.isEmpty, s.utf8.count <= 32 else { return fail("ssid", "ssid= must have 1 to 32 bytes; it has \(s.utf8.count)") }
            match = .exact(SSID(s))
        case (nil, let p?):
            guard !p.isEmpty, p.utf8.count <= 32 else { return fail("ssid-prefix", "ssid-prefix= must have 1 to 32 bytes; it has \(p.utf8.count)") }
            match = .prefix(Array(p.utf8))
        case (.some, .some):
            return fail("ssid-prefix", "has both ssid= and ssid-prefix=; keep one")
        case (nil, nil):
            return fail(nil, "has neither ssid= nor ssid-prefix=; add one")
        }
        var confidence = Confidence.high
        if let c = value("confidence") {
            guard let parsed = Confidence(rawValue: c), parsed != .none else {
                return fail("confidence", "confidence= is neither low nor high")
            }
            confidence = parsed
        }
        let displayName = value("display-name") ?? group
        // The bound helpers' answers are held to (WireResponse.displayNameBound).
        let nameBound = TextBound(scalars: 64)
        guard !displayName.isEmpty, nameBound.admits(displayName), UntrustedText.isPlain(displayName) else {
            return fail("display-name", "display-name must be 1 to 64 characters (\(nameBound)), without control or format characters")
        }
        var password: Password?
        if let p = value("password") {
            guard (8...63).contains(p.utf8.count) || (p.utf8.count == 64 && p.allSatisfy(\.isHexDigit)) else {
                return fail("password", "password must be 8 to 63 characters (or 64 hex digits), as WPA requires; it has \(p.utf8.count)")
            }
            password = Password(p)
        }
        var loginHosts: LoginHosts?
        if let text = value("login-hosts") {
            do { loginHosts = try LoginHosts(parsing: text) } catch { return fail("login-hosts", "login-hosts= \(error.message)") }
        }
        let methodName = value("sign-in") ?? "none"
        let method: SignInMethod
        switch methodName {
        case "none":
            method = .none
        case "click-through":
            method = .clickThrough
        case "form":
            let fields = keys.filter { $0.hasPrefix("form-field-") }.map {
                FormField(name: String($0.dropFirst("form-field-".count)), value: value($0) ?? "")
            }
            guard !fields.isEmpty else { return fail("sign-in", "sign-in=form needs at least one form-field-NAME=VALUE") }
            guard fields.allSatisfy({ !$0.name.isEmpty }) else { return fail(nil, "form-field- needs a field name after the dash") }
            let url = value("form-url")
            if let url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                return fail("form-url", "form-url= must be an http or https URL")
            }
            method = .form(url: url, fields: fields, loginHosts: loginHosts)
        case "wispr":
            guard let user = value("username"), !user.isEmpty else { return fail("sign-in", "sign-in=wispr needs username=") }
            guard let pass = value("user-password"), !pass.isEmpty else { return fail("sign-in", "sign-in=wispr needs user-password=") }
            method = .wispr(WISPrCredentials(username: user, password: pass), loginHosts: loginHosts)
        case "capport":
            guard let url = value("capport-url") else { return fail("sign-in", "sign-in=capport needs capport-url= (the RFC 8908 API URI)") }
            guard url.hasPrefix("https://") else { return fail("capport-url", "capport-url= must be an https URL (RFC 8908)") }
            method = .capport(apiURL: url)
        default:
            return fail("sign-in", "sign-in= names an unknown method (expected: \(SignInMethod.names.joined(separator: ", ")))"
                        + Suggestion.didYouMean(methodName, among: SignInMethod.names, format: { "sign-in=\($0)" }))
        }
        var plainHTTPLogin = false
        if let v = value("plain-http-login") {
            switch v.lowercased() {
            case "true", "yes", "1": plainHTTPLogin = true
            case "false", "no", "0": plainHTTPLogin = false
            default: return fail("plain-http-login", "plain-http-login= must be true or false")
            }
            if !method.sendsCredentials {
                return fail("plain-http-login", "plain-http-login= is used only with sign-in=form or sign-in=wispr (a terms page needs no opt-in)")
            }
        }
        if loginHosts != nil && !method.sendsCredentials {
            return fail("login-hosts", "login-hosts= is used only with sign-in=form or sign-in=wispr")
        }
        if method.name != "wispr", keys.contains("user-password") || keys.contains("username"), method.name != "form" {
            return fail(keys.contains("user-password") ? "user-password" : "username", "username/user-password are used only with sign-in=wispr")
        }
        return .success(Profile(name: group, file: path, line: groupLine, match: match, displayName: displayName,
                                password: password, confidence: confidence, signIn: method, plainHTTPLogin: plainHTTPLogin))
    }
}

/// A key file keeps everything after `=` (but leading blanks) as the value: a comment
/// must be on a line of its own. A value with blank-then-`#` in it was most likely meant as
/// `value  # comment`; these warnings say where, without quoting the value (it may be a password).
public enum InlineComments {
    /// One warning per `key=value` line of `file` whose value, as written, has a blank followed
    /// by `#`, naming `name`, the line, the group and the key.
    public static func warnings(in file: KeyFile, name: String) -> [String] {
        file.assignments.compactMap { a in
            let blankHash = zip(a.rawValue, a.rawValue.dropFirst()).contains {
                ($0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t")) && $1 == UInt8(ascii: "#")
            }
            guard blankHash else { return nil }
            return "\(name) line \(a.line): [\(a.group)] \(a.key): the value contains ' #', which a key file keeps as part of the value "
                + "(there are no inline comments); if it is meant as a comment, move it to a line of its own starting with #"
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
