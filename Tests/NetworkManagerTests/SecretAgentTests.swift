// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import NetworkManager
import Testing

/// The secret agent, called from the mock NetworkManager's own connection as NetworkManager
/// calls agents (the template has no AgentManager and never calls agents: both are added here).
@Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs python3-dbusmock (apt-get install python3-dbusmock)"))
struct SecretAgentTests {
    static let agentManagerPath: ObjectPath = "/org/freedesktop/NetworkManager/AgentManager"
    static let password = "correct horse battery staple"

    /// AgentManager with Register/RegisterWithCapabilities/Unregister, plus test-only methods
    /// that make the mock's connection (NetworkManager's unique name) call the agent;
    /// StartGetSecrets announces the agent's answer with an AgentAnswered signal (its result, or
    /// its error's name).
    static func addAgentManager(_ nm: MockNetworkManager) async throws {
        let agentCall = """
            import dbus
            agent = self.connection.get_object(args[0], '/org/freedesktop/NetworkManager/SecretAgent', introspect=False)
            """
        try await nm.nm("AddObject", [
            .string(agentManagerPath.rawValue), .string("org.freedesktop.NetworkManager.AgentManager"), .varDict([:]),
            .array(element: .structure([.string, .string, .string, .string]), [
                .structure([.string("Register"), .string("s"), .string(""), .string("")]),
                .structure([.string("RegisterWithCapabilities"), .string("su"), .string(""), .string("")]),
                .structure([.string("Unregister"), .string(""), .string(""), .string("")]),
                .structure([.string("CallGetSecrets"), .string("sa{sa{sv}}osasu"), .string("a{sa{sv}}"), .string(agentCall + "\n" + """
                    ret = agent.GetSecrets(args[1], args[2], args[3], args[4], args[5],
                                           dbus_interface='org.freedesktop.NetworkManager.SecretAgent', signature='a{sa{sv}}osasu')
                    """)]),
                .structure([.string("StartGetSecrets"), .string("sa{sa{sv}}osasu"), .string(""), .string(agentCall + "\n" + """
                    def done(r, mock=self): mock.EmitSignal('org.freedesktop.NetworkManager.AgentManager', 'AgentAnswered', 's', ['answered'])
                    def failed(e, mock=self): mock.EmitSignal('org.freedesktop.NetworkManager.AgentManager', 'AgentAnswered', 's', [e.get_dbus_name()])
                    agent.GetSecrets(args[1], args[2], args[3], args[4], args[5], dbus_interface='org.freedesktop.NetworkManager.SecretAgent',
                                     signature='a{sa{sv}}osasu', reply_handler=done, error_handler=failed)
                    """)]),
                .structure([.string("CallCancelGetSecrets"), .string("sos"), .string(""), .string(agentCall + "\n" + """
                    agent.CancelGetSecrets(args[1], args[2], dbus_interface='org.freedesktop.NetworkManager.SecretAgent')
                    """)]),
            ]),
        ])
    }

    /// Calls one of the AgentManager's test methods, as NetworkManager's own code would run.
    @discardableResult
    static func agentManager(_ nm: MockNetworkManager, _ member: String, _ body: [DBusValue]) async throws -> [DBusValue] {
        try await nm.control.call(MockNetworkManager.busName, agentManagerPath.rawValue, "org.freedesktop.NetworkManager.AgentManager", member, body)
    }

