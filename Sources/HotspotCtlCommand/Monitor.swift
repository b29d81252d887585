// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import DBus
import FoundationEssentials
import Glibc
import HotspotClient
import HotspotProtocol
import ProgramSupport

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print state transitions, helper commands and sign-in requests as they happen, until interrupted.",
        discussion: "With --json, one JSON object per line (JSON Lines), each with an \"event\" key.")

    @OptionGroup var options: CommonOptions

    /// One line of output.
    struct Event: Encodable {
        var event: String
        var time: String
        var interface: String?
        var from: String?
        var to: String?
        var helper: String?
        var command: String?
        var result: String?
        var seconds: Double?
        var network: String?
        var value: String?
    }

    func run() async throws {
        let client = try options.client()
        // Ctrl-C and SIGTERM end monitoring normally: ProgramLifecycle cancels this task, the
        // event stream ends, and the stop is not an error.
        let events = try await request { try await client.events() }
        var view = MonitorView(client: client, json: options.json)
        await view.snapshot()
        for await event in events { await view.handle(event) }
        if ProgramLifecycle.isStopping { return }
        throw ClientFailure.daemonNotRunning("the system bus connection closed")
    }
}

/// What monitor knows between events: interface names and states, to print transitions.
struct MonitorView {
    let client: DaemonClient
    let json: Bool
    var names: [ObjectPath: String] = [:]
    var states: [ObjectPath: String] = [:]
    /// Helper identifiers (which CommandCompleted carries) to display names.
    var helperNames: [String: String] = [:]

    init(client: DaemonClient, json: Bool) {
        self.client = client
        self.json = json
    }

    /// Now in UTC, RFC 3339 with milliseconds ("2026-11-22T09:30:00.123Z").
    static func now() -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
    }

    func emit(_ e: Monitor.Event, _ human: String) {
        print(json ? Output.json(e, pretty: false) : Output.line(human))
        // Lines must reach a pipe (a script, a test) as they happen.
        fflush(nil)
    }

    /// Reads the current state (after subscribing, so nothing is missed) and prints it.
    mutating func snapshot() async {
        names = [:]
        states = [:]
        do {
            let manager = try await client.manager()
            helperNames = Dictionary(manager.helpers.map { ($0.identifier, $0.displayName) }, uniquingKeysWith: { a, _ in a })
            emit(Monitor.Event(event: "daemon", time: Self.now(), value: "running"),
                 "hotspot-helperd \(manager.version) is running: \(manager.status)")
            for path in manager.interfaces {
                guard let i = try? await client.interface(at: path) else { continue }
                names[path] = i.name
                states[path] = i.state
                emit(Monitor.Event(event: "state", time: Self.now(), interface: i.name, to: i.state, helper: i.helper.isEmpty ? nil : i.helper,
                                   network: i.network?.name),
                     "\(i.name): \(i.state)\(i.network.map { " on \($0.name)" } ?? "")\(i.helper.isEmpty ? "" : " with \(i.helper)")")
            }
        } catch {
            let f = ClientFailure.classify(error)
            if case .daemonNotRunning = f {
                emit(Monitor.Event(event: "daemon", time: Self.now(), value: "stopped"), "hotspot-helperd is not running; waiting for it")
            } else {
                emit(Monitor.Event(event: "error", time: Self.now(), value: f.description), "error: \(f.description)")
            }
        }
    }

    mutating func name(_ path: ObjectPath) async -> String {
        if let n = names[path] { return n }
        if let i = try? await client.interface(at: path) {
            names[path] = i.name
            if states[path] == nil { states[path] = i.state }
            return i.name
        }
        return path.rawValue
    }

    mutating func handle(_ event: DaemonEvent) async {
        let time = Self.now()
        switch event {
        case .daemonStarted:
            await snapshot()
        case .daemonStopped:
            emit(Monitor.Event(event: "daemon", time: time, value: "stopped"), "hotspot-helperd stopped")
        case .uiRequired(let path, let helper, let network):
            let n = await name(path)
            emit(Monitor.Event(event: "ui-required", time: time, interface: n, helper: helper, network: network.name),
                 "\(n): \(helper) needs you to sign in to \(network.name) (hotspotctl present-ui \(n))")
        case .commandCompleted(let path, let helper, let command, let result, let seconds):
            let n = await name(path)
            emit(Monitor.Event(event: "command", time: time, interface: n, helper: helper, command: command, result: result, seconds: seconds),
                 "\(n): \(helperNames[helper] ?? helper) answered \(command): \(result) (\(Output.twoDecimals(seconds)) s)")
        case .propertiesChanged(let path, let interface, let changed):
            typealias M = HotspotContract.ManagerProperty
            typealias I = HotspotContract.InterfaceProperty
            if interface == HotspotContract.managerInterface.rawValue {
                if let status = changed[M.status]?.string {
                    emit(Monitor.Event(event: "status", time: time, value: status), "status: \(status)")
                }
                if let helpers = changed[M.helpers]?.arrayItems {
                    let snapshots = helpers.compactMap(\.varDict).map(HelperSnapshot.init)
                    for h in snapshots { helperNames[h.identifier] = h.displayName }
                    let list = snapshots.map(\.displayName)
                    emit(Monitor.Event(event: "helpers", time: time, value: list.joined(separator: ", ")),
                         "helpers: \(list.isEmpty ? "none" : list.joined(separator: ", "))")
                }
                if changed[M.interfaces] != nil { names = [:] }
                return
            }
            let n = await name(path)
            if let to = changed[I.state]?.string {
                let from = states[path]
                states[path] = to
                emit(Monitor.Event(event: "state", time: time, interface: n, from: from, to: to),
                     "\(n): \(from.map { "\($0) -> " } ?? "")\(to)")
            }
            for (property, label) in [(I.network, "network"), (I.helper, "helper"), (I.connectivity, "connectivity"),
                                      (I.portalUrl, "portal-url"), (I.sessionExpires, "session-expires")] {
                guard let v = changed[property] else { continue }
                let text: String
                switch property {
                case I.network:
                    let net = NetworkSummary(v.varDict ?? [:])
                    text = net.isEmpty ? "" : "\(net.name) (\(net.bssid))"
                case I.sessionExpires:
                    if case .uint64(let t) = v { text = t == 0 ? "" : Output.expiry(t) } else { text = "" }
                default: text = v.string ?? ""
                }
                emit(Monitor.Event(event: label, time: time, interface: n, value: text), "\(n): \(label) \(Output.dash(text))")
            }
        }
    }
}
