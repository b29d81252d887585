// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import HotspotCore

/// Who may register a helper (``HelperAdmission``): identifier ownership, the built-in helpers'
/// names, one helper per connection and per identifier, the per-uid cap.
@Suite struct HelperAdmissionDecisionTests {
    typealias R = HelperAdmission.Registered
    let builtIns = ["Known Networks", "Portal"]

    @Test func anIdentifierStaysWithTheUserWhoFirstRegisteredIt() {
        var a = HelperAdmission(builtInDisplayNames: builtIns)
        #expect(a.refuses("com.example.cafe", peer: ":1.5", uid: 1000, beside: []) == nil)
        a.admitted("com.example.cafe", uid: 1000)
        // Gone again, then another user asks for it: refused; the owner and root may have it.
        #expect(a.refuses("com.example.cafe", peer: ":1.6", uid: 1001, beside: []) == .identifierOwned("com.example.cafe", owner: 1000))
        #expect(a.refuses("com.example.cafe", peer: ":1.7", uid: 1000, beside: []) == nil)
        #expect(a.refuses("com.example.cafe", peer: ":1.8", uid: 0, beside: []) == nil)
        // A caller whose uid the bus would not say is not the owner either.
        #expect(a.refuses("com.example.cafe", peer: ":1.9", uid: nil, beside: []) == .identifierOwned("com.example.cafe", owner: 1000))
    }

    @Test func rootRegisteringAnIdentifierTakesNothingFromItsOwner() {
        var a = HelperAdmission(builtInDisplayNames: builtIns)
        a.admitted("com.example.cafe", uid: 1000)
        a.admitted("com.example.cafe", uid: 0)
        #expect(a.owners["com.example.cafe"] == 1000)
        a.admitted("com.example.new", uid: 0)
        #expect(a.owners["com.example.new"] == 0)
        #expect(a.refuses("com.example.new", peer: ":1.5", uid: 1000, beside: []) == .identifierOwned("com.example.new", owner: 0))
    }

    @Test func theBuiltInHelpersIdentifiersAreTheDaemonsOwn() {
        var a = HelperAdmission(builtInDisplayNames: builtIns)
        a.admittedBuiltIn("builtin.portal")
        #expect(a.refuses("builtin.portal", peer: ":1.5", uid: 1000, beside: []) == .identifierOwned("builtin.portal", owner: 0))
        #expect(HelperAdmission.refusesIdentifier("builtin.anything") == .builtInIdentifier("builtin.anything"))
        #expect(HelperAdmission.refusesIdentifier("BuiltIn.Portal") == .builtInIdentifier("BuiltIn.Portal"))
        #expect(HelperAdmission.refusesIdentifier("com.example.builtin") == nil)
    }

    @Test func aDisplayNameThatReadsAsABuiltInHelpersIsRefused() {
        let a = HelperAdmission(builtInDisplayNames: builtIns)
        #expect(a.refusesDisplayName("known  NETWORKS") == .builtInDisplayName("known  NETWORKS", readsAs: "Known Networks"))
        #expect(a.refusesDisplayName("Portal") != nil)
        #expect(a.refusesDisplayName("Cafe Wi-Fi") == nil)
    }

    @Test func oneConnectionIsOneHelperAndOneIdentifierOneHelperAtATime() {
        let a = HelperAdmission(builtInDisplayNames: builtIns)
        let registered = [R(identifier: "com.example.cafe", peer: ":1.5", uid: 1000)]
        #expect(a.refuses("com.example.other", peer: ":1.5", uid: 1000, beside: registered) == .connectionRegistered(as: "com.example.cafe"))
        #expect(a.refuses("com.example.cafe", peer: ":1.6", uid: 1000, beside: registered) == .identifierTaken("com.example.cafe"))
        #expect(a.refuses("com.example.cafe", peer: ":1.6", uid: 1000, beside: registered)?.isAlreadyRegistered == true)
        #expect(a.refuses("com.example.other", peer: ":1.6", uid: 1000, beside: registered) == nil)
    }

    @Test func aUserOtherThanRootHasAtMostTheCapOfHelpers() {
        let a = HelperAdmission(builtInDisplayNames: builtIns)
        let cap = HelperAdmission.maximumHelpersPerUser
        let mine = (0..<cap).map { R(identifier: HelperID("h\($0)"), peer: ":1.\($0)", uid: 1000) }
        #expect(a.refuses("one-more", peer: ":2.1", uid: 1000, beside: Array(mine.dropLast())) == nil)
        #expect(a.refuses("one-more", peer: ":2.1", uid: 1000, beside: mine) == .tooManyForUser(uid: 1000, count: cap))
        // Another user, root, and the built-in helpers (no uid) are not counted against it.
        #expect(a.refuses("one-more", peer: ":2.1", uid: 1001, beside: mine) == nil)
        #expect(a.refuses("one-more", peer: ":2.1", uid: 0, beside: mine + mine.map { R(identifier: $0.identifier, peer: nil, uid: 0) }) == nil)
    }

    /// Admission and the core together on the virtual clock: a helper admitted while another
    /// is evaluating is asked from the next evaluation on, and a refused one never reaches the core.
    @Test func anAdmittedHelperTakesPartFromTheNextEvaluation() {
        var a = HelperAdmission(builtInDisplayNames: builtIns)
        var h = Harness()
        #expect(a.refuses("alpha", peer: ":1.1", uid: 1000, beside: []) == nil)
        a.admitted("alpha", uid: 1000)
        h.register("alpha")
        h.join()
        #expect(h.sentInLastStep.map(\.helper) == ["alpha"])
        let registered = [R(identifier: "alpha", peer: ":1.1", uid: 1000)]
        #expect(a.refuses("alpha", peer: ":1.2", uid: 1001, beside: registered) != nil)
        h.advance(by: .seconds(1))
        h.answer("alpha", .evaluate, confidence: Confidence.none)
        #expect(h.state() == .authenticated)
        #expect(h.core.helpers.map(\.identifier) == ["alpha"])
    }
}
