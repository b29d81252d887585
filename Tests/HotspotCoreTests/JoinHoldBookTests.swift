// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// The join hold's book (``JoinHoldBook``) on the virtual clock, with the core's state machine:
/// `SettleJoin` calls, their early reports, their bound, and the re-check a sign-in waits for.
@Suite struct JoinHoldBookTests {
    /// The engine's part, played on the virtual clock: it tells the book what the core publishes
    /// and what NetworkManager answers, and records what the book resumes and asks for.
    struct HeldJoins {
        var h: Harness
        var book: JoinHoldBook
        var numbering = LinkNumbering()
        /// Calls resumed, with their outcome and when.
        var resumed: [(call: UInt64, outcome: JoinHoldOutcome, at: Instant)] = []
        /// The links NetworkManager was asked to re-check, in order.
        var asked: [UInt64] = []

        init(bound: Duration = .seconds(15), canRecheck: Bool = true) {
            h = Harness()
            h.register("alpha")
            book = JoinHoldBook(bound: bound, canRecheck: canRecheck)
        }

        /// The status last published, as the engine records it.
        var status: InterfaceStatus?

        var link: UInt64? { numbering.link("wlan0") }
        func outcome(of call: UInt64) -> JoinHoldOutcome? { resumed.first { $0.call == call }?.outcome }

        mutating func carryOut(_ answer: JoinHoldBook.Answer) {
            for r in answer.resume { resumed.append((r.call, r.outcome, h.now)) }
            if let recheck = answer.recheck { asked.append(recheck.link) }
        }

        /// Feeds the core an event and carries out what the engine does with its effects.
        mutating func send(_ event: HotspotEvent) {
            follow(h.send(event))
        }

        mutating func answer(_ command: CommandType, _ result: CommandResult = .success, confidence: Confidence? = nil) {
            follow(h.answer("alpha", command, result, confidence: confidence))
        }

        mutating func follow(_ effects: [HotspotEffect]) {
            for effect in effects {
                switch effect {
                case .publishState(let published):
                    status = published
                    carryOut(book.check("wlan0", status: status, link: link, askingRecheck: false))
                case .recheckConnectivity(_, let networkManager):
                    if networkManager, canRecheck, let link {
                        book.recheckAsked("wlan0", link: link)
                        asked.append(link)
                    }
                    carryOut(book.check("wlan0", status: status, link: link))
                default: break
                }
            }
        }

        var canRecheck: Bool { book.canRecheck }

        mutating func join(_ ssid: String) {
            _ = numbering.joined("wlan0", ssid: SSID(ssid))
            send(.connectivityGained("wlan0", network: network(ssid), connection: ConnectionID("conn-\(ssid)")))
        }

        mutating func leave() {
            numbering.left("wlan0")
            carryOut(book.left("wlan0"))
            send(.connectivityLost("wlan0"))
        }

        /// NetworkManager answers the re-check asked for `link`.
        mutating func networkManagerRechecked(_ link: UInt64) {
            carryOut(book.rechecked("wlan0", link: link, status: status, current: self.link))
        }

        /// A `SettleJoin` call, its request to report the join sent, waiting for its answer.
        mutating func settleJoin() -> UInt64 {
            let call = book.begin(on: "wlan0", at: h.now)
            carryOut(book.waiting(call))
            return call
        }

        mutating func reportArrived(_ call: UInt64, reported: Bool = true) {
            carryOut(book.reportArrived(call, reported: reported, status: status, link: link))
        }

        /// Joins `ssid` and makes a `SettleJoin` call whose report has arrived: the call holds
        /// that join.
        @discardableResult
        mutating func holdJoin(_ ssid: String = "Cafe") -> UInt64 {
            join(ssid)
            let call = settleJoin()
            reportArrived(call)
            return call
        }

        /// The helper claims the network, and its sign-in answers `result`.
        mutating func helperSignsIn(_ result: CommandResult = .success) {
            answer(.evaluate, confidence: .high)
            answer(.authenticate, result)
        }

        mutating func advance(by duration: Duration) {
            follow(h.advance(by: duration))
            carryOut(book.due(at: h.now))
        }
    }

    /// NetworkManager switching networks announces the leave and the next activation and runs
    /// the dispatcher at once, so `SettleJoin` comes before the engine has heard of either. The
    /// call is about the join its report names: not settled by the last join, still signed in and
    /// re-checked, nor left to the bound because the last join looked current.
    @Test func aCallMadeBeforeTheEngineHeardTheLeaveHoldsTheNextJoin() {
        var j = HeldJoins()
        j.join("Cafe")
        j.helperSignsIn()
        #expect(j.h.state() == .authenticated)
        #expect(j.asked == [1])
        j.networkManagerRechecked(1)

        j.advance(by: .seconds(1))
        let call = j.settleJoin()
        // The last join is still what the engine knows, signed in and re-checked: not an answer.
        j.carryOut(j.book.check("wlan0", status: j.status, link: j.link))
        #expect(j.resumed.isEmpty)
        // The leave comes next: not this call's join.
        j.leave()
        #expect(j.resumed.isEmpty)
        j.join("Library")
        #expect(j.h.state() == .evaluating)
        // The answer comes behind them: the call holds the new join.
        j.advance(by: .milliseconds(20))
        j.reportArrived(call)
        #expect(j.resumed.isEmpty)
        j.helperSignsIn()
        #expect(j.h.state() == .authenticated)
        // Signed in: held until NetworkManager has checked again, asked once for the new link.
        #expect(j.resumed.isEmpty)
        #expect(j.asked == [1, 2])
        j.advance(by: .milliseconds(300))
        j.networkManagerRechecked(2)
        #expect(j.resumed.map(\.outcome) == [.signedIn])
        #expect(j.resumed.first?.at == j.h.now)
        #expect(j.book.openCalls.isEmpty)
    }

