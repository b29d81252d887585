// SPDX-License-Identifier: Apache-2.0
import CDBus
import DBus
import Foundation
import HotspotTesting
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Peer links (`Connection+PeerLinks.swift`): one end handed over the real bus in a method reply,
/// calls and replies on the link, and a peer on the link that misbehaves.
@Suite(.enabled(if: TestEnvironment.hasDBusDaemon, "needs /usr/bin/dbus-daemon (apt-get install dbus)"))
struct PeerLinkTests {
    /// Records why a link closed.
    final class Closed: Sendable {
        let reasons = Mutex<[String]>([])
        let count = Counter()
        func callback() -> @Sendable (String, String) -> Void {
            { _, reason in self.reasons.withLock { $0.append(reason) }; self.count.add() }
        }
        var first: String? { reasons.withLock { $0.first } }
    }

    /// The handing side ("daemon") exports `OpenLink`, which makes a socket pair, serves one end
    /// (no calls accepted) and returns the other over the bus; the receiving side ("helper")
    /// serves that end with the test object exported.
    struct Linked {
        let fixture: BusFixture
        let daemonLink: String
        let helperLink: String
        let daemonClosed = Closed()
        let helperClosed = Closed()

        init(daemonMaximum: Int = 1 << 20) async throws {
            fixture = try await BusFixture()
            let daemon = fixture.client, helper = fixture.server
            let made = Mutex<String?>(nil)
            let closed = daemonClosed
            try await daemon.export([DBusInterface("org.example.Linker", methods: [
                DBusMethod("OpenLink", outputs: [DBusArgument("link", "h")]) { _ in
                    let (mine, theirs) = try Connection.socketPair()
                    let name = try await daemon.adoptPeerLink(mine, role: .server, acceptsCalls: false, maximumMessageSize: daemonMaximum,
                                                              onClose: closed.callback())
                    made.withLock { $0 = name }
                    return [.unixFD(theirs)]
                },
            ])], at: "/linker")
            let reply = try await helper.call(destination: BusName(daemon.uniqueName), path: "/linker", interface: "org.example.Linker",
                                              member: "OpenLink")
            guard case .unixFD(let fd)? = reply.first else { throw TestKitError.startFailed("OpenLink returned \(reply)") }
            helperLink = try await helper.adoptPeerLink(fd, role: .client, acceptsCalls: true, onClose: helperClosed.callback())
            daemonLink = try #require(made.withLock { $0 })
        }

        func callHelper(_ member: MemberName, _ body: [DBusValue] = [], timeout: Duration = SafetyNet.wait) async throws -> [DBusValue] {
            try await fixture.client.callNow(link: daemonLink, path: TestObject.path, interface: TestObject.interface, member: member,
                                             body: body, timeout: timeout).body()
        }
    }

    @Test func valuesCrossALinkHandedOverTheBusIntact() async throws {
        let l = try await Linked()
        var gen = ValueGenerator(seed: 0x11A)
        for i in 0..<200 {
            let v = gen.value()
            let back = try await l.callHelper("Echo", [.variant(v)])
            #expect(back == [.variant(v)], "case \(i): \(v)")
        }
        // The handler sees the link as the caller: the link's name, not a bus name anyone can take.
        let who = try await l.callHelper("WhoAmI")
        #expect(who == [.string(l.helperLink)])
        #expect(l.helperLink.hasPrefix(":peer-link.") && l.helperLink != l.fixture.client.uniqueName)
        // Errors come back with their names.
        await #expect { try await l.callHelper("Fail") } throws: { $0.dbusName == "org.example.Test.Error.Scripted" }
        // Nothing of this went through the bus: the bus-side caller count is untouched.
        #expect(l.daemonClosed.first == nil && l.helperClosed.first == nil)
    }

    @Test func aSideThatTakesNoCallsRefusesThemOnTheLink() async throws {
        let l = try await Linked()
        // The helper side calls the daemon side over the link: refused, and the link stays.
        let reply = l.fixture.server.callNow(link: l.helperLink, path: "/linker", interface: "org.example.Linker", member: "OpenLink")
        await #expect { try await reply.body() } throws: { $0.dbusName == DBusErrorName.accessDenied }
        #expect(try await l.callHelper("Echo", [.variant(.uint32(3))]) == [.variant(.uint32(3))])
    }

    @Test func aPeerClosingItsEndFailsTheCallsWaitingOnIt() async throws {
        let l = try await Linked()
        let call = Task { try await l.callHelper("Sleep", [.uint32(30_000)], timeout: .seconds(60)) }
        try await l.fixture.object.waitForSleeper()
        await l.fixture.server.closePeerLink(l.helperLink, reason: "the test closed it")
        // Failed because the link closed: the deadline would have ended it as .timedOut.
        await #expect { try await call.value } throws: { if case .disconnected = $0 as? DBus.DBusError { true } else { false } }
        try await l.daemonClosed.count.wait(atLeast: 1, "the daemon side saw the link close")
        #expect(l.daemonClosed.first == "the peer closed it")
        #expect(l.helperClosed.first == "the test closed it")
        #expect(await l.fixture.client.isPeerLinkOpen(l.daemonLink) == false)
        // A call on the closed link fails at once, and the bus connection works on.
        await #expect { try await l.callHelper("Echo", [.variant(.uint32(1))]) } throws: { if case .disconnected = $0 as? DBus.DBusError { true } else { false } }
        #expect(try await l.fixture.call("Echo", [.variant(.uint32(2))]) == [.variant(.uint32(2))])
    }

