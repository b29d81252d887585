// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import FuzzTargets
import Foundation
import Testing

/// Every fuzz target runs on its seeds, on every input committed under Fuzz/Corpus (inputs
/// that once crashed or hung are kept there as regressions), and on a few thousand deterministic
/// mutations. A crash kills the test process, which fails the run.
@Suite struct FuzzRegressionTests {
    static let corpus = TestKitPaths.repositoryRoot.appendingPathComponent("Fuzz/Corpus")

    @Test(arguments: FuzzTarget.allCases)
    func targetSurvivesItsCorpusAndMutations(_ target: FuzzTarget) {
        let dir = Self.corpus.appendingPathComponent(target.rawValue)
        let committed = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
            .compactMap { FileManager.default.contents(atPath: dir.appendingPathComponent($0).path).map { [UInt8]($0) } }
        let inputs = target.seeds + committed
        #expect(!target.seeds.isEmpty)
        for input in inputs { target.run(input) }
        var mutator = Mutator(seed: 0xF0221)
        for _ in 0..<3_000 {
            target.run(mutator.mutate(inputs[mutator.below(inputs.count)], other: inputs[mutator.below(inputs.count)]))
        }
    }

    /// The register-helper target is only worth its time if some fuzzed calls are accepted, so
    /// that the bounds on what is accepted are checked.
    @Test func registerHelperTargetReachesAcceptedRegistrations() {
        let before = FuzzTarget.acceptedRegistrations.load(ordering: .relaxed)
        var mutator = Mutator(seed: 0x5EED)
        let seeds = FuzzTarget.registerHelper.seeds
        for _ in 0..<20_000 { FuzzTarget.registerHelper.run(mutator.mutate(seeds[mutator.below(seeds.count)], other: seeds[mutator.below(seeds.count)])) }
        #expect(FuzzTarget.acceptedRegistrations.load(ordering: .relaxed) > before)
    }

    /// The peer-link target is only worth its time if fuzzed links get through the
    /// authentication exchange and hand on frames, so the framing's checks run.
    @Test func peerLinkTargetReachesFrames() {
        let opened = PeerLinkFuzz.opened.load(ordering: .relaxed), frames = PeerLinkFuzz.frames.load(ordering: .relaxed)
        var mutator = Mutator(seed: 0x11_4E)
        let seeds = FuzzTarget.peerLink.seeds
        for _ in 0..<5_000 { FuzzTarget.peerLink.run(mutator.mutate(seeds[mutator.below(seeds.count)], other: seeds[mutator.below(seeds.count)])) }
        #expect(PeerLinkFuzz.opened.load(ordering: .relaxed) > opened + 1_000)
        #expect(PeerLinkFuzz.frames.load(ordering: .relaxed) > frames + 1_000)
    }

    @Test func theMutatorIsDeterministicForASeed() {
        var a = Mutator(seed: 7), b = Mutator(seed: 7)
        let input = Array("[daemon]\nstate-dir=/x\n".utf8)
        #expect((0..<50).map { _ in a.mutate(input, other: input) } == (0..<50).map { _ in b.mutate(input, other: input) })
    }
}