    @Test func anAnswerThatCameBeforeTheCallWaitedIsReadWhenItWaits() {
        var j = HeldJoins()
        j.join("Cafe")
        j.answer(.evaluate, confidence: Confidence.none)
        #expect(j.h.state() == .authenticated)
        let call = j.book.begin(on: "wlan0", at: j.h.now)
        j.reportArrived(call)
        #expect(j.resumed.isEmpty, "nobody waits on it yet")
        j.carryOut(j.book.waiting(call))
        #expect(j.outcome(of: call) == .noHelper)

        let idle = j.book.begin(on: "wlan0", at: j.h.now)
        j.reportArrived(idle, reported: false)
        j.carryOut(j.book.waiting(idle))
        #expect(j.outcome(of: idle) == .notJoining)
        #expect(j.asked == [], "no helper signed in: nothing to re-check")
    }

    @Test func theBoundEndsACallWaitingForItsReportAndALateAnswerChangesNothing() {
        var j = HeldJoins(bound: .seconds(15))
        j.join("Cafe")
        let call = j.settleJoin()
        #expect(j.book.deadline(of: call) == j.h.now + .seconds(15))
        j.advance(by: .seconds(15) - .milliseconds(1))
        #expect(j.resumed.isEmpty)
        j.advance(by: .milliseconds(1))
        #expect(j.resumed.map(\.outcome) == [.timedOut])
        j.reportArrived(call)
        #expect(j.resumed.count == 1)
        #expect(j.book.openCalls.isEmpty)
    }

    @Test func theBoundEndsAHeldJoinWhoseHelperDoesNotAnswer() {
        var j = HeldJoins(bound: .seconds(5))
        j.holdJoin()
        j.answer(.evaluate, confidence: .high)
        #expect(j.h.state() == .authenticating)
        j.advance(by: .seconds(5))
        #expect(j.resumed.map(\.outcome) == [.timedOut])
        #expect(j.resumed.first?.at == Instant.epoch + .seconds(5))
    }

    /// A call whose bound passed before it waited (its request to report took that long) is
    /// late, whatever its report said.
    @Test func theBoundWinsOverAnOutcomeNotYetRead() {
        var j = HeldJoins(bound: .seconds(2))
        j.join("Cafe")
        let call = j.book.begin(on: "wlan0", at: j.h.now)
        j.reportArrived(call, reported: false)
        j.advance(by: .seconds(2))
        j.carryOut(j.book.waiting(call))
        #expect(j.outcome(of: call) == .timedOut)
    }

    @Test func aLeaveEndsTheHeldJoinButNotACallStillWaitingForItsReport() {
        var j = HeldJoins()
        let held = j.holdJoin()
        let reporting = j.settleJoin()
        j.leave()
        #expect(j.resumed.map(\.call) == [held])
        #expect(j.outcome(of: held) == .left)
        #expect(j.book.openCalls == [reporting])
        // Its answer says the device is not being activated any more.
        j.reportArrived(reporting, reported: false)
        #expect(j.outcome(of: reporting) == .notJoining)
    }

    /// A network joined again is signed in by a maintain to its cached helper, which asks
    /// NetworkManager for no check; a hold on it asks for the check it waits for, once.
    @Test func aHoldOnAJoinSignedInByAMaintainAsksForTheRecheckOnce() {
        var j = HeldJoins()
        j.join("Cafe")
        j.helperSignsIn()
        j.networkManagerRechecked(1)
        j.leave()
        j.join("Cafe")
        j.answer(.maintain)
        #expect(j.h.state() == .authenticated)
        #expect(j.asked == [1], "a maintain that found the session alive asks for no check")
        let call = j.settleJoin()
        j.reportArrived(call)
        #expect(j.asked == [1, 2])
        #expect(j.resumed.isEmpty)
        j.carryOut(j.book.check("wlan0", status: j.status, link: j.link))
        #expect(j.asked == [1, 2], "asked once")
        j.networkManagerRechecked(2)
        #expect(j.outcome(of: call) == .signedIn)
    }

    /// NetworkManager's check after the last link's sign-in, answered once the link is left,
    /// counts for nothing.
    @Test func aRecheckOfALinkAlreadyLeftCountsForNothing() {
        var j = HeldJoins()
        let call = j.holdJoin()
        j.helperSignsIn()
        #expect(j.asked == [1])
        j.carryOut(j.book.rechecked("wlan0", link: 1, status: j.status, current: 2))
        #expect(j.resumed.isEmpty)
        j.networkManagerRechecked(1)
        #expect(j.outcome(of: call) == .signedIn)
    }

    @Test func withoutNetworkManagerToAskASignInSettlesAtOnce() {
        var j = HeldJoins(canRecheck: false)
        let call = j.holdJoin()
        j.helperSignsIn()
        #expect(j.outcome(of: call) == .signedIn)
        #expect(j.asked.isEmpty)
    }

    @Test func theUserBeingNeededOrAFailureReleaseAtOnce() {
        var j = HeldJoins()
        let call = j.holdJoin()
        j.helperSignsIn(.uiRequired)
        #expect(j.outcome(of: call) == .needsUser)

        var f = HeldJoins()
        let failing = f.holdJoin()
        f.helperSignsIn(.failure)
        #expect(f.outcome(of: failing) == .failed)
    }
}
