// SPDX-License-Identifier: Apache-2.0
import DBus
import BuiltInHelpers
import HotspotCore
import HotspotProtocol

/// A RegisterHelper call's options, checked before polkit is asked: who the
/// helper says it is, why it wants to see networks, and which user asks.
struct HelperRegistrationRequest: Sendable {
    var displayName: String
    var identifier: HelperID
    var commands: Set<CommandType>
    /// Why the helper wants to see Wi-Fi networks; required for callers other than root.
    var purpose: String?
    /// The caller's uid (nil when the bus would not say).
    var uid: UInt32?
    /// Whether the helper takes its commands on a channel of its own, handed out with the
    /// registration (the option CommandChannel).
    var wantsChannel = false

    static let maximumDisplayNameLength = 64
    static let maximumIdentifierLength = 255
    static let maximumPurposeLength = 200
    /// Bounds in Unicode scalars and bytes, never grapheme clusters (which hold any number of
    /// scalars: one letter and 3,000 combining marks is one `Character`).
    static let displayNameBound = TextBound(scalars: maximumDisplayNameLength)
    static let purposeBound = TextBound(scalars: maximumPurposeLength)
    /// The built-in helpers' display names, which no helper on the bus may take in any spelling a
    /// person would read as the same (`NameFolding`): a helper named "Known Networks" would pass for
    /// the daemon's own in `hotspotctl`, the shell and polkit's dialog.
    static let reservedDisplayNames = [ProfileHelper.options.displayName, PortalHelper.options.displayName]
    /// The core's rule on display names (``HelperAdmission/refusesDisplayName(_:)``).
    static let admission = HelperAdmission(builtInDisplayNames: reservedDisplayNames)

    /// Parses and bounds `options`.
    init(options: [String: DBusValue], uid: UInt32?) throws(HotspotError) {
        guard let display = options["DisplayName"]?.string, !display.isEmpty else {
            throw HotspotError(.invalidArgs, "RegisterHelper needs the option DisplayName (a non-empty string)")
        }
        guard Self.displayNameBound.admits(display) else {
            throw HotspotError(.invalidArgs, "DisplayName has \(Self.displayNameBound.measure(display)); keep it to about 15 characters "
                               + "(\(Self.displayNameBound))")
        }
        if let refusal = Self.admission.refusesDisplayName(display) { throw HotspotError(refusal) }
        try Self.refuseControlCharacters(display, option: "DisplayName")
        let identifier = options["Identifier"]?.string ?? display
        guard !identifier.isEmpty, identifier.utf8.count <= Self.maximumIdentifierLength else {
            throw HotspotError(.invalidArgs, "Identifier must be 1 to \(Self.maximumIdentifierLength) bytes")
        }
        try Self.refuseControlCharacters(identifier, option: "Identifier")
        // The built-in helpers run in the daemon and never register over the bus.
        if let refusal = HelperAdmission.refusesIdentifier(HelperID(identifier)) { throw HotspotError(refusal) }
        var commands = Set(CommandType.allCases)
        if let list = options["Commands"] {
            guard let names = list.strings, list.arrayItems?.count == names.count else {
                throw HotspotError(.invalidArgs, "Commands must be a list of strings (as)")
            }
            var parsed = Set<CommandType>()
            for n in names {
                guard let c = CommandType(rawValue: n) else {
                    throw HotspotError(.invalidArgs, "unknown command '\(UntrustedText.forLog(n, limit: 40))' in Commands (expected: \(CommandType.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                parsed.insert(c)
            }
            commands = parsed
        }
        var wantsChannel = false
        if let value = options["CommandChannel"] {
            guard case .bool(let wanted) = value else {
                throw HotspotError(.invalidArgs, "CommandChannel must be a boolean (b)")
            }
            wantsChannel = wanted
        }
        var purpose: String?
        if let value = options["Purpose"] {
            guard let text = value.string, !text.isEmpty, Self.purposeBound.admits(text) else {
                throw HotspotError(.invalidArgs, "Purpose must be a non-empty string of \(Self.purposeBound); "
                                   + "it has \(Self.purposeBound.measure(value.string ?? "")). Say in one sentence why the helper wants to see Wi-Fi networks")
            }
            try Self.refuseControlCharacters(text, option: "Purpose")
            purpose = text
        } else if uid != 0 {
            throw HotspotError(.invalidArgs, "RegisterHelper needs the option Purpose: one sentence saying why this helper wants to see "
                               + "Wi-Fi networks, shown to the person asked to allow it (HotspotHelperOptions.purpose, --purpose)")
        }
        self.displayName = display
        self.identifier = HelperID(identifier)
        self.commands = commands
        self.purpose = purpose
        self.uid = uid
        self.wantsChannel = wantsChannel
    }

    /// polkit's details: the dialog says who asks and why (`polkit.message`), and the action's
    /// own message may use `$(display-name)` and `$(purpose)`.
    var polkitDetails: [String: String] {
        var d = ["display-name": displayName, "identifier": identifier.rawValue]
        if let purpose { d["purpose"] = purpose }
        d["polkit.message"] = "The hotspot helper “\(displayName)” wants to see the Wi-Fi networks around you and sign in to them"
            + (purpose.map { ": \($0)" } ?? ".")
        return d
    }

    private static func refuseControlCharacters(_ text: String, option: String) throws(HotspotError) {
        if !UntrustedText.isPlain(text) {
            throw HotspotError(.invalidArgs, "\(option) must not contain control characters, line breaks, direction overrides, "
                               + "invisible format characters or more than \(UntrustedText.maximumCombiningRun) combining marks in a row")
        }
    }
}

/// RegisterHelper's option checks for the fuzz driver (`register-helper` target).
@_spi(Fuzzing) public enum RegistrationFuzzEntry {
    /// What a call with `options` from `uid` would register (display name, identifier, purpose),
    /// or nil when it is refused.
    public static func accepted(_ options: [String: DBusValue], uid: UInt32?) -> (displayName: String, identifier: String, purpose: String?)? {
        guard let r = try? HelperRegistrationRequest(options: options, uid: uid) else { return nil }
        return (r.displayName, r.identifier.rawValue, r.purpose)
    }
    public static let maximumDisplayNameLength = HelperRegistrationRequest.maximumDisplayNameLength
    public static let maximumPurposeLength = HelperRegistrationRequest.maximumPurposeLength
    public static let maximumIdentifierLength = HelperRegistrationRequest.maximumIdentifierLength
}
