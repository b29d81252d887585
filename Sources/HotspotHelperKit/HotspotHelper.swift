// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
import HotspotProtocol
import Synchronization

/// The command types, results and confidence levels, as in NEHotspotHelper.
public typealias HotspotHelperCommandType = CommandType
public typealias HotspotHelperResult = CommandResult
public typealias HotspotHelperConfidence = Confidence

/// Registration options (NEHotspotHelper's `kNEHotspotHelperOptionDisplayName` and ours).
public struct HotspotHelperOptions: Sendable {
    /// Shown beside the networks the helper claims; at most 15 characters is advised.
    public var displayName: String
    /// Stable across restarts, so the daemon's cache keeps naming this helper; defaults to the
    /// display name.
    public var identifier: String?
    /// The commands the helper wants; nil for all.
    public var commands: Set<HotspotHelperCommandType>?
    /// Why the helper wants to see Wi-Fi networks, in one sentence for the person asked to allow
    /// it (like an iOS usage description): shown with the display name in the authorization
    /// dialog and by `hotspotctl helpers`. Required unless the helper runs as root; at most
    /// 200 characters, no control characters.
    public var purpose: String?
    /// Whether registering may ask the person at the desktop (polkit's authentication dialog,
    /// showing the display name and purpose) rather than be refused at once. The call then waits
    /// up to ``interactiveRegistrationTimeout`` for an answer. Off for helpers that run unattended.
    public var allowsInteractiveAuthorization: Bool
    /// Whether commands come over a channel of the helper's own (the option CommandChannel of
    /// RegisterHelper: a socket handed out with the registration, carrying the same D-Bus calls
    /// with no bus in between, so each command and answer is read by one process fewer). Every
    /// command then takes it, from the first; when the daemon gives none (at its cap, or an
    /// older daemon), every command comes over the bus.
    public var usesCommandChannel: Bool

    /// How long registering waits while a person decides in the authorization dialog.
    /// (The daemon waits up to 120 s for polkit; this leaves room for its answer.)
    public static let interactiveRegistrationTimeout: Duration = .seconds(130)

    public init(displayName: String, identifier: String? = nil, commands: Set<HotspotHelperCommandType>? = nil, purpose: String? = nil,
                allowsInteractiveAuthorization: Bool = true, usesCommandChannel: Bool = true) {
        self.displayName = displayName
        self.identifier = identifier
        self.commands = commands
        self.purpose = purpose
        self.allowsInteractiveAuthorization = allowsInteractiveAuthorization
        self.usesCommandChannel = usesCommandChannel
    }
}

/// A Wi-Fi network as a helper sees it (NEHotspotNetwork). A helper sets a confidence on it when
/// evaluating, and a confidence and a password when it claims it in filter-scan-list.
public final class HotspotNetwork: Sendable, CustomStringConvertible {
    /// The SSID's bytes (an SSID need not be UTF-8).
    public let ssidBytes: [UInt8]
    public let bssid: String
    /// 0…1.
    public let signalStrength: Double
    public let isSecure: Bool
    public let didAutoJoin: Bool
    public let didJustJoin: Bool
    /// Whether this helper is the interface's chosen helper.
    public let isChosenHelper: Bool
    /// The interface the command concerns (e.g. `wlan0`).
    public let interface: String

    private struct Marks: Sendable { var confidence: Confidence = .none; var password: String?; var displayName: String? }
    private let marks = Mutex(Marks())

    init(_ n: Network, isChosenHelper: Bool, interface: String) {
        ssidBytes = n.ssid.bytes
        bssid = n.bssid
        signalStrength = n.signalStrength
        isSecure = n.isSecure
        didAutoJoin = n.didAutoJoin
        didJustJoin = n.didJustJoin
        self.isChosenHelper = isChosenHelper
        self.interface = interface
    }

    /// The SSID for display (bytes that are not UTF-8 are escaped).
    public var ssid: String { SSID(bytes: ssidBytes).displayForm }

    public func setConfidence(_ confidence: HotspotHelperConfidence) { marks.withLock { $0.confidence = confidence } }
    /// The Wi-Fi password the system may use to join this network (filter-scan-list). Never
    /// logged and never published by the daemon.
    public func setPassword(_ password: String) { marks.withLock { $0.password = password } }

    /// The name to show beside this network instead of the helper's display name (filter-scan-list;
    /// at most 64 characters), e.g. a profile's name for its network.
    public func setDisplayName(_ name: String) { marks.withLock { $0.displayName = name } }
    var confidence: Confidence { marks.withLock { $0.confidence } }
    var displayName: String? { marks.withLock { $0.displayName } }
    var password: String? { marks.withLock { $0.password } }

    public var description: String { "\(ssid) (\(bssid))" }
}

