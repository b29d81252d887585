// SPDX-License-Identifier: Apache-2.0
import DBus

/// What NetworkManager asked a secret agent for. It never holds a secret: NetworkManager sends
/// the profile's settings, which the agent hands on, and its description names only the profile.
public struct SecretRequest: Sendable, CustomStringConvertible {
    /// The profile's settings as NetworkManager sent them (`a{sa{sv}}`).
    public var settings: ConnectionSettings
    /// The profile (`Settings.Connection`) path.
    public var connectionPath: ObjectPath
    /// The setting whose secrets are wanted; the agent only answers `802-11-wireless-security`.
    public var settingName: String
    public var hints: [String]
    /// NMSecretAgentGetSecretsFlags: 0x1 allow interaction, 0x2 request new (the last secret
    /// failed), 0x4 user requested, 0x8 WPS push-button active.
    public var flags: UInt32

    public init(settings: ConnectionSettings, connectionPath: ObjectPath, settingName: String, hints: [String] = [], flags: UInt32 = 0) {
        self.settings = settings
        self.connectionPath = connectionPath
        self.settingName = settingName
        self.hints = hints
        self.flags = flags
    }

    /// Whether NetworkManager says the previous secret did not work.
    public var requestsNewSecret: Bool { flags & 0x2 != 0 }

    public var description: String { "GetSecrets(\(settingName)) for \(connectionPath)" }
}

/// Errors a secret agent answers with. Messages never contain a secret.
public enum SecretAgentError: Error, Sendable, DBusErrorConvertible, CustomStringConvertible {
    /// No secret for this request; NetworkManager asks the next agent.
    case noSecrets(String)
    /// The caller is not NetworkManager.
    case accessDenied(String)
    /// NetworkManager cancelled the request (`CancelGetSecrets`).
    case agentCanceled
    /// The request is malformed.
    case invalidConnection(String)

    public var dbusErrorName: String {
        switch self {
        case .noSecrets: return "org.freedesktop.NetworkManager.SecretAgent.NoSecrets"
        case .accessDenied: return DBusErrorName.accessDenied
        case .agentCanceled: return "org.freedesktop.NetworkManager.SecretAgent.AgentCanceled"
        case .invalidConnection: return "org.freedesktop.NetworkManager.SecretAgent.InvalidConnection"
        }
    }

    public var dbusErrorMessage: String {
        switch self {
        case .noSecrets(let why), .accessDenied(let why), .invalidConnection(let why): return why
        case .agentCanceled: return "the request was cancelled by NetworkManager"
        }
    }

    public var description: String { "\(dbusErrorName): \(dbusErrorMessage)" }
}

/// What happened to the agent's registration with NetworkManager's AgentManager.
public enum SecretAgentEvent: Sendable, Equatable {
    /// Registered with the NetworkManager instance whose unique name is given.
    case registered(owner: String)
    /// Registering failed; the agent retries (1 s, doubling to 30 s) while that instance runs.
    case registrationFailed(String)
    /// NetworkManager left the bus; the agent registers again when it comes back.
    case managerGone
}