    @Test func aMessageOverTheLimitClosesTheLink() async throws {
        let l = try await Linked(daemonMaximum: 4096)
        // The helper's answer is larger than the daemon side takes.
        let big = String(repeating: "x", count: 10_000)
        await #expect { try await l.callHelper("Echo", [.variant(.string(big))]) } throws: { if case .disconnected = $0 as? DBus.DBusError { true } else { false } }
        try await l.daemonClosed.count.wait(atLeast: 1, "the link closed")
        #expect(l.daemonClosed.first?.contains("at most 4096") == true, "\(l.daemonClosed.first ?? "-")")
    }

    /// Raw bytes on the other end of a link adopted by `connection`; `first` is written before
    /// the link is adopted, so it is there when the link's clock starts, however late this task
    /// runs on a busy test process (other suites' fuzzing holds the pool's threads for seconds).
    func rawLink(on connection: Connection, acceptsCalls: Bool = false, first: [UInt8] = []) async throws -> (name: String, peer: FileDescriptor, closed: Closed) {
        let (mine, theirs) = try Connection.socketPair()
        if !first.isEmpty { write(first, to: theirs) }
        let closed = Closed()
        let name = try await connection.adoptPeerLink(mine, role: .server, acceptsCalls: acceptsCalls, onClose: closed.callback())
        return (name, theirs, closed)
    }

