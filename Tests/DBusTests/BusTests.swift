// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The layer on a real private dbus-daemon: calls, exports, signals, properties, errors and
/// bus helpers, with libdbus, busctl, gdbus and python-dbusmock as peers.
@Suite(.enabled(if: TestEnvironment.hasDBusDaemon, "needs /usr/bin/dbus-daemon (apt-get install dbus)"))
struct BusTests {
    @Test func randomValuesRoundTripThroughAnExportedObject() async throws {
        let f = try await BusFixture()
        let seed = UInt64(7)
        var gen = ValueGenerator(seed: seed)
        for i in 0..<300 {
            let v = gen.value()
            let back = try await f.call("Echo", [.variant(v)])
            #expect(back == [.variant(v)], "seed \(seed) case \(i): \(v)")
        }
    }

    @Test func everyBasicTypeArrivesIntactAtTheHandler() async throws {
        let f = try await BusFixture()
        let reply = try await f.call("Types", [.byte(7), .bool(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5), .int64(-6),
                                              .uint64(8), .double(0.5), .string("s'x"), .objectPath("/p"), .signature("a{sv}")])
        #expect(reply == [.string("byte 7|true|int16 -2|uint16 3|-4|uint32 5|int64 -6|uint64 8|0.5|'s\\'x'|objectpath '/p'|signature 'a{sv}'")])
    }

