// SPDX-License-Identifier: Apache-2.0
import HotspotTestingRandom
import Testing

@testable import HotspotCore

/// Feeds long random event sequences into several interfaces and checks the machine's invariants
/// after every single step.
@Suite struct RandomisedInvariantTests {
    static let interfaces: [InterfaceID] = ["wlan0", "wlan1", "wlan2"]
    static let helpers: [HelperID] = ["h0", "h1", "h2", "h3"]
    static let ssids = ["Cafe", "Airport", "Hotel"]
    static let fixedSeeds: [UInt64] = [1, 2, 3, 42, 0xC0FFEE, 0xDEAD_BEEF, 20_251_121, 7_777_777]

    @Test(arguments: fixedSeeds)
    func invariantsHoldThroughoutARandomRunFromAFixedSeed(seed: UInt64) {
        Self.run(seed: seed, steps: 10_000)
    }

    @Test func invariantsHoldThroughoutARandomRunFromAFreshSeed() {
        var system = SystemRandomNumberGenerator()
        Self.run(seed: system.next(), steps: 10_000, requiringEveryState: false)
    }

    /// Checks the invariants against a run that breaks them, so the checker itself can fail.
    @Test func invariantCheckerDetectsAnOutstandingCommandLeftBehind() {
        var h = TransitionTableTests.authenticating()
        var world = World()
        #expect(world.violations(in: h).isEmpty)
        let stale = h.request("alpha", .authenticate)!
        h.send(.connectivityLost("wlan0"))
        h.injectPending(stale)
        #expect(world.violations(in: h).contains { $0.contains("inactive") })
        world.excluded["wlan0"] = ["alpha"]
        h.join()
        #expect(world.violations(in: h).contains { $0.contains("excluded") })
    }

    static func run(seed: UInt64, steps: Int, requiringEveryState: Bool = true) {
        var random = SeededRandom(seed: seed)
        var h = Harness(HotspotConfiguration(unresponsiveThreshold: 2))
        var world = World()
        for step in 0..<steps {
            let description = world.step(&h, &random)
            let violations = world.violations(in: h)
            if !violations.isEmpty {
                Issue.record("seed \(seed), step \(step) (\(description)): \(violations.joined(separator: "; "))")
                return
            }
            h.clearLog()
        }
        guard requiringEveryState else { return }
        #expect(world.statesSeen == Set(HotspotState.allCases), "seed \(seed): the run only reached \(world.statesSeen)")
    }
}

/// What the random run knows from the outside: which helpers were excluded by their own
/// unsupported-network answers, and which states were seen.
struct World {
    var excluded: [InterfaceID: Set<HelperID>] = [:]
    var answered: [HelperAnswer] = []
    var statesSeen: Set<HotspotState> = []