    func write(_ bytes: [UInt8], to fd: FileDescriptor) {
        // MSG_NOSIGNAL: a link the other side closed (its deadline passed on a loaded machine)
        // must fail the test, not kill the test process with SIGPIPE.
        let n = bytes.withUnsafeBytes { send(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(n == bytes.count)
    }

    /// A marshalled method return for `replySerial`, made with libdbus.
    func marshalledReturn(replySerial: UInt32, sender: String?) -> [UInt8] {
        let m = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN)!
        defer { dbus_message_unref(m) }
        dbus_message_set_reply_serial(m, replySerial)
        dbus_message_set_serial(m, 9)
        if let sender { _ = sender.withCString { dbus_message_set_sender(m, $0) } }
        var bytes: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        _ = dbus_message_marshal(m, &bytes, &length)
        defer { dbus_free(bytes) }
        return bytes!.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) }
    }

    /// What the raw peer has read so far (non-blocking).
    func readAvailable(_ fd: FileDescriptor) -> String {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    func waitToRead(_ fd: FileDescriptor, _ expected: String) async throws -> String {
        var seen = ""
        let deadline = ContinuousClock.now + SafetyNet.wait
        while !seen.contains(expected) {
            guard ContinuousClock.now < deadline, await Self.readable(fd, within: deadline) else { break }
            seen += readAvailable(fd)
        }
        return seen
    }

    /// Waits in poll() on a thread of its own, not on one of the cooperative pool's few: two
    /// tests blocked there stalled every other test (and the links they had made ran past their
    /// authentication deadline).
    static func readable(_ fd: FileDescriptor, within deadline: ContinuousClock.Instant) async -> Bool {
        let left = ContinuousClock.now.duration(to: deadline)
        let ms = Int32(clamping: max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
        let raw = fd.rawValue
        return await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            Thread {
                var p = pollfd(fd: raw, events: Int16(POLLIN), revents: 0)
                done.resume(returning: poll(&p, 1, ms) > 0)
            }.start()
        }
    }

    static let authenticate = Array("\0AUTH EXTERNAL 30\r\nBEGIN\r\n".utf8)

    @Test func theServerSideAnswersTheAuthenticationExchange() async throws {
        let bus = try await PrivateBus()
        let c = try bus.connect()
        let link = try await rawLink(on: c)
        // A call made before the exchange has ended waits for it: written now, it would be read as a line of it.
        let early = c.callNow(link: link.name, path: TestObject.path, interface: TestObject.interface, member: "WhoAmI", timeout: .seconds(20))
        let earlyCall = Task { try await early.body() }
        write([0] + Array("AUTH ANONYMOUS\r\n".utf8), to: link.peer)
        #expect(try await waitToRead(link.peer, "\r\n") == "REJECTED EXTERNAL\r\n")
        write(Array("AUTH EXTERNAL 31303030\r\n".utf8), to: link.peer)
        let ok = try await waitToRead(link.peer, "\r\n")
        #expect(ok.hasPrefix("OK ") && ok.count == "OK \r\n".count + 32, "\(ok)")
        write(Array("NEGOTIATE_UNIX_FD\r\n".utf8), to: link.peer)
        #expect(try await waitToRead(link.peer, "\r\n").hasPrefix("ERROR"))
        write(Array("BEGIN\r\n".utf8), to: link.peer)
        #expect(try await waitToRead(link.peer, "WhoAmI").contains("WhoAmI"), "the call held back comes after BEGIN")
        earlyCall.cancel()
        // Open: a D-Bus message now gets a D-Bus answer (a call, refused by this side).
        write(marshalledCall(), to: link.peer)
        let answer = try await waitToRead(link.peer, "AccessDenied")
        #expect(answer.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(answer)")
        #expect(link.closed.first == nil)
    }

    @Test func bytesThatAreNotDBusCloseTheLink() async throws {
        let bus = try await PrivateBus()
        let c = try bus.connect()
        let http = try await rawLink(on: c)
        write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8), to: http.peer)
        try await http.closed.count.wait(atLeast: 1, "the link closed")
        #expect(http.closed.first == "the peer did not begin with D-Bus's authentication exchange")
        let junk = try await rawLink(on: c)
        write(Self.authenticate + Array(repeating: 0x41, count: 64), to: junk.peer)
        try await junk.closed.count.wait(atLeast: 1, "the link closed")
        #expect(junk.closed.first == "the peer sent bytes that are not a D-Bus message")
        let chatty = try await rawLink(on: c)
        write([0] + Array(repeating: Array("HELLO\r\n".utf8), count: 20).flatMap { $0 }, to: chatty.peer)
        try await chatty.closed.count.wait(atLeast: 1, "the link closed")
        #expect(chatty.closed.first?.contains("more than 16 lines") == true)
        #expect(try await c.nameOwner("org.freedesktop.DBus") == "org.freedesktop.DBus")
    }

    /// A marshalled method call to the test object, made with libdbus.
    func marshalledCall() -> [UInt8] {
        let m = dbus_message_new_method_call(nil, TestObject.path.rawValue, TestObject.interface.rawValue, "WhoAmI")!
        defer { dbus_message_unref(m) }
        dbus_message_set_serial(m, 7)
        var bytes: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        _ = dbus_message_marshal(m, &bytes, &length)
        defer { dbus_free(bytes) }
        return bytes!.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) }
    }

    @Test func aReplyOnALinkCannotAnswerACallOnTheBus() async throws {
        let f = try await BusFixture()
        let link = try await rawLink(on: f.client)
        // A bus call waits for its reply; a peer on the link forges one for every serial a
        // fresh connection can have used, claiming to be the callee.
        // The callee holds its answer until the test releases it: the call can end before that
        // only by a forged reply.
        let object = f.object
        let call = Task { () -> Int in
            _ = try await f.call("Hold", timeout: SafetyNet.wait)
            return object.holdsAnswered.value  // 0: the call ended before the callee answered
        }
        try await f.object.holders.wait(atLeast: 1, "Hold is under way in the callee")
        write(Self.authenticate, to: link.peer)
        for serial in UInt32(1)...64 { write(marshalledReturn(replySerial: serial, sender: BusFixture.serviceName.rawValue), to: link.peer) }
        _ = try await f.call("Echo", [.variant(.uint32(0))])  // the forgeries were read before this reply
        #expect(await f.client.intake.forgedReplies > 0)
        // Only now may the callee answer; the real reply still ends the call.
        #expect(f.object.holdsAnswered.value == 0)
        f.object.release()
        #expect(try await call.value == 1, "the call ended before the callee answered")
        #expect(link.closed.first == nil, "a stray reply is not a reason to close the link")
    }

    /// A message already waiting in the socket when the link is adopted is handled after `named`
    /// has run: a sender check can know the link before its first message.
    @Test func theLinkIsNamedBeforeItsFirstMessageIsHandled() async throws {
        let bus = try await PrivateBus()
        let c = try bus.connect()
        let order = Mutex<[String]>([])
        try await c.export([DBusInterface(TestObject.interface, methods: [
            DBusMethod("WhoAmI", outputs: [DBusArgument("sender", "s")]) { call in
                order.withLock { $0.append("called by \(call.sender)") }
                return [.string(call.sender)]
            },
        ])], at: TestObject.path)
        let (mine, theirs) = try Connection.socketPair()
        write(Self.authenticate + marshalledCall(), to: theirs)
        let name = try await c.adoptPeerLink(mine, role: .server, acceptsCalls: true, named: { name in order.withLock { $0.append("named \(name)") } },
                                             onClose: { _, _ in })
        #expect(try await waitToRead(theirs, name).contains(name), "the call was answered")
        #expect(order.withLock { $0 } == ["named \(name)", "called by \(name)"])
    }

    @Test func aLinkEndThatIsNotAStreamSocketIsRefused() async throws {
        let bus = try await PrivateBus()
        let c = try bus.connect()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let read = FileDescriptor(fds[0], owned: true), write = FileDescriptor(fds[1], owned: true)
        await #expect(throws: DBus.DBusError.self) { try await c.adoptPeerLink(read, role: .client, acceptsCalls: true, onClose: { _, _ in }) }
        _ = write
    }
}