/// Where a command's single answer goes: answering twice is ignored, and a command the handler
/// lets go of unanswered is answered for it (command-not-recognized, by the command's deinit).
/// The answer may come before anyone waits for it (a handler that answers at once, on the bus
/// thread) or after.
final class ReplySlot: Sendable {
    private enum State { case empty, waiting(CheckedContinuation<WireResponse, Never>), answered(WireResponse), taken }
    private let state = Mutex<State>(.empty)

    /// Records the answer, or hands it to the waiter; false when the command was answered already.
    func fill(_ response: WireResponse) -> Bool {
        let (accepted, waiter): (Bool, CheckedContinuation<WireResponse, Never>?) = state.withLock { s in
            switch s {
            case .empty: s = .answered(response); return (true, nil)
            case .waiting(let c): s = .taken; return (true, c)
            case .answered, .taken: return (false, nil)
            }
        }
        waiter?.resume(returning: response)
        return accepted
    }

    /// The answer, if one came already.
    func takeIfAnswered() -> WireResponse? {
        state.withLock { s in
            guard case .answered(let r) = s else { return nil }
            s = .taken
            return r
        }
    }

    /// Waits for the answer.
    func answer() async -> WireResponse {
        await withCheckedContinuation { (c: CheckedContinuation<WireResponse, Never>) in
            let ready: WireResponse? = state.withLock { s in
                if case .answered(let r) = s { s = .taken; return r }
                s = .waiting(c)
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
    }
}

/// A command from the daemon (NEHotspotHelperCommand).
public final class HotspotHelperCommand: Sendable {
    public let commandType: HotspotHelperCommandType
    /// The interface's current network (every command but filter-scan-list).
    public let network: HotspotNetwork?
    /// The scan list (filter-scan-list only).
    public let networkList: [HotspotNetwork]?
    /// The interface name, e.g. `wlan0`.
    public let interface: String
    /// How long the daemon waits for the answer; nil for no limit (present-ui).
    public let deadline: Duration?
    let slot: ReplySlot

    init(_ wire: WireCommand, slot: ReplySlot) {
        commandType = wire.type
        interface = wire.interface
        network = wire.network.map { HotspotNetwork($0, isChosenHelper: wire.isChosenHelper, interface: wire.interface) }
        networkList = wire.type == .filterScanList ? wire.networks.map { HotspotNetwork($0, isChosenHelper: false, interface: wire.interface) } : nil
        deadline = wire.deadline
        self.slot = slot
    }

    /// A command let go of unanswered is answered for the helper: command-not-recognized.
    deinit { _ = slot.fill(WireResponse(result: .commandNotRecognized)) }

    /// A response carrying `result`; set its network or network list, then `deliver()` it.
    public func createResponse(_ result: HotspotHelperResult) -> HotspotHelperResponse {
        HotspotHelperResponse(command: self, result: result)
    }
}

/// The answer to a command (NEHotspotHelperResponse).
public final class HotspotHelperResponse: Sendable {
    let command: HotspotHelperCommand
    let result: HotspotHelperResult
    private let parts = Mutex<(network: HotspotNetwork?, list: [HotspotNetwork]?, reason: String?)>((nil, nil, nil))

    init(command: HotspotHelperCommand, result: HotspotHelperResult) {
        self.command = command
        self.result = result
    }

    /// For evaluate: the network with the confidence set on it.
    public func setNetwork(_ network: HotspotNetwork) { parts.withLock { $0.network = network } }
    /// For filter-scan-list: the networks the helper claims, each with a confidence (and
    /// optionally a password) set on it.
    public func setNetworkList(_ list: [HotspotNetwork]) { parts.withLock { $0.list = list } }
    /// Why the helper answers as it does, for the person at `hotspotctl status` (an extension of
    /// NEHotspotHelperResponse): one sentence without secrets, e.g. why no credentials were sent.
    /// The daemon escapes it and keeps at most 300 characters.
    public func setReason(_ reason: String) { parts.withLock { $0.reason = reason } }

    /// Sends the response. Only the first delivery for a command counts.
    public func deliver() {
        let (network, list, reason) = parts.withLock { ($0.network, $0.list, $0.reason) }
        var wire = WireResponse(result: result, reason: reason)
        if command.commandType == .evaluate {
            wire.confidence = (network ?? command.network)?.confidence ?? Confidence.none
        }
        if command.commandType == .filterScanList {
            wire.claims = (list ?? []).map { n in
                ScanClaim(ssid: SSID(bytes: n.ssidBytes), bssid: n.bssid.isEmpty ? nil : n.bssid, confidence: n.confidence,
                          password: n.password.map(Password.init), displayName: n.displayName)
            }
        }
        _ = command.slot.fill(wire)
    }
}
