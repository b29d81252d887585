// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import DBus
import Foundation
import HotspotProtocol
import Testing

extension DesktopTests {
    /// `hotspotctl sign-in` on a pseudo-terminal, as a person at a terminal uses it, against the
    /// real daemon (its built-in portal helper) on a private bus with python-dbusmock's
    /// NetworkManager and the portal simulator's form on loopback; then `hotspotctl remembered`
    /// and `forget`.
    @Suite(.enabled(if: TestEnvironment.hasDBusMock, "needs dbus-daemon and python3-dbusmock (apt-get install dbus python3-dbusmock)"))
    struct SignInCtlTests {
        /// The simulator's form page: a user name and a password (type=password), posted over
        /// plain http; it accepts guest7 / secret and answers "Wrong user name or password." else
        /// (a user name that is not in that message: the daemon blanks what was typed out of it).
        @Test func signInAsksOnTheTerminalWithoutEchoingThePasswordAndAsksAgainWhenRejected() async throws {
            let portal = try await SimulatedPortal.start(mode: "form", options: ["--username", "guest7"])
            defer { portal.stop() }
            let s = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")],
                                             settings: ["command-timeout": "20", "filter-interval": "0.2", "maintain-interval": "300"],
                                             connectivity: portal.connectivity().merging(["interval": "300"]) { _, new in new })
            try await s.join("CityFree")
            try await s.waitFor("presenting-ui")

            // --json: the form, never a value.
            let form = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["sign-in", "--json"])
            #expect(form.status == 0, "\(form.stderr)\n\(s.diagnostics)")
            let doc = try JSONSerialization.jsonObject(with: Data(form.stdout.utf8)) as? [String: Any]
            #expect(doc?["kind"] as? String == "form", "\(form.stdout)")
            #expect(doc?["plain-http"] as? Bool == true, "\(form.stdout)")
            let fields = doc?["fields"] as? [[String: Any]] ?? []
            #expect(fields.compactMap { $0["name"] as? String } == ["username", "password"], "\(form.stdout)")
            #expect(fields.compactMap { $0["kind"] as? String } == ["text", "password"], "\(form.stdout)")
            #expect(!form.stdout.contains("secret"))

            // On a terminal: the plain-http question, the fields, a rejection, the fields again.
            let run = try await PseudoTerminal.run([TestKitPaths.product("hotspotctl").path, "sign-in", "wlan0"],
                                                   environment: ["DBUS_SYSTEM_BUS_ADDRESS": s.bus.address],
                                                   dialogue: [("Send it anyway? [y/N] ", "y"),
                                                              ("username", "guest7"),
                                                              ("password", "wrong-pass"),
                                                              ("The portal did not accept these details: Wrong user name or password.", nil),
                                                              ("Send it anyway? [y/N] ", "y"),
                                                              ("username", "guest7"),
                                                              ("password", "secret")])
            print("hotspotctl sign-in on a pseudo-terminal:\n\(run.transcript)")
            #expect(run.status == 0, "\(run.transcript)\n\(s.diagnostics)")
            #expect(run.transcript.contains("Signed in on wlan0."), "\(run.transcript)")
            // What is typed at an ordinary prompt is echoed; a password is not: the terminal had
            // ECHO off when the password's prompt showed, and on again at the next question.
            #expect(run.transcript.contains("guest7\r\n"), "\(run.transcript)")
            #expect(!run.transcript.contains("secret") && !run.transcript.contains("wrong-pass"), "\(run.transcript)")
            #expect(run.echoAtPrompts == [true, true, false, true, true, false], "\(run.echoAtPrompts)\n\(run.transcript)")
            try await s.waitFor("authenticated")

            // Remembered: listed with its host and field names, never what was typed.
            let listed = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["remembered"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("CityFree") && listed.stdout.contains("username, password"), "\(listed.stdout)")
            #expect(!listed.stdout.contains("secret"))
            let listedJSON = try JSONSerialization.jsonObject(with: Data(try await s.bus.run(TestKitPaths.product("hotspotctl").path,
                                                                                             ["remembered", "--json"]).stdout.utf8)) as? [[String: Any]]
            #expect(listedJSON?.first?["ssid"] as? String == "CityFree")
            #expect(listedJSON?.first?["fields"] as? [String] == ["username", "password"])