    mutating func step(_ h: inout Harness, _ random: inout SeededRandom) -> String {
        let interface = RandomisedInvariantTests.interfaces.randomElement(using: &random)!
        let helper = RandomisedInvariantTests.helpers.randomElement(using: &random)!
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<10:
            let ssid = RandomisedInvariantTests.ssids.randomElement(using: &random)!
            let security: SecurityClass = Bool.random(using: &random) ? .open : .personal
            let bssid = "aa:00:00:00:00:0\(Int.random(in: 0..<3, using: &random))"
            let before = h.core.machine(for: interface)
            let net = network(ssid, security: security, bssid: bssid)
            let connection = ConnectionID("conn-\(ssid)-\(security.rawValue)")
            if before == nil || before?.state == .inactive || before?.network?.key != net.key || before?.connection != connection {
                excluded[interface] = nil
            }
            h.send(.connectivityGained(interface, network: net, connection: connection))
            return "\(interface) gains \(ssid)"
        case 10..<15:
            excluded[interface] = nil
            h.send(.connectivityLost(interface))
            return "\(interface) loses connectivity"
        case 15..<20:
            let commands: Set<CommandType> = switch Int.random(in: 0..<4, using: &random) {
            case 0: [.filterScanList]
            case 1: Set(CommandType.allCases).subtracting([.filterScanList])
            default: Set(CommandType.allCases)
            }
            h.register(helper, commands: commands)
            return "\(helper) registers"
        case 20..<24:
            h.send(Bool.random(using: &random) ? .helperLeft(helper) : .helperUnregistered(helper))
            return "\(helper) leaves"
        case 24..<56:
            guard let request = h.pending.values.sorted(by: { $0.token < $1.token }).randomElement(using: &random) else {
                return "nothing to answer"
            }
            if Int.random(in: 0..<20, using: &random) == 0 {
                h.send(.helperAnswerMalformed(request.token, helper: request.helper, problem: "garbled"))
                return "malformed answer to \(request.command.rawValue)"
            }
            let result = randomResult(for: request.command, &random)
            let answer = HelperAnswer(
                token: request.token, helper: request.helper, result: result,
                confidence: Confidence.allCases.randomElement(using: &random),
                claims: request.networks.filter { _ in Bool.random(using: &random) }.map {
                    ScanClaim(ssid: $0.ssid, confidence: Confidence.allCases.randomElement(using: &random)!)
                })
            let machine = h.core.machine(for: request.interface)
            if result == .unsupportedNetwork, request.command == .authenticate || request.command == .presentUI,
                machine?.outstandingCommands.contains(request) == true
            {
                excluded[request.interface, default: []].insert(request.helper)
            }
            h.send(.helperAnswered(answer))
            answered.append(answer)
            return "\(request.helper) answers \(request.command.rawValue) with \(result.rawValue)"
        case 56..<60:
            guard var answer = answered.randomElement(using: &random) else { return "nothing to repeat" }
            if Bool.random(using: &random) { answer.result = .unsupportedNetwork }
            h.send(.helperAnswered(answer))
            return "\(answer.helper) answers \(answer.token) again"
        case 60..<78:
            let seconds = [0.5, 2, 5, 30, 45, 120, 300, 400].randomElement(using: &random)!
            h.advance(by: .milliseconds(Int64(seconds * 1000)))
            return "time passes by \(seconds) s"
        case 78..<80:
            guard let request = h.pending.values.sorted(by: { $0.token < $1.token }).randomElement(using: &random) else {
                return "nothing to time out"
            }
            h.send(.helperTimedOut(request.token))
            return "daemon call for \(request.command.rawValue) times out"
        case 80..<85:
            // Mostly where a logoff can succeed, so logging-off is reached often.
            let target = someInterface(in: .authenticated, of: h, &random) ?? interface
            let chosen = h.core.machine(for: target)?.chosenHelper ?? helper
            let requester: LogoffRequester = switch Int.random(in: 0..<3, using: &random) {
            case 0: .user
            case 1: .helper(chosen)
            default: .helper(helper)
            }
            h.send(.logoffRequested(target, by: requester))
            return "logoff requested on \(target) by \(requester)"
        case 85..<90:
            let target = someInterface(in: .presentingUI, of: h, &random) ?? interface
            h.send(.presentUIRequested(target))
            return "user acts on \(target)"
        case 90..<96:
            let list = RandomisedInvariantTests.ssids.filter { _ in Bool.random(using: &random) }.map { network($0) }
            h.send(.scanListChanged(interface, list))
            return "scan list of \(interface) changes"
        case 96..<97:
            let seconds = Int64.random(in: -5...400, using: &random)
            h.send(.sessionExpiryLearned(interface, at: h.now + .seconds(seconds)))
            return "\(interface) learns its session ends in \(seconds) s"
        case 97..<98:
            let ssid = RandomisedInvariantTests.ssids.randomElement(using: &random)!
            for (name, machine) in RandomisedInvariantTests.interfaces.map({ ($0, h.core.machine(for: $0)) })
            where machine?.network?.ssid == SSID(ssid) {
                excluded[name] = nil
            }
            h.send(.forgetNetwork(SSID(ssid)))
            return "forget \(ssid)"
        default:
            excluded[interface] = nil
            h.send(.interfaceRemoved(interface))
            return "\(interface) removed"
        }
    }

    /// An interface in the given state with a chosen helper, most of the time, when there is one.
    func someInterface(in state: HotspotState, of h: Harness, _ random: inout SeededRandom) -> InterfaceID? {
        guard Int.random(in: 0..<4, using: &random) > 0 else { return nil }
        return h.core.interfaces.filter {
            h.core.machine(for: $0)?.state == state && h.core.machine(for: $0)?.chosenHelper != nil
        }.randomElement(using: &random)
    }

    /// Mostly valid results, sometimes any result at all.
    func randomResult(for command: CommandType, _ random: inout SeededRandom) -> CommandResult {
        if Int.random(in: 0..<5, using: &random) == 0 {
            return CommandResult.allCases.randomElement(using: &random)!
        }
        return command.validResults.sorted { $0.rawValue < $1.rawValue }.randomElement(using: &random)!
    }

    mutating func violations(in h: Harness) -> [String] {
        var found: [String] = []
        var coreOutstanding: Set<CommandToken> = []
        for effect in h.log {
            if case .publishState(let status) = effect { statesSeen.insert(status.state) }
        }
        for interface in h.core.interfaces {
            guard let machine = h.core.machine(for: interface) else { continue }
            statesSeen.insert(machine.state)
            if machine.state == .inactive {
                // The association ended (loss, failure, logoff), and its exclusions with it.
                excluded[interface] = nil
            }
            let pending = h.pendingCommands(on: interface)
            let stateCommands = pending.filter { $0.command != .filterScanList }
            if machine.state == .inactive, !stateCommands.isEmpty || !machine.outstandingCommands.isEmpty {
                found.append("\(interface) is inactive with commands outstanding: \(stateCommands.map(\.command))")
            }
            if [.authenticating, .presentingUI, .maintaining, .loggingOff].contains(machine.state) {
                if machine.chosenHelper == nil {
                    found.append("\(interface) is \(machine.state.rawValue) without a chosen helper")
                }
            }
            if let chosen = machine.chosenHelper, !h.core.helpers.contains(where: { $0.identifier == chosen }) {
                found.append("\(interface) chose \(chosen), which is not registered")
            }
            let shouldMaintain = machine.state == .authenticated && machine.chosenHelper != nil
            let maintainTimers = h.timers.keys.filter { $0.interface == interface && $0.kind == .maintain }
            if shouldMaintain != (maintainTimers.count == 1) || maintainTimers.count > 1 {
                found.append("\(interface) is \(machine.state.rawValue) with chosen \(String(describing: machine.chosenHelper)) and \(maintainTimers.count) maintain timers")
            }
            if maintainTimers.first != machine.maintainTimer {
                found.append("\(interface) believes its maintain timer is \(String(describing: machine.maintainTimer)), the daemon has \(maintainTimers)")
            }
            for helper in Set(pending.map(\.helper)) {
                let mine = pending.filter { $0.helper == helper }
                if mine.filter({ $0.command != .filterScanList }).count > 1 || mine.filter({ $0.command == .filterScanList }).count > 1 {
                    found.append("\(helper) has \(mine.map(\.command.rawValue)) outstanding on \(interface)")
                }
            }
            let excludedHere = excluded[interface] ?? []
            if let chosen = machine.chosenHelper, excludedHere.contains(chosen) {
                found.append("\(interface) chose \(chosen), excluded by its unsupported-network")
            }
            let sent = h.log.compactMap { if case .sendCommand(let request) = $0 { request } else { nil } }
            for request in sent where request.interface == interface && request.command == .evaluate && excludedHere.contains(request.helper) {
                found.append("evaluate went to \(request.helper), excluded on \(interface)")
            }
            if !excludedHere.isSubset(of: machine.excludedHelpers) {
                found.append("\(interface) forgot exclusions: \(excludedHere.subtracting(machine.excludedHelpers))")
            }
            coreOutstanding.formUnion(machine.outstandingCommands.map(\.token))
            coreOutstanding.formUnion(machine.outstandingScanListCommands.map(\.token))
        }
        if coreOutstanding != Set(h.pending.keys) {
            found.append("the core waits for \(coreOutstanding.sorted()) but the daemon for \(h.pending.keys.sorted())")
        }
        for request in h.pending.values where request.deadline != nil {
            if !h.timers.keys.contains(where: { $0.kind == .commandDeadline(request.token) }) {
                found.append("\(request.command.rawValue) \(request.token) has a deadline but no armed timer")
            }
        }
        for timer in h.timers.keys {
            if case .commandDeadline(let token) = timer.kind, h.pending[token] == nil {
                found.append("deadline timer \(timer) armed for a command nobody waits for")
            }
            if h.core.machine(for: timer.interface) == nil {
                found.append("timer \(timer) armed for a removed interface")
            }
        }
        return found
    }
}