    static func profile(ssid: String, keyManagement: String? = "wpa-psk") -> DBusValue {
        var settings: [String: [String: DBusValue]] = [
            "connection": ["id": .string(ssid), "type": .string("802-11-wireless"), "uuid": .string("7d1c1a5e-0000-4000-8000-000000000001")],
            "802-11-wireless": ["ssid": .bytes(bytes(ssid)), "security": .string("802-11-wireless-security")],
        ]
        if let keyManagement { settings["802-11-wireless-security"] = ["key-mgmt": .string(keyManagement)] }
        return .dictionary(key: .string, value: .dictionary(key: .string, value: .variant),
                           settings.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .varDict($0.value)) })
    }

    static func getSecretsArgs(_ agent: Connection, ssid: String, setting: String = "802-11-wireless-security",
                               keyManagement: String? = "wpa-psk") -> [DBusValue] {
        [.string(agent.uniqueName), profile(ssid: ssid, keyManagement: keyManagement),
         .objectPath("/org/freedesktop/NetworkManager/Settings/1"), .string(setting), .strings([]), .uint32(1)]
    }

    struct Fixture {
        let nm: MockNetworkManager
        let agentConnection: Connection
        let agent: NetworkManagerSecretAgent
        var events: AsyncStream<SecretAgentEvent>.AsyncIterator
    }

    func start(lookup: @escaping NetworkManagerSecretAgent.PasswordLookup = { ssid, _ in
        ssid == bytes("CoffeeShop") ? SecretAgentTests.password : nil
    }) async throws -> Fixture {
        let nm = try await MockNetworkManager()
        try await Self.addAgentManager(nm)
        let connection = try nm.bus.connect()
        let agent = NetworkManagerSecretAgent(connection: connection, identifier: "org.example.hotspot-test", lookup: lookup)
        var events = try await agent.start().makeAsyncIterator()
        let first = await events.next()
        #expect(first == .registered(owner: try #require(try await nm.control.nameOwner("org.freedesktop.NetworkManager"))))
        return Fixture(nm: nm, agentConnection: connection, agent: agent, events: events)
    }

    @Test func registersWithTheAgentManager() async throws {
        let f = try await start()
        let calls = try await f.nm.calls(Self.agentManagerPath).filter { $0.method == "RegisterWithCapabilities" }
        #expect(calls.count == 1)
        #expect(calls.first?.args == [.string("org.example.hotspot-test"), .uint32(0)])
        await f.agent.stop()
        #expect(try await f.nm.calls(Self.agentManagerPath).contains { $0.method == "Unregister" })
    }

    @Test func answersNetworkManagerWithThePasswordForAKnownSSID() async throws {
        let f = try await start()
        let reply = try await Self.agentManager(f.nm, "CallGetSecrets", Self.getSecretsArgs(f.agentConnection, ssid: "CoffeeShop"))
        let secrets = reply.first?.dictEntries ?? []
        #expect(secrets.count == 1)
        #expect(secrets.first?.key == .string("802-11-wireless-security"))
        #expect(secrets.first?.value.varDict == ["psk": .string(Self.password)])
        await f.agent.stop()
    }

    @Test func answersNoSecretsForUnknownSSIDsOtherSettingsAndEnterpriseProfiles() async throws {
        let f = try await start()
        for args in [
            Self.getSecretsArgs(f.agentConnection, ssid: "Elsewhere"),
            Self.getSecretsArgs(f.agentConnection, ssid: "CoffeeShop", setting: "802-1x"),
            Self.getSecretsArgs(f.agentConnection, ssid: "CoffeeShop", keyManagement: "wpa-eap"),
        ] {
            do {
                _ = try await Self.agentManager(f.nm, "CallGetSecrets", args)
                Issue.record("a password was given for \(args[3])")
            } catch {
                #expect(error.nmErrorName == "org.freedesktop.NetworkManager.SecretAgent.NoSecrets", "\(error)")
                #expect(!"\(error)".contains(Self.password))
            }
        }
        await f.agent.stop()
    }

    @Test func refusesCallersOtherThanNetworkManager() async throws {
        let f = try await start()
        let stranger = try f.nm.bus.connect()
        let args = Array(Self.getSecretsArgs(f.agentConnection, ssid: "CoffeeShop").dropFirst())
        do {
            _ = try await stranger.call(f.agentConnection.uniqueName, "/org/freedesktop/NetworkManager/SecretAgent",
                                        "org.freedesktop.NetworkManager.SecretAgent", "GetSecrets", args)
            Issue.record("a stranger got an answer")
        } catch {
            #expect(error.nmErrorName == DBusErrorName.accessDenied, "\(error)")
            #expect(!"\(error)".contains(Self.password))
        }
        await f.agent.stop()
    }

    @Test func cancelGetSecretsEndsAPendingRequest() async throws {
        let lookups = Counter()
        let f = try await start(lookup: { _, _ in
            lookups.add()
            try? await Task.sleep(for: .seconds(600))  // a lookup that would take longer than any wait
            return SecretAgentTests.password
        })
        let answers = try await f.nm.control.signals(matching: MatchRule(path: Self.agentManagerPath, interface: "org.freedesktop.NetworkManager.AgentManager",
                                                                           member: "AgentAnswered"))
        try await Self.agentManager(f.nm, "StartGetSecrets", Self.getSecretsArgs(f.agentConnection, ssid: "Slow"))
        try await lookups.wait("the agent looks the password up")
        try await Self.agentManager(f.nm, "CallCancelGetSecrets", [.string(f.agentConnection.uniqueName), .objectPath("/org/freedesktop/NetworkManager/Settings/1"),
                                                   .string("802-11-wireless-security")])
        let result = await firstElement(of: answers, within: SafetyNet.wait, where: { _ in true })?.body.first?.string
        #expect(result == "org.freedesktop.NetworkManager.SecretAgent.AgentCanceled")
        await f.agent.stop()
    }

    @Test func registersAgainWhenNetworkManagerRestarts() async throws {
        let f = try await start()
        var events = f.events
        try await f.nm.stopMock()
        #expect(await events.next() == .managerGone)
        try await f.nm.restartMock()
        // Until the AgentManager exists registration fails and is retried.
        try await Self.addAgentManager(f.nm)
        let owner = try #require(try await f.nm.control.nameOwner("org.freedesktop.NetworkManager"))
        var event = await events.next()
        while case .registrationFailed? = event { event = await events.next() }
        #expect(event == .registered(owner: owner))
        #expect(try await f.nm.calls(Self.agentManagerPath).contains { $0.method == "RegisterWithCapabilities" })
        let reply = try await Self.agentManager(f.nm, "CallGetSecrets", Self.getSecretsArgs(f.agentConnection, ssid: "CoffeeShop"))
        #expect(reply.first?.dictEntries?.first?.value.varDict == ["psk": .string(Self.password)])
        await f.agent.stop()
    }
}