            // Forgotten with the rest of what the daemon knows about the network.
            let forgot = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["forget", "CityFree"])
            #expect(forgot.status == 0, "\(forgot.stderr)")
            let after = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["remembered"])
            #expect(after.stdout == "No sign-in is remembered.\n", "\(after.stdout)")
        }

        /// Without a waiting sign-in, the command says why and what to do; standard input that
        /// ends before every field is answered fails and sends nothing.
        @Test func signInSaysWhenNothingWaitsAndWhenTheAnswersRunOut() async throws {
            let portal = try await SimulatedPortal.start(mode: "form")
            defer { portal.stop() }
            let s = try await DaemonScenario(accessPoints: [MockAccessPoint(name: "ap1", ssid: "CityFree", bssid: "0A:00:00:00:00:01")],
                                             settings: ["command-timeout": "20", "filter-interval": "0.2", "maintain-interval": "300"],
                                             connectivity: portal.connectivity().merging(["interval": "300"]) { _, new in new })
            let none = try await s.bus.run(TestKitPaths.product("hotspotctl").path, ["sign-in"])
            #expect(none.status == 1, "\(none.stdout)\(none.stderr)")
            #expect(none.stderr.contains("no sign-in is waiting on wlan0: join the network first"), "\(none.stderr)")

            try await s.join("CityFree")
            try await s.waitFor("presenting-ui")
            let run = try await PseudoTerminal.run([TestKitPaths.product("hotspotctl").path, "sign-in", "--no-remember"],
                                                   environment: ["DBUS_SYSTEM_BUS_ADDRESS": s.bus.address],
                                                   dialogue: [("Send it anyway? [y/N] ", "y"), ("username", "user")], closeInput: true)
            #expect(run.status == 1, "\(run.transcript)")
            #expect(run.transcript.contains("standard input ended before every field was answered"), "\(run.transcript)")
            #expect(try await s.state() == "presenting-ui")
        }
    }
}

/// A program run on a pseudo-terminal by a small Python driver (pty.fork): it waits for each
/// expected text in the program's output, then types the answer and Enter, records whether the
/// terminal echoed input when each prompt was seen, and returns everything the terminal showed.
enum PseudoTerminal {
    struct Result: Decodable {
        var status: Int
        var transcript: String
        /// Whether the terminal had ECHO on when each expected text was seen.
        var echoAtPrompts: [Bool]
        enum CodingKeys: String, CodingKey { case status, transcript, echoAtPrompts = "echo_at_prompts" }
    }

    static let driver = #"""
        import json, os, pty, select, signal, sys, termios, time
        spec = json.loads(sys.argv[1])
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(spec["argv"][0], spec["argv"], dict(os.environ, **spec["env"]))
        out = b""
        seen = 0
        echo = []
        deadline = time.monotonic() + spec["limit"]

        def echo_on():
            try:
                return bool(termios.tcgetattr(fd)[3] & termios.ECHO)
            except OSError:
                return True

        def read_some(timeout):
            global out
            r, _, _ = select.select([fd], [], [], timeout)
            if not r:
                return True
            try:
                data = os.read(fd, 4096)
            except OSError:
                return False
            if not data:
                return False
            out += data
            return True

        alive = True
        for expect, answer in spec["dialogue"]:
            while alive and expect.encode() not in out[seen:] and time.monotonic() < deadline:
                alive = read_some(0.5)
            at = out.find(expect.encode(), seen)
            if at < 0:
                break
            seen = at + len(expect.encode())
            if answer is None:
                continue
            # The program sets the terminal (a password's ECHO off) before it prints the prompt.
            echo.append(echo_on())
            os.write(fd, answer.encode() + b"\r")
        if spec["close"]:
            os.write(fd, b"\x04")
        while alive and time.monotonic() < deadline:
            alive = read_some(0.5)
        if alive:
            # Still asking at the limit: ended, so the transcript says where it stopped.
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": os.waitstatus_to_exitcode(status), "transcript": out.decode("utf-8", "replace"),
                          "echo_at_prompts": echo}))
        """#

    /// Runs `argv` on a pseudo-terminal, answering `dialogue` in order (an expected text, then
    /// what to type, or nil to only wait for it); with `closeInput`, the input ends (Ctrl+D)
    /// after the last answer.
    static func run(_ argv: [String], environment: [String: String], dialogue: [(String, String?)], closeInput: Bool = false) async throws -> Result {
        let scratch = try ScratchDirectory("pty")
        let script = scratch.appendingPathComponent("pty-driver.py")
        try driver.write(to: script, atomically: false, encoding: .utf8)
        let spec: [String: Any] = ["argv": argv, "env": environment, "dialogue": dialogue.map { [$0.0, $0.1 as Any? ?? NSNull()] },
                                   "close": closeInput, "limit": Int(SafetyNet.wait.components.seconds)]
        let specText = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let r = try await ManagedProcess.run("/usr/bin/python3", [script.path, specText], timeout: SafetyNet.wait + .seconds(30))
        guard r.status == 0, let result = try? JSONDecoder().decode(Result.self, from: Data(r.stdout.utf8)) else {
            throw TestKitError.startFailed("the pty driver failed (\(r.status)): \(r.stdout)\(r.stderr)")
        }
        return result
    }
}
