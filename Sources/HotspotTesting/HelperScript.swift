// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import HotspotHelperKit
import Synchronization

/// How a scripted helper answers, and what it received. Results can be changed while it runs.
public final class HelperScript: Sendable {
    public struct Plan: Sendable {
        public var confidence: Confidence = .none
        public var results: [CommandType: CommandResult] = [:]
        public var silent: Set<CommandType> = []
        public var claims: [String: String?] = [:]
        public var received: [(CommandType, String, Bool)] = []  // command, ssid, did-just-join
    }
    public let plan: Mutex<Plan>
    /// Commands left unanswered on purpose: held so the kit does not answer for the helper.
    public let held = Mutex<[HotspotHelperCommand]>([])
    /// The last network a command was about, as a helper would keep it for logoff.
    public let lastNetwork = Mutex<HotspotNetwork?>(nil)
    /// Bumped by every command received (a scenario's waiter follows it: ``received`` wakes waits).
    public let changes = Changes()

    public init(confidence: Confidence = .none, results: [CommandType: CommandResult] = [:], silent: Set<CommandType> = [], claims: [String: String?] = [:]) {
        plan = Mutex(Plan(confidence: confidence, results: results, silent: silent, claims: claims))
    }

    public func set(_ command: CommandType, _ result: CommandResult) { plan.withLock { $0.results[command] = result } }
    public func silence(_ command: CommandType) { plan.withLock { _ = $0.silent.insert(command) } }
    public var received: [CommandType] { plan.withLock { $0.received.map(\.0) } }
    public func receivedJustJoin(_ command: CommandType) -> [Bool] { plan.withLock { $0.received.filter { $0.0 == command }.map(\.2) } }

    /// Answers `command` as planned (the handler to give HotspotHelper.register).
    public func answer(_ command: HotspotHelperCommand) {
        let p = plan.withLock { p -> Plan in
            p.received.append((command.commandType, command.network?.ssid ?? "", command.network?.didJustJoin ?? false))
            return p
        }
        if let n = command.network { lastNetwork.withLock { $0 = n } }
        changes.bump()
        if p.silent.contains(command.commandType) { held.withLock { $0.append(command) }; return }
        switch command.commandType {
        case .evaluate:
            command.network?.setConfidence(p.confidence)
            let r = command.createResponse(.success)
            if let n = command.network { r.setNetwork(n) }
            r.deliver()
        case .filterScanList:
            let claimed = (command.networkList ?? []).filter { n in
                guard let entry = p.claims[n.ssid] else { return false }
                n.setConfidence(.high)
                if let password = entry { n.setPassword(password) }
                return true
            }
            let r = command.createResponse(.success)
            r.setNetworkList(claimed)
            r.deliver()
        default:
            command.createResponse(p.results[command.commandType] ?? .success).deliver()
        }
    }
}

