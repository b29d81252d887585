// SPDX-License-Identifier: Apache-2.0
/// Who may register a helper: the rules the daemon applies to every registration before the core
/// hears of the helper. Pure: the daemon hands it the helpers registered now and carries out the
/// answer.
///
/// - An identifier stays with the user who first registered it (root may always register it): another
///   user cannot take over a helper's cache entries and passwords by reusing its name.
/// - One connection is one helper; one identifier is one helper at a time.
/// - The built-in helpers' identifiers (``builtInPrefix``) and display names (in any spelling a
///   person would read as the same, ``NameFolding``) are the daemon's own.
/// - A user other than root has at most ``maximumHelpersPerUser`` helpers registered at once.
public struct HelperAdmission: Sendable {
    /// The most helpers one user other than root may have registered at once.
    public static let maximumHelpersPerUser = 8
    /// Identifiers of this prefix belong to the daemon's own built-in helpers.
    public static let builtInPrefix = "builtin."

    /// A helper registered now, as admission sees it.
    public struct Registered: Sendable, Hashable {
        public var identifier: HelperID
        /// The bus connection it registered from (nil for the built-in helpers).
        public var peer: String?
        /// The uid that registered it (nil for the built-in helpers and when the bus would not say).
        public var uid: UInt32?
        public init(identifier: HelperID, peer: String?, uid: UInt32?) {
            self.identifier = identifier
            self.peer = peer
            self.uid = uid
        }
    }

    /// Why a registration is refused.
    public enum Refusal: Error, Hashable, Sendable {
        /// The identifier belongs to another user's helper.
        case identifierOwned(HelperID, owner: UInt32)
        /// This connection is already registered as that helper.
        case connectionRegistered(as: HelperID)
        /// Another process has registered this identifier.
        case identifierTaken(HelperID)
        /// The identifier is a built-in helper's.
        case builtInIdentifier(HelperID)
        /// The display name reads as a built-in helper's (the name it reads as).
        case builtInDisplayName(String, readsAs: String)
        /// The user has as many helpers as one user may have.
        case tooManyForUser(uid: UInt32, count: Int)

        /// Whether the refusal is "already registered" (the rest are "not allowed").
        public var isAlreadyRegistered: Bool {
            switch self {
            case .connectionRegistered, .identifierTaken: return true
            default: return false
            }
        }
    }

    /// The uid that registered each identifier since the daemon started (0 for the built-in helpers).
    public private(set) var owners: [HelperID: UInt32] = [:]
    /// The built-in helpers' display names.
    public let builtInDisplayNames: [String]

    public init(builtInDisplayNames: [String]) {
        self.builtInDisplayNames = builtInDisplayNames
    }

    /// Whether a helper on the bus may not show `displayName`, whoever asks: it reads as a built-in
    /// helper's name.
    public func refusesDisplayName(_ displayName: String) -> Refusal? {
        NameFolding.matching(displayName, in: builtInDisplayNames).map { .builtInDisplayName(displayName, readsAs: $0) }
    }

    /// Whether a helper on the bus may not take `identifier`, whoever asks: the built-in helpers
    /// run in the daemon and never register over the bus.
    public static func refusesIdentifier(_ identifier: HelperID) -> Refusal? {
        NameFolding.key(identifier.rawValue).hasPrefix(builtInPrefix) ? .builtInIdentifier(identifier) : nil
    }

    /// Whether a helper `identifier` from connection `peer` of `uid` may register now, beside
    /// `registered`: nil when it may.
    public func refuses(_ identifier: HelperID, peer: String?, uid: UInt32?, beside registered: [Registered]) -> Refusal? {
        if let owner = owners[identifier], uid != 0, uid != owner { return .identifierOwned(identifier, owner: owner) }
        if let peer, let mine = registered.first(where: { $0.peer == peer }) { return .connectionRegistered(as: mine.identifier) }
        if registered.contains(where: { $0.identifier == identifier }) { return .identifierTaken(identifier) }
        if let uid, uid != 0 {
            let count = registered.filter { $0.uid == uid }.count
            if count >= Self.maximumHelpersPerUser { return .tooManyForUser(uid: uid, count: count) }
        }
        return nil
    }

    /// Records that `identifier` was registered by `uid` (nil when the bus would not say): the
    /// first user keeps it, and root registering it takes nothing from them.
    public mutating func admitted(_ identifier: HelperID, uid: UInt32?) {
        guard let uid else { return }
        if owners[identifier] == nil || uid != 0 { owners[identifier] = uid }
    }

    /// Records a built-in helper's identifier as the daemon's own.
    public mutating func admittedBuiltIn(_ identifier: HelperID) {
        owners[identifier] = 0
    }
}
