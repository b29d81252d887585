// SPDX-License-Identifier: Apache-2.0
import DBus
import HotspotCore
@testable import HotspotHelperKit
import HotspotProtocol
import HotspotTesting
import Synchronization
import Testing

/// A helper's single answer to a command (HotspotHelperKit's reply slot), as in-process helpers
/// and the D-Bus handler both get it: given at once (on the bus thread, before anyone waits) or
/// later from a task; never given (the command let go of: command-not-recognized); given twice
/// (the first counts). The last test sends the commands over a private bus to the handler table
/// HotspotHelper exports.
@Suite(.timeLimit(.minutes(1)))
struct HelperAnswerTests {
    static let command = WireCommand(type: .authenticate, interface: "wlan0", network: Network(ssid: SSID("X")), isChosenHelper: true,
                                     networks: [], deadline: nil)
    static func helper(_ handler: @escaping HotspotHelper.Handler) -> InProcessHelper {
        InProcessHelper(options: HotspotHelperOptions(displayName: "Answers"), handler: handler)
    }

    @Test func anAnswerGivenAtOnceOrLaterIsTheAnswer() async {
        let now = Self.helper { $0.createResponse(.success).deliver() }
        #expect(await now.answer(Self.command).result == .success)
        let later = Self.helper { command in
            Task {
                try? await Task.sleep(for: .milliseconds(20))
                command.createResponse(.uiRequired).deliver()
            }
        }
        #expect(await later.answer(Self.command).result == .uiRequired)
    }

    @Test func aCommandLetGoOfUnansweredIsNotRecognized() async {
        let dropped = Self.helper { _ in }
        #expect(await dropped.answer(Self.command).result == .commandNotRecognized)
        let keptAWhile = Self.helper { command in
            Task {
                try? await Task.sleep(for: .milliseconds(20))
                withExtendedLifetime(command) {}
            }
        }
        #expect(await keptAWhile.answer(Self.command).result == .commandNotRecognized)
        // A response made but never delivered keeps the command until it goes too.
        let undelivered = Self.helper { command in _ = command.createResponse(.success) }
        #expect(await undelivered.answer(Self.command).result == .commandNotRecognized)
    }

    @Test func onlyTheFirstAnswerCounts() async {
        let twice = Self.helper { command in
            command.createResponse(.failure).deliver()
            command.createResponse(.success).deliver()
        }
        #expect(await twice.answer(Self.command).result == .failure)
    }

    /// Over a real bus: HandleCommand answered on the helper's bus thread, later from a task, or
    /// never (the command let go of unanswered: command-not-recognized, not a timeout); and only
    /// the daemon's name may send commands.
    @Test func theHandlerTableAnswersOverTheBusAtOnceLaterOrNotRecognized() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let helperSide = try bus.connect(), daemonSide = try bus.connect(), stranger = try bus.connect()
        let owner = OwnerBox()
        owner.set(daemonSide.uniqueName)
        let kept = Kept()
        let table = HotspotHelper.handlerInterface(owner: owner) { command in
            switch command.network?.ssid {
            case "now": command.createResponse(.success).deliver()
            case "later":
                Task {
                    try? await Task.sleep(for: .milliseconds(20))
                    command.createResponse(.uiRequired).deliver()
                }
            case "kept":
                // Kept past the handler's return, then let go of from a task, never answered.
                kept.commands.withLock { $0.append(command) }
                Task {
                    try? await Task.sleep(for: .milliseconds(20))
                    kept.commands.withLock { $0.removeAll() }
                }
            default: break  // dropped at once
            }
        }
        let path: ObjectPath = "/org/example/Handler"
        try await helperSide.export([table], at: path)
        func send(_ ssid: String, from connection: Connection) async throws -> CommandResult? {
            var command = Self.command
            command.network = Network(ssid: SSID(ssid))
            let reply = try await connection.call(destination: BusName(helperSide.uniqueName), path: path,
                                                  interface: HotspotContract.handlerInterface,
                                                  member: HotspotContract.Handler.handleCommand.name,
                                                  body: [command.encode()], timeout: .seconds(10))
            return try WireResponse.decode(reply[0]).result
        }
        #expect(try await send("now", from: daemonSide) == .success)
        #expect(try await send("later", from: daemonSide) == .uiRequired)
        #expect(try await send("dropped", from: daemonSide) == .commandNotRecognized)
        #expect(try await send("kept", from: daemonSide) == .commandNotRecognized)
        await #expect { try await send("now", from: stranger) } throws: { $0.dbusName == DBusErrorName.accessDenied }
    }

    final class Kept: Sendable {
        let commands = Mutex<[HotspotHelperCommand]>([])
    }
}