    @Test func busctlIntrospectListsTheTableWithSignatures() async throws {
        let f = try await BusFixture()
        let r = try await f.bus.run("/usr/bin/busctl", ["--address=\(f.bus.address)", "introspect", "--no-pager",
                                                  BusFixture.serviceName.rawValue, TestObject.path.rawValue])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        for expected in [
            "org.example.Test interface - - -",
            ".Echo method v v -",
            ".Options method a{sv} as -",
            ".Types method ybnqiuxtdsog s -",
            ".Name property s \"initial\" emits-change writable",
            ".Paths property ao 2 \"/a\" \"/b\" emits-change",
            ".Version property s \"1.0\" const",
            ".Pinged signal sao - -",
            "org.freedesktop.DBus.Peer interface - - -",
            ".GetMachineId method - s -",
            "org.freedesktop.DBus.Properties interface - - -",
            ".PropertiesChanged signal sa{sv}as - -",
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)\n\(r.stdout)")
        }
    }

    @Test func busctlTreeWalksChildNodes() async throws {
        let f = try await BusFixture()
        try await f.server.export([f.object.table], at: "/org/example/Test/Child/Leaf")
        let r = try await f.bus.run("/usr/bin/busctl", ["--address=\(f.bus.address)", "tree", "--list", BusFixture.serviceName.rawValue])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("/org/example/Test/Child/Leaf"), "\(r.stdout)")
    }

    @Test(.enabled(if: TestEnvironment.hasTool("/usr/bin/gdbus"), "needs gdbus (libglib2.0-bin)"))
    func gdbusCallsAnExportedMethod() async throws {
        let f = try await BusFixture()
        let r = try await f.bus.run("/usr/bin/gdbus", ["call", "--address", f.bus.address, "--dest", BusFixture.serviceName.rawValue,
                                                 "--object-path", TestObject.path.rawValue, "--method", "org.example.Test.Options",
                                                 "{'b': <1>, 'a': <'x'>}"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "(['a', 'b'],)")
    }

    @Test func busctlCallRoundTripsNestedValues() async throws {
        let f = try await BusFixture()
        let r = try await f.bus.run("/usr/bin/busctl", ["--address=\(f.bus.address)", "call", BusFixture.serviceName.rawValue,
                                                  TestObject.path.rawValue, "org.example.Test", "Echo", "v", "a{sv}", "2",
                                                  "ssid", "ay", "3", "104", "105", "33", "n", "u", "7"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"v a{sv} 2 "ssid" ay 3 104 105 33 "n" u 7"#, "\(r.stdout)")
    }

    @Test func wrongArgumentSignatureGetsInvalidArgs() async throws {
        let f = try await BusFixture()
        await #expect { try await f.call("Options", [.int32(1)]) } throws: { $0.dbusName == "org.freedesktop.DBus.Error.InvalidArgs" }
        let r = try await f.bus.run("/usr/bin/busctl", ["--address=\(f.bus.address)", "call", BusFixture.serviceName.rawValue,
                                                  TestObject.path.rawValue, "org.example.Test", "Echo", "s", "x"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("expects arguments of signature 'v'"), "\(r.stderr)")
        // Still serving afterwards.
        #expect(try await f.call("Echo", [.variant(.int32(1))]) == [.variant(.int32(1))])
    }

    @Test func unknownObjectInterfaceMethodAndPropertyGetStandardErrors() async throws {
        let f = try await BusFixture()
        await #expect { try await f.call("Echo", [.variant(.int32(1))], path: "/nowhere") } throws: { $0.dbusName == DBusErrorName.unknownObject }
        await #expect { try await f.call("Echo", [.variant(.int32(1))], interface: "org.example.Other") } throws: { $0.dbusName == DBusErrorName.unknownInterface }
        await #expect { try await f.call("Nope") } throws: { $0.dbusName == DBusErrorName.unknownMethod }
        await #expect { try await f.call("Get", [.string("org.example.Test"), .string("Nope")], interface: "org.freedesktop.DBus.Properties") } throws: { $0.dbusName == DBusErrorName.unknownProperty }
        await #expect { try await f.call("Set", [.string("org.example.Test"), .string("Version"), .variant("2")], interface: "org.freedesktop.DBus.Properties") } throws: { $0.dbusName == DBusErrorName.propertyReadOnly }
        await #expect { try await f.call("Set", [.string("org.example.Test"), .string("Name"), .variant(.int32(2))], interface: "org.freedesktop.DBus.Properties") } throws: { $0.dbusName == DBusErrorName.invalidArgs }
    }

    @Test func handlerErrorsKeepTheirNameAndMessage() async throws {
        let f = try await BusFixture()
        do {
            _ = try await f.call("Fail")
            Issue.record("no error")
        } catch let error as DBus.DBusError {
            #expect(error == .remote(name: "org.example.Test.Error.Scripted", message: "the test asked for this failure"))
        }
    }

    /// A method with an immediate handler answers from the connection's thread as the call is
    /// read (no task in between), fails from there, or hands the rest to a task (`.later`); a
    /// reply of the wrong signature is refused as any handler's is.
    @Test func immediateHandlersAnswerOnTheConnectionsThreadOrLater() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let server = try bus.connect(), client = try bus.connect()
        let threads = Mutex<[String]>([])
        @Sendable func threadName() -> String {
            let fd = open("/proc/thread-self/comm", O_RDONLY)
            guard fd >= 0 else { return "?" }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: 32)
            let n = read(fd, &bytes, bytes.count)
            return String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let table = DBusInterface("org.example.Immediate", methods: [
            DBusMethod("Now", inputs: [DBusArgument("text", "s")], outputs: [DBusArgument("text", "s")], immediate: { call in
                threads.withLock { $0.append(threadName()) }
                return .reply([.string("now: " + (call.body[0].string ?? ""))])
            }),
            DBusMethod("Refuse", immediate: { _ in .failure(ScriptedFailure()) }),
            DBusMethod("Later", outputs: [DBusArgument("text", "s")], immediate: { _ in
                .later {
                    try await Task.sleep(for: .milliseconds(20))
                    return [.string("later")]
                }
            }),
            DBusMethod("Wrong", outputs: [DBusArgument("text", "s")], immediate: { _ in .reply([.uint32(1)]) }),
        ])
        try await server.export([table], at: "/org/example/Immediate")
        func call(_ member: MemberName, _ body: [DBusValue] = []) async throws -> [DBusValue] {
            try await client.call(destination: BusName(server.uniqueName), path: "/org/example/Immediate", interface: "org.example.Immediate",
                                  member: member, body: body, timeout: .seconds(10))
        }
        #expect(try await call("Now", ["x"]) == [.string("now: x")])
        #expect(threads.withLock { $0 } == ["dbus-connection"], "the immediate handler ran on \(threads.withLock { $0 })")
        await #expect { try await call("Refuse") } throws: { $0.dbusName == "org.example.Test.Error.Scripted" }
        #expect(try await call("Later") == [.string("later")])
        await #expect { try await call("Wrong") } throws: { ($0 as? DBus.DBusError)?.message.contains("returned 'u' instead of 's'") == true }
    }

    @Test func peerInterfaceAnswersPingAndMachineId() async throws {
        let f = try await BusFixture()
        #expect(try await f.call("Ping", interface: "org.freedesktop.DBus.Peer").isEmpty)
        let id = try await f.call("GetMachineId", interface: "org.freedesktop.DBus.Peer").first?.string ?? ""
        #expect(id.count == 32)
    }

    @Test func propertiesGetGetAllSetAndEmitChanges() async throws {
        let f = try await BusFixture()
        let changes = try await f.client.signals(matching: MatchRule(path: TestObject.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        let all = try await f.call("GetAll", [.string("org.example.Test")], interface: "org.freedesktop.DBus.Properties")
        // The failing property is left out; GetAll itself still succeeds.
        #expect(all.first?.varDict?.keys.sorted() == ["Name", "Paths", "Version"])
        _ = try await f.call("Set", [.string("org.example.Test"), .string("Name"), .variant("renamed")], interface: "org.freedesktop.DBus.Properties")
        #expect(try await f.call("Get", [.string("org.example.Test"), .string("Name")], interface: "org.freedesktop.DBus.Properties") == [.variant("renamed")])
        var it = changes.makeAsyncIterator()
        let signal = await it.next()
        #expect(signal?.body == [.string("org.example.Test"), .varDict(["Name": "renamed"]), .strings([])])
        await #expect { try await f.server.propertiesChanged(path: TestObject.path, interface: TestObject.interface, ["Version": "2"]) } throws: { _ in true }
    }

    @Test func propertiesAnnouncedByNameAreReadThroughTheirGetters() async throws {
        let f = try await BusFixture()
        let changes = try await f.client.signals(matching: MatchRule(path: TestObject.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        _ = try await f.call("Set", [.string("org.example.Test"), .string("Name"), .variant("first")], interface: "org.freedesktop.DBus.Properties")
        var it = changes.makeAsyncIterator()
        _ = await it.next()  // Set's own announcement
        // The caller names the property; the value sent is the getter's, read now.
        try await f.server.propertiesChanged(path: TestObject.path, interface: TestObject.interface, names: ["Name", "Paths", "Name"])
        let signal = await it.next()
        #expect(signal?.body == [.string("org.example.Test"), .varDict(["Name": "first", "Paths": .objectPaths(["/a", "/b"])]), .strings([])])
        // Unknown names and properties declared not to change are refused.
        await #expect { try await f.server.propertiesChanged(path: TestObject.path, interface: TestObject.interface, names: ["Nope"]) } throws: { _ in true }
        await #expect { try await f.server.propertiesChanged(path: TestObject.path, interface: TestObject.interface, names: ["Version"]) } throws: { _ in true }
    }

    @Test func signalsReachSubscribersAndTheRuleIsRemovedWithTheLastOne() async throws {
        let f = try await BusFixture()
        func matchRules() async throws -> UInt32? {
            let stats = try await f.client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                interface: "org.freedesktop.DBus.Debug.Stats", member: "GetConnectionStats",
                                                body: [.string(f.client.uniqueName)])
            return stats.first?.varDict?["MatchRules"]?.uint32
        }
        let before = try await matchRules()
        let rule = MatchRule(sender: BusFixture.serviceName, path: TestObject.path, interface: TestObject.interface, member: "Pinged")
        var first: AsyncStream<Signal>? = try await f.client.signals(matching: rule)
        var second: AsyncStream<Signal>? = try await f.client.signals(matching: rule)
        let during = try await matchRules()
        try await f.server.emit(path: TestObject.path, interface: TestObject.interface, member: "Pinged", body: ["hello", .objectPaths(["/x"])])
        var i1 = first!.makeAsyncIterator(), i2 = second!.makeAsyncIterator()
        #expect(await i1.next()?.body == ["hello", .objectPaths(["/x"])])
        #expect(await i2.next()?.body.first == "hello")
        // Emitting with the wrong signature is refused before it is sent.
        await #expect { try await f.server.emit(path: TestObject.path, interface: TestObject.interface, member: "Pinged", body: ["x"]) } throws: { _ in true }
        let monitor = try await BusMonitor.start(on: f.bus)
        defer { monitor.stop() }
        first = nil; i1 = first?.makeAsyncIterator() ?? second!.makeAsyncIterator()
        second = nil; i1 = AsyncStream<Signal> { $0.finish() }.makeAsyncIterator(); i2 = i1
        // The rule goes when the last stream is gone, from a task of its own: wait until the bus
        // carries the client's RemoveMatch (the bus handles the client's next call after it).
        let client = f.client.uniqueName
        try await monitor.process.changes.until("the client removes its rule") {
            monitor.messages.contains { $0.member == "RemoveMatch" && $0.sender == client }
        }
        let after = try await matchRules()
        if let before, let during {
            #expect(during > before)
            #expect(after == before, "match rules: before \(before), during \(during), after \(String(describing: after))")
        } else {
            Issue.record("the bus does not report match-rule statistics")
        }
    }

    /// A subscription with a handler: signals arrive in the order sent, on the connection's
    /// thread; after unsubscribe none arrives and the rules leave the bus.
    @Test func handlerSubscriptionsGetSignalsInOrderOnTheConnectionsThreadUntilUnsubscribed() async throws {
        let f = try await BusFixture()
        func matchRules() async throws -> UInt32? {
            try await f.client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus.Debug.Stats",
                                    member: "GetConnectionStats", body: [.string(f.client.uniqueName)]).first?.varDict?["MatchRules"]?.uint32
        }
        let before = try await matchRules()
        let got = Mutex<[String]>([])
        let arrived = Changes()
        let offThread = Mutex(0)
        let client = f.client
        let rules = [MatchRule(sender: BusFixture.serviceName, path: TestObject.path, interface: TestObject.interface, member: "Pinged"),
                     MatchRule(sender: BusFixture.serviceName, path: "/org/example/Other", interface: TestObject.interface)]
        let subscription = try await client.subscribe(matchingAny: rules) { signal in
            if !client.isOnConnectionThread { offThread.withLock { $0 += 1 } }
            got.withLock { $0.append(signal.body.first?.string ?? "?") }
            arrived.bump()
        }
        let during = try await matchRules()
        for i in 0..<20 {
            try await f.server.emit(path: TestObject.path, interface: TestObject.interface, member: "Pinged", body: [.string("\(i)"), .objectPaths([])])
        }
        try await arrived.until("20 signals reach the handler") { got.withLock { $0.count } >= 20 }
        #expect(got.withLock { $0 } == (0..<20).map { "\($0)" })
        #expect(offThread.withLock { $0 } == 0)
        await client.unsubscribe(subscription)
        let after = try await matchRules()
        if let before, let during {
            #expect(during > before && after == before, "match rules: before \(before), during \(during), after \(String(describing: after))")
        } else {
            Issue.record("the bus does not report match-rule statistics")
        }
        try await f.server.emit(path: TestObject.path, interface: TestObject.interface, member: "Pinged", body: ["late", .objectPaths([])])
        _ = try await f.call("Echo", [.variant("flush")])  // the late signal, had it come, came before this reply
        #expect(got.withLock { $0.count } == 20)
    }

    @Test func wellKnownSenderRulesIgnoreSignalsFromOtherConnections() async throws {
        let f = try await BusFixture()
        let impostor = try f.bus.connect()
        let stream = try await f.client.signals(matching: MatchRule(sender: BusFixture.serviceName, interface: TestObject.interface, member: "Pinged"))
        let any = try await f.client.signals(matching: MatchRule(interface: TestObject.interface, member: "Pinged"))
        try await impostor.emit(path: "/x", interface: TestObject.interface, member: "Pinged", body: ["fake", .objectPaths([])])
        try await f.server.emit(path: TestObject.path, interface: TestObject.interface, member: "Pinged", body: ["real", .objectPaths([])])
        var it = stream.makeAsyncIterator()
        #expect(await it.next()?.body.first == "real")
        var all = any.makeAsyncIterator()
        #expect(await all.next()?.body.first == "fake")
        #expect(await all.next()?.body.first == "real")
    }

    @Test func requestNameFailsClearlyWhenTheNameIsTaken() async throws {
        let f = try await BusFixture()
        let other = try f.bus.connect()
        do {
            try await other.requestName(BusFixture.serviceName)
            Issue.record("took a name that was owned")
        } catch let error as DBus.DBusError {
            #expect(error == .nameTaken("org.example.TestService"))
            #expect(error.message.contains("already owned"))
        }
    }

    @Test func watchNameOwnerReportsOwnerChanges() async throws {
        let bus = try await PrivateBus()
        let watcher = try bus.connect()
        let owners = try await watcher.watchNameOwner("org.example.Watched")
        var it = owners.makeAsyncIterator()
        #expect(await it.next() == .some(nil))
        let owner = try bus.connect()
        try await owner.requestName("org.example.Watched")
        #expect(await it.next() == .some(owner.uniqueName))
        await owner.close()
        #expect(await it.next() == .some(nil))
    }

    @Test func callerCredentialsComeFromTheBus() async throws {
        let f = try await BusFixture()
        let sender = try await f.call("WhoAmI").first?.string ?? ""
        #expect(sender == f.client.uniqueName)
        let creds = try await f.server.credentials(of: sender)
        #expect(creds.uid == getuid())
        #expect(creds.pid == UInt32(getpid()))
    }

    @Test func invalidValuesAreRefusedBeforeSendingAndTheProcessSurvives() async throws {
        let f = try await BusFixture()
        for (d, p, i, m) in [("not a name", "/", "org.example.Test", "Echo"), ("org.example.TestService", "no/path", "org.example.Test", "Echo"),
                             ("org.example.TestService", "/", "nodots", "Echo"), ("org.example.TestService", "/", "org.example.Test", "Bad.Member")] {
            do {
                _ = try await f.client.call(d, p, i, m, [])
                Issue.record("accepted \(d) \(p) \(i) \(m)")
            } catch let error as DBus.DBusError {
                guard case .invalidValue(let why) = error else { Issue.record("\(error)"); continue }
                #expect([d, p, i, m].contains { why.contains("'\($0)'") }, "\(why)")
            }
        }
        await #expect { try await f.call("Echo", [.variant(.string("nul\0inside"))]) } throws: { ($0 as? DBus.DBusError)?.message.contains("'nul\\0inside'") == true }
        await #expect { try await f.call("Echo", [.variant(.array(element: .string, [.int32(1)]))]) } throws: { _ in true }
        #expect(try await f.call("Echo", [.variant("still alive")]) == [.variant("still alive")])
    }

    @Test func callsTimeOutOnTheSwiftSideDeadline() async throws {
        let f = try await BusFixture()
        // Hold answers only when released, which this test never does: the deadline alone can
        // end the call, and says so (.timedOut).
        await #expect { try await f.call("Hold", timeout: .milliseconds(200)) } throws: { error in
            if case .timedOut(let member, _, _)? = error as? DBus.DBusError { return member == "Hold" }
            return false
        }
        #expect(f.object.holdsAnswered.value == 0)
    }

    @Test func cancellingTheCallingTaskEndsTheCall() async throws {
        let f = try await BusFixture()
        let task = Task { try await f.call("Sleep", [.uint32(5_000)]) }
        try await f.object.waitForSleeper()  // the call is under way in the server
        task.cancel()
        await #expect { try await task.value } throws: { ($0 as? DBus.DBusError) == .cancelled }
    }

    /// callNow sends at once on the connection's thread (an immediate handler runs there), and
    /// from elsewhere hands the call to that thread at once, so it leaves whether or not its reply
    /// is awaited; its reply, errors, deadline and cancellation are those of call().
    @Test func callNowSendsAtOnceOnTheConnectionsThread() async throws {
        let f = try await BusFixture()
        let client = f.client
        @Sendable func echo(_ text: String) -> PendingReply {
            client.callNow(destination: BusFixture.serviceName, path: TestObject.path, interface: TestObject.interface, member: "Echo",
                           body: [.variant(.string(text))], timeout: .seconds(10))
        }
        // Off the thread: handed to the thread and sent with nobody awaiting the reply (the
        // server gets it), and answered when awaited.
        let unawaited = client.callNow(destination: BusFixture.serviceName, path: TestObject.path, interface: TestObject.interface,
                                       member: "Sleep", body: [.uint32(0)], timeout: .seconds(10))
        try await f.object.waitForSleeper()
        #expect(unawaited.wasSent)
        let later = echo("later")
        #expect(try await later.body() == [.variant("later")])
        #expect(later.wasSent)
        // On the thread: sent before the handler returns.
        let sentInHandler = Mutex<Bool?>(nil)
        let relay = DBusInterface("org.example.Relay", methods: [
            DBusMethod("Relay", outputs: [DBusArgument("echo", "v")], immediate: { _ in
                let reply = echo("relayed")
                sentInHandler.withLock { $0 = reply.wasSent }
                return .later { try await reply.body() }
            }),
        ])
        try await client.export([relay], at: "/org/example/Relay")
        let caller = try f.bus.connect()
        let relayed = try await caller.call(destination: BusName(client.uniqueName), path: "/org/example/Relay", interface: "org.example.Relay",
                                            member: "Relay", timeout: .seconds(10))
        #expect(relayed == [.variant("relayed")])
        #expect(sentInHandler.withLock { $0 } == true)
        // Errors, the deadline and cancellation.
        let bad = client.callNow(destination: BusFixture.serviceName, path: TestObject.path, interface: TestObject.interface, member: "Fail")
        await #expect { try await bad.body() } throws: { $0.dbusName == "org.example.Test.Error.Scripted" }
        let slow = client.callNow(destination: BusFixture.serviceName, path: TestObject.path, interface: TestObject.interface, member: "Sleep",
                                  body: [.uint32(5_000)], timeout: .milliseconds(200))
        await #expect { try await slow.body() } throws: { if case .timedOut? = $0 as? DBus.DBusError { return true }; return false }
        let cancelled = client.callNow(destination: BusFixture.serviceName, path: TestObject.path, interface: TestObject.interface,
                                       member: "Sleep", body: [.uint32(5_000)])
        let waiting = Task { try await cancelled.body() }
        try await f.object.waitForSleeper(3)  // the unawaited call was the first, the timed-out one the second
        waiting.cancel()
        await #expect { try await waiting.value } throws: { ($0 as? DBus.DBusError) == .cancelled }
    }

    /// perform runs work on the connection's thread, in the order it was handed over and in order
    /// with the actor's jobs, and does not wait for it.
    @Test func performRunsWorkOnTheConnectionsThreadInOrder() async throws {
        let f = try await BusFixture()
        let ran = Mutex<[Int]>([])
        let elsewhere = Mutex(0)
        #expect(!f.client.isOnConnectionThread)
        for i in 0..<200 {
            f.client.perform { c in
                if !c.isOnConnectionThread { elsewhere.withLock { $0 += 1 } }
                ran.withLock { $0.append(i) }
            }
        }
        // A job of the actor queued after the work runs after it.
        _ = await f.client.isConnected
        #expect(ran.withLock { $0 } == Array(0..<200))
        #expect(elsewhere.withLock { $0 } == 0)
    }

    @Test func theBusGoingAwayFailsPendingCallsAndIsReported() async throws {
        let f = try await BusFixture()
        let pending = Task { try await f.call("Sleep", [.uint32(20_000)], timeout: .seconds(30)) }
        try await f.object.waitForSleeper()
        f.bus.stop()
        await #expect { try await pending.value } throws: { error in
            guard let e = error as? DBus.DBusError else { return false }
            if case .disconnected = e { return true }
            return e.name == DBusErrorName.noReply
        }
        let reason = await f.client.disconnection()
        #expect(reason.contains("closed") || reason.contains("hung up"))
        #expect(await f.client.isConnected == false)
        await #expect { try await f.call("Echo", [.variant(.int32(1))]) } throws: { error in
            if case .disconnected? = error as? DBus.DBusError { return true }
            return false
        }
    }
}
