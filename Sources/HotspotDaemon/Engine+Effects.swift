// SPDX-License-Identifier: Apache-2.0
import Connectivity
#if canImport(Glibc)
import Glibc
#endif
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Logging

/// Carrying out the core's effects, and the commands sent to helpers.
extension Engine {
    // MARK: - Effects out

    /// Shutdown: NetworkManager hears every action the engine asked for, and nothing after.
    /// Closed on the engine, so the effects of an event being handled are queued whole or not at
    /// all (a failed sign-in's disconnect never goes without its autoconnect change), then waited
    /// for.
    func finishNetworkEffects() async {
        await networkEffects.drain()
    }

    func execute(_ effect: HotspotEffect) async {
        switch effect {
        case .sendCommand(let request):
            send(request)  // handle(_:) sends commands before the other effects
        case .cancelCommand(let token):
            if let f = inflight.removeValue(forKey: token) {
                // A call with a deadline keeps listening until its D-Bus timeout (deadline + 2 s);
                // present-ui has none, so its call ends now.
                if f.request.deadline != nil { lingering[token] = (f.task, f.request) } else { f.task.cancel() }
                await completed(f.request, .cancelled, seconds: seconds(since: f.started))
            }
        case .disconnect(let name):
            log.info("disconnecting \(name)")
            guard let network else { return }
            networkEffects.enqueue(lane: name.rawValue) { [weak self, log] in
                do { try await network.disconnect(interface: name) } catch {
                    log.error("could not disconnect \(name): \(error)")
                    await self?.handle(.networkActionFailed(name, .disconnect, reason: "\(error)"))
                }
            }
        case .disableAutoconnect(let connection), .enableAutoconnect(let connection):
            let enable: Bool
            if case .enableAutoconnect = effect { enable = true } else { enable = false }
            log.info("\(enable ? "restoring" : "switching off") autoconnect for connection \(connection)")
            guard let network else { return }
            // Behind the disconnect of the interface on that connection (a failed sign-in asks
            // for both), in the order the core asked.
            let name = interfaces.first { $0.value.status?.connection == connection }?.key
            networkEffects.enqueue(lane: name?.rawValue ?? "connection \(connection)") { [weak self, log] in
                do { try await network.setAutoconnect(enable, connection: connection) } catch {
                    log.error("could not set autoconnect=\(enable) on \(connection): \(error)")
                    if let name { await self?.handle(.networkActionFailed(name, .setAutoconnect(enable, connection), reason: "\(error)")) }
                }
            }
        case .armTimer(let id, let at):
            timers.arm(id, at: at)
            wakeInTime()
        case .cancelTimer(let id):
            timers.cancel(id)  // a sleeper set for it wakes, finds nothing due and sleeps again
        case .publishState(let s):
            guard var r = interfaces[s.interface] else { return }
            let old = r.status
            r.status = s
            interfaces[s.interface] = r
            if old?.state != s.state { log.info("\(s.interface): \(old?.state.rawValue ?? "inactive") → \(s.state.rawValue)") }
            var changed: [InterfaceProperty] = []
            if old?.state != s.state { changed.append(InterfaceProperty.state) }
            if old?.network != s.network { changed.append(InterfaceProperty.network) }
            if old?.chosenHelperDisplayName != s.chosenHelperDisplayName { changed.append(InterfaceProperty.helper) }
            if !changed.isEmpty { announce(.interface(r, changed)) }
            if old?.state != s.state || old?.network != s.network { signInStateChanged(s.interface, to: s.state) }
            // Asking for NetworkManager's re-check is left to the rule after a sign-in, which
            // follows a state that calls for it (.recheckConnectivity).
            checkHolds(s.interface, askingRecheck: false)
        case .recheckConnectivity(let name, let networkManager):
            if networkManager { recheckNetworkManager(name) }
            // A maintain that found the session alive asks NetworkManager for nothing, unless a
            // held join waits for a re-check.
            checkHolds(name)
            // Signed in or maintained: look again soon (this also learns a new session end),
            // after the announcement, queued above.
            await monitor?.recheckSoon(name.rawValue)
        case .publishScanList(let name, let list):
            guard let r = interfaces[name] else { return }
            interfaces[name]?.scanList = list
            if ScanListSummary(r.scanList) != ScanListSummary(list) { announce(.scanListChanged(interface: r.number)) }
        case .uiRequired(let request):
            guard let r = interfaces[request.interface] else { return }
            log.info("\(request.interface): helper '\(UntrustedText.forLog(request.helperDisplayName))' needs the user for \(request.network.ssid.displayForm)")
            announce(.uiRequired(interface: r.number, displayName: request.helperDisplayName, network: request.network))
        case .persist:
            break // carried out by handle(_:), before or after the other effects
        case .helperProtocolError(let e):
            log.warning("\(UntrustedText.forLog("\(e)", limit: 400))")
        case .answerIgnored(let ignored):
            log.debug("\(UntrustedText.forLog("\(ignored)", limit: 400))")
        case .helperResponsivenessChanged(let id, let responsive):
            log.warning("helper \(UntrustedText.forLog(id.rawValue)) is \(responsive ? "responsive again" : "unresponsive: it keeps missing deadlines, so it now gets a short evaluate deadline")")
            await publishHelpers()
        case .requestDeclined:
            break // returned to the caller through handle()
        case .explain(let name, let text):
            log.info("\(name): \(text)")  // published by the .setReason after it
        case .setReason(let name, let reason):
            setReason(name, reason)
        }
    }

