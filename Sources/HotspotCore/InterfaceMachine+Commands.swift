// SPDX-License-Identifier: Apache-2.0

// The per-interface machine's commands and timers: issuing a command to a helper with its
// deadline, retiring it, and the maintain and retry timers (InterfaceMachine.swift has the events
// and transitions that use them).
extension InterfaceMachine {
    mutating func issue(
        _ command: CommandType, to helper: HelperID, deadline: Duration?, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) -> OutstandingCommand {
        let token = context.commands.issue(command, on: interface, to: helper)
        var network: Network?
        if command != .filterScanList, let current = association {
            network = current.network
            network?.didJustJoin = !current.hasAuthenticated
        }
        let request = CommandRequest(
            token: token,
            interface: interface,
            helper: helper,
            command: command,
            network: network,
            isChosenHelper: association?.chosenHelper == helper,
            networks: command == .filterScanList ? scanList.networks : [],
            deadline: deadline
        )
        effects.append(.sendCommand(request))
        var timer: TimerID?
        if let deadline {
            let deadlineTimer = context.makeTimer(.commandDeadline(token), on: interface)
            effects.append(.armTimer(deadlineTimer, at: now + deadline))
            timer = deadlineTimer
        }
        return OutstandingCommand(request: request, deadlineTimer: timer)
    }

    mutating func send(
        _ command: CommandType, to helper: HelperID, deadline: Duration?, now: Instant,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        let sent = issue(command, to: helper, deadline: deadline, now: now, context: &context, effects: &effects)
        outstanding[sent.request.token] = sent
    }

    /// Retires an answered command and cancels its deadline timer.
    func finish(_ command: OutstandingCommand, context: inout CoreContext, effects: inout [HotspotEffect]) {
        if let timer = command.deadlineTimer { effects.append(.cancelTimer(timer)) }
        context.commands.retire(command.request.token, as: .answered)
    }

    /// Retires a command that ends without an answer and tells the daemon to stop waiting for it.
    func end(
        _ command: OutstandingCommand, as completion: CommandLedger.Completion, timerFired: Bool,
        context: inout CoreContext, effects: inout [HotspotEffect]
    ) {
        if !timerFired, let timer = command.deadlineTimer { effects.append(.cancelTimer(timer)) }
        effects.append(.cancelCommand(command.request.token))
        context.commands.retire(command.request.token, as: completion)
    }

    mutating func cancelStateCommands(context: inout CoreContext, effects: inout [HotspotEffect]) {
        for token in outstanding.keys.sorted() {
            if let command = outstanding.removeValue(forKey: token) {
                end(command, as: .cancelled, timerFired: false, context: &context, effects: &effects)
            }
        }
    }

    mutating func armMaintainTimer(now: Instant, context: inout CoreContext, effects: inout [HotspotEffect]) {
        cancelMaintainTimer(&effects)
        let timer = context.makeTimer(.maintain, on: interface)
        maintainTimer = timer
        maintainDue = now + context.configuration.maintainInterval
        effects.append(.armTimer(timer, at: now + context.configuration.maintainInterval))
    }

    mutating func cancelMaintainTimer(_ effects: inout [HotspotEffect]) {
        if let maintainTimer { effects.append(.cancelTimer(maintainTimer)) }
        maintainTimer = nil
        maintainDue = nil
    }

    mutating func cancelRetryTimer(_ effects: inout [HotspotEffect]) {
        if let retryTimer { effects.append(.cancelTimer(retryTimer)) }
        retryTimer = nil
    }

    func publish(_ context: CoreContext, _ effects: inout [HotspotEffect]) {
        effects.append(.publishState(status(in: context)))
    }

    func reportProtocolError(_ command: OutstandingCommand, _ problem: String, _ effects: inout [HotspotEffect]) {
        effects.append(.helperProtocolError(HelperProtocolError(
            helper: command.helper, token: command.request.token, command: command.command, problem: problem)))
    }
}
