// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import HotspotProtocol

/// A helper that runs inside the daemon (the built-in helpers): the same options, commands,
/// responses and handler as a helper on the bus, without the bus. The daemon hands it a
/// ``WireCommand`` and gets back the ``WireResponse`` a helper on the bus would have sent, so
/// nothing a built-in helper answers (a profile's Wi-Fi password, say) crosses the system bus.
public struct InProcessHelper: Sendable {
    public let options: HotspotHelperOptions
    /// The most confidence it ever answers evaluate with (``HelperRegistration/highestConfidence``).
    public let highestConfidence: Confidence
    private let handler: HotspotHelper.Handler

    public init(options: HotspotHelperOptions, highestConfidence: Confidence = .high, handler: @escaping HotspotHelper.Handler) {
        self.options = options
        self.highestConfidence = highestConfidence
        self.handler = handler
    }

    /// The identifier the helper registers under (its display name when it names none).
    public var identifier: String { options.identifier ?? options.displayName }

    /// Answers one command exactly as the helper's D-Bus handler would.
    public func answer(_ command: WireCommand) async -> WireResponse {
        await HotspotHelper.answer(command, handler: handler)
    }
}

extension HotspotHelper {
    /// Runs `handler` for one command and waits for its single answer (command-not-recognized
    /// when the handler drops the command without answering). Shared by the D-Bus handler
    /// interface and in-process helpers.
    static func answer(_ wire: WireCommand, handler: @escaping Handler) async -> WireResponse {
        let slot = ReplySlot()
        handler(HotspotHelperCommand(wire, slot: slot))
        return await slot.answer()
    }
}