/// A NetworkManager secret agent that supplies Wi-Fi passwords a hotspot helper gave for an SSID.
///
/// It exports `org.freedesktop.NetworkManager.SecretAgent` at
/// `/org/freedesktop/NetworkManager/SecretAgent`, registers with the AgentManager
/// (`RegisterWithCapabilities`) whenever NetworkManager appears, and answers `GetSecrets` for
/// `802-11-wireless-security` with `{"802-11-wireless-security": {"psk": password}}` when the
/// lookup has a password for the profile's SSID, and `…SecretAgent.NoSecrets` otherwise. Only
/// NetworkManager's current unique name may call it; anyone else gets `AccessDenied`. The
/// password is only ever put in the reply: never in an error, a description or a log.
public actor NetworkManagerSecretAgent {
    /// Finds the password for an SSID; nil when there is none.
    public typealias PasswordLookup = @Sendable (_ ssid: [UInt8], _ request: SecretRequest) async -> String?

    /// The identifier given to the AgentManager (`[A-Za-z0-9_.-]`, 3–255 characters).
    public nonisolated let identifier: String
    public nonisolated let connection: Connection
    private let lookup: PasswordLookup

    private var owner: String?
    private var tasks: [Task<Void, Never>] = []
    private var registration: Task<Void, Never>?
    private var events: AsyncStream<SecretAgentEvent>.Continuation?
    private var pending: [UInt64: (key: String, waiter: CheckedContinuation<String?, Never>)] = [:]
    private var nextRequest: UInt64 = 0

    /// The setting this agent answers for.
    public static let wirelessSecuritySetting = "802-11-wireless-security"

    /// An agent on `connection` (the system bus). Nothing is exported until ``start()``.
    public init(connection: Connection, identifier: String = "org.freedesktop.NetworkManager.HotspotHelper",
                lookup: @escaping PasswordLookup) {
        self.connection = connection
        self.identifier = identifier
        self.lookup = lookup
    }

    /// Exports the agent, then follows NetworkManager and registers with every instance.
    /// Returns the registration events; the stream ends with ``stop()`` or the connection.
    public func start() async throws -> AsyncStream<SecretAgentEvent> {
        guard events == nil else { return AsyncStream { $0.finish() } }
        let (stream, continuation) = AsyncStream.makeStream(of: SecretAgentEvent.self)
        events = continuation
        try await connection.export([interface()], at: NetworkManagerNames.secretAgentPath)
        let owners = try await connection.watchNameOwner(NetworkManagerNames.busName)
        tasks.append(Task {
            for await owner in owners { self.ownerChanged(owner) }
            self.finishEvents()
        })
        return stream
    }

    /// Unregisters (best effort), unexports the agent and ends the event stream.
    public func stop() async {
        for t in tasks { t.cancel() }
        tasks.removeAll()
        registration?.cancel()
        registration = nil
        for (_, p) in pending { p.waiter.resume(returning: nil) }
        pending.removeAll()
        if owner != nil {
            _ = try? await connection.call(destination: NetworkManagerNames.busName, path: NetworkManagerNames.agentManagerPath,
                                           interface: NetworkManagerNames.agentManager, member: "Unregister", timeout: .seconds(2))
        }
        await connection.unexport(NetworkManagerNames.secretAgentPath)
        finishEvents()
    }

    private func finishEvents() {
        events?.finish()
    }

    private func ownerChanged(_ newOwner: String?) {
        registration?.cancel()
        registration = nil
        let hadOwner = owner != nil
        owner = newOwner
        guard let newOwner else {
            if hadOwner { events?.yield(.managerGone) }
            return
        }
        registration = Task { await self.register(with: newOwner) }
    }

    private func register(with nmOwner: String) async {
        var delay = Duration.seconds(1)
        while !Task.isCancelled && owner == nmOwner {
            do {
                let destination = try BusName(nmOwner)
                _ = try await connection.call(destination: destination, path: NetworkManagerNames.agentManagerPath,
                                              interface: NetworkManagerNames.agentManager, member: "RegisterWithCapabilities",
                                              body: [.string(identifier), .uint32(0)], timeout: .seconds(10))
                if owner == nmOwner { events?.yield(.registered(owner: nmOwner)) }
                return
            } catch {
                guard !Task.isCancelled, owner == nmOwner else { return }
                let text = (error as? DBusError)?.description ?? "\(error)"
                events?.yield(.registrationFailed("RegisterWithCapabilities with NetworkManager \(nmOwner) failed: \(text); retrying in \(delay)"))
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(30))
        }
    }

    // MARK: - The exported interface

    private nonisolated func interface() -> DBusInterface {
        DBusInterface(NetworkManagerNames.secretAgent, methods: [
            DBusMethod("GetSecrets",
                       inputs: [.init("connection", "a{sa{sv}}"), .init("connection_path", "o"), .init("setting_name", "s"),
                                .init("hints", "as"), .init("flags", "u")],
                       outputs: [.init("secrets", "a{sa{sv}}")]) { [weak self] call in
                guard let self else { throw SecretAgentError.noSecrets("the agent is shutting down") }
                return [try await self.getSecrets(call)]
            },
            DBusMethod("CancelGetSecrets", inputs: [.init("connection_path", "o"), .init("setting_name", "s")]) { [weak self] call in
                guard let self else { return [] }
                try await self.authorize(call)
                if let path = call.body[0].objectPath, let setting = call.body[1].string {
                    await self.cancel(key: Self.key(path, setting))
                }
                return []
            },
            DBusMethod("SaveSecrets", inputs: [.init("connection", "a{sa{sv}}"), .init("connection_path", "o")]) { [weak self] call in
                // Passwords come from helpers, not from NetworkManager: nothing to store.
                try await self?.authorize(call)
                return []
            },
            DBusMethod("DeleteSecrets", inputs: [.init("connection", "a{sa{sv}}"), .init("connection_path", "o")]) { [weak self] call in
                try await self?.authorize(call)
                return []
            },
        ])
    }

    /// Only NetworkManager's current unique name may call the agent. The cached owner may lag a
    /// restart by a moment, so a mismatch is checked against the bus before refusing.
    /// The owner must also run as root: on a bus whose policy let another user
    /// take NetworkManager's name, passwords still go to no one but root.
    private func authorize(_ call: MethodCall) async throws {
        if owner != call.sender {
            let current = try? await connection.nameOwner(NetworkManagerNames.busName)
            guard let current, current == call.sender else {
                throw SecretAgentError.accessDenied("only NetworkManager (\(NetworkManagerNames.busName)) may call the secret agent; \(call.sender) is not its owner")
            }
        }
        if verifiedRootCaller == call.sender { return }
        let uid = (try? await connection.credentials(of: call.sender))?.uid
        guard uid == 0 else {
            throw SecretAgentError.accessDenied("the owner of \(NetworkManagerNames.busName) runs as uid \(uid.map(String.init) ?? "unknown"), not root; "
                                                + "the secret agent answers only NetworkManager running as root")
        }
        verifiedRootCaller = call.sender
    }

    /// The last caller whose uid was checked to be 0 (unique names are never reused on a bus).
    private var verifiedRootCaller: String?

    private func getSecrets(_ call: MethodCall) async throws -> DBusValue {
        try await authorize(call)
        guard let settings = SettingsCoding.decode(call.body[0]), let path = call.body[1].objectPath,
              let settingName = call.body[2].string else {
            throw SecretAgentError.invalidConnection("GetSecrets arguments are malformed")
        }
        let request = SecretRequest(settings: settings, connectionPath: path, settingName: settingName,
                                    hints: call.body[3].strings ?? [], flags: call.body[4].uint32 ?? 0)
        guard settingName == Self.wirelessSecuritySetting else {
            throw SecretAgentError.noSecrets("this agent only supplies \(Self.wirelessSecuritySetting) secrets, not \(settingName)")
        }
        guard let ssid = SettingsCoding.ssid(settings), !ssid.isEmpty else {
            throw SecretAgentError.noSecrets("profile \(path) has no 802-11-wireless.ssid")
        }
        let keyManagement = settings[Self.wirelessSecuritySetting]?["key-mgmt"]?.string
        guard keyManagement == nil || keyManagement == "wpa-psk" || keyManagement == "sae" else {
            throw SecretAgentError.noSecrets("profile \(path) uses key management \(keyManagement ?? ""), which takes no password from a helper")
        }
        guard let password = try await lookUp(ssid, request) else {
            throw SecretAgentError.noSecrets("no helper supplied a password for the SSID of profile \(path)")
        }
        return SettingsCoding.encode([Self.wirelessSecuritySetting: ["psk": .string(password)]])
    }

    /// Runs the lookup so that `CancelGetSecrets` can end the wait at once.
    private func lookUp(_ ssid: [UInt8], _ request: SecretRequest) async throws -> String? {
        nextRequest &+= 1
        let id = nextRequest
        let key = Self.key(request.connectionPath, request.settingName)
        let lookup = self.lookup
        let password: String? = await withCheckedContinuation { waiter in
            pending[id] = (key, waiter)
            Task { self.finish(id, await lookup(ssid, request)) }
        }
        if canceledRequests.remove(id) != nil { throw SecretAgentError.agentCanceled }
        return password
    }

    private var canceledRequests: Set<UInt64> = []

    private func finish(_ id: UInt64, _ password: String?) {
        guard let p = pending.removeValue(forKey: id) else { return }
        p.waiter.resume(returning: password)
    }

    private func cancel(key: String) {
        for (id, p) in pending where p.key == key {
            pending[id] = nil
            canceledRequests.insert(id)
            p.waiter.resume(returning: nil)
        }
    }

    private static func key(_ path: ObjectPath, _ setting: String) -> String { "\(path.rawValue)\n\(setting)" }
}
