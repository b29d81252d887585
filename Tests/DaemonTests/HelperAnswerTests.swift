// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import HotspotHelperKit
import HotspotProtocol
import Testing

/// A helper's single answer to a command (HotspotHelperKit's reply slot), as in-process helpers
/// and the D-Bus handler both get it: given at once (on the bus thread, before anyone waits) or
/// later from a task; never given (the command let go of: command-not-recognized); given twice
/// (the first counts).
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
}