    /// CommandCompleted, on the interface's path: its number is kept for good, so commands that
    /// end because the interface is going away are reported too.
    func completed(_ request: CommandRequest, _ completion: CommandCompletion, seconds: Double) async {
        guard let number = numbering.existingNumber(for: request.interface) else { return }
        announce(.commandCompleted(interface: number, helper: request.helper, command: request.command, completion: completion, seconds: seconds))
    }

    /// Makes sure the sleeper wakes by the earliest deadline armed (``TimerSchedule``).
    func wakeInTime() {
        guard !timers.isCovered(by: sleeperTarget), let earliest = timers.earliest else { return }
        sleeper?.cancel()
        sleeperTarget = earliest
        // Outlives its caller: the one sleeper until the earliest timer, owned (`sleeper`) and
        // cancelled when an earlier timer replaces it; the core's timers are not structured work.
        let wake = start + earliest.sinceEpoch
        sleeper = Task { [weak self] in
            try? await Task.sleep(until: wake, clock: .continuous)
            guard !Task.isCancelled else { return }
            await self?.sleeperWoke(target: earliest)
        }
    }

    /// Fires the timers due, earliest first, then sleeps until the next. A sleeper replaced while
    /// it was on its way here (its target is no longer the one set) does nothing.
    func sleeperWoke(target: Instant) async {
        guard sleeperTarget == target else { return }
        sleeper = nil
        sleeperTarget = nil
        for id in timers.takeDue(now: now) { await handle(.timerFired(id)) }
        wakeInTime()
    }

    func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    func send(_ request: CommandRequest) {
        log.debug("\(request.interface): sending \(request.command.rawValue) \(request.token) to \(request.helper)")
        guard let endpoint = helpers[request.helper] else {
            // Cannot happen while endpoints are recorded before the core learns of a helper and
            // removed before it hears it left; if it does, the command's deadline ends it.
            log.error("\(request.interface): no endpoint for helper \(request.helper); \(request.command.rawValue) \(request.token) not sent")
            return
        }
        let wire = WireCommand(type: request.command, interface: request.interface.rawValue, network: request.network,
                               isChosenHelper: request.isChosenHelper, networks: request.networks, deadline: request.deadline)
        // The core's deadline timer decides; the transport's timeout only backs it up.
        let timeout = request.deadline.map { $0 + .seconds(2) } ?? .seconds(7 * 24 * 3600)
        let started = ContinuousClock.now
        let answer = endpoint.transport.send(wire, timeout: timeout)
        // Outlives send(): the call to the helper, owned by `inflight` (then `lingering`), cancelled
        // when the helper leaves; the engine must not wait for a helper's answer.
        let task = Task { [weak self] in
            guard let outcome = await answer() else { return }
            await self?.commandFinished(request, outcome: outcome)
        }
        inflight[request.token] = (task, started, request)
    }

    func commandFinished(_ request: CommandRequest, outcome: CommandOutcome) async {
        let outcome = screenDisplayNames(outcome, of: request)
        guard let f = inflight.removeValue(forKey: request.token) else {
            guard lingering.removeValue(forKey: request.token) != nil, case .answered(let response) = outcome else { return }
            log.info("\(request.interface): \(request.command.rawValue) → \(request.helper): \(response.result.rawValue) arrived after the command ended; ignored")
            await handle(.helperAnswered(HelperAnswer(token: request.token, helper: request.helper, result: response.result,
                                                      confidence: response.confidence, claims: response.claims)))
            return
        }
        let secs = seconds(since: f.started)
        switch outcome {
        // CommandCompleted follows the state the outcome leads to: the change clients wait for is
        // announced first (the join's last hop).
        case .answered(let response):
            log.info("\(request.interface): \(request.command.rawValue) → \(request.helper): \(response.result.rawValue)\(response.confidence.map { " (\($0.rawValue))" } ?? "") in \(Int(secs * 1000)) ms\(response.reason.map { ": \($0)" } ?? "")")
            // The core publishes the words of the commands only the chosen helper gets (`Reason`).
            await handle(.helperAnswered(HelperAnswer(token: request.token, helper: request.helper, result: response.result,
                                                      confidence: response.confidence, claims: response.claims, reason: response.reason)))
            await completed(request, .answered(response.result), seconds: secs)
            // As the core counts them: the claims of a successful answer, none otherwise.
            if request.command == .filterScanList, let provisioner, let helper = core.helpers.first(where: { $0.identifier == request.helper }) {
                await provisioner.helperAnswered(helper, asked: request.networks, claims: response.result == .success ? response.claims : [])
            }
        case .malformed(let problem):
            await handle(.helperAnswerMalformed(request.token, helper: request.helper, problem: problem))
            await completed(request, .answered(.failure), seconds: secs)
        case .timedOut:
            await handle(.helperTimedOut(request.token))
            await completed(request, .timedOut, seconds: secs)
        case .vanished:
            await completed(request, .helperLeft, seconds: secs)
            if let transport = helpers[request.helper]?.transport { await helperVanished(request.helper, transport: transport) }
        }
    }
}

extension Engine {
    /// A filter-scan-list answer with every display name that reads as another network in the
    /// scan list sent (``LookAlikeNames``) replaced by the claimed network's SSID, each logged.
    func screenDisplayNames(_ outcome: CommandOutcome, of request: CommandRequest) -> CommandOutcome {
        guard request.command == .filterScanList, case .answered(var response) = outcome else { return outcome }
        let (claims, refused) = LookAlikeNames.screen(response.claims, inRange: request.networks)
        for r in refused { log.warning("\(request.interface): helper \(UntrustedText.forLog(request.helper.rawValue)): \(r)") }
        response.claims = claims
        return .answered(response)
    }
}

/// What a desktop shows of a scan list: each access point and its annotation, without the signal
/// strength that changes with every scan (``Announcement/scanListChanged(_:)``).
struct ScanListSummary: Equatable {
    let rows: Set<[String]>
    init(_ list: [AnnotatedNetwork]) {
        rows = Set(list.map { [$0.network.ssid.bytes.description,
                               $0.network.bssid, $0.displayName ?? "", $0.hasPassword ? "1" : "0"] })
    }
}
