// SPDX-License-Identifier: Apache-2.0
import FuzzTargets
import Foundation

#if LIBFUZZER
import CLibFuzzer

// Built with `-sanitize=fuzzer` (make fuzz-libfuzzer): libFuzzer drives LLVMFuzzerTestOneInput.
// The target comes from FUZZ_TARGET; the arguments are libFuzzer's (corpus directories, -max_total_time…).
nonisolated(unsafe) var libFuzzerTarget = FuzzTarget.dbusMessage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    libFuzzerTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@main
struct HotspotFuzz {
    static func main() {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("set FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))\n".utf8))
            exit(2)
        }
        libFuzzerTarget = target
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
    }
}
#else
/// The built-in fuzz driver: mutates each target's seeds and corpus for a bounded time and saves
/// an input that crashes the process before it dies.
@main
struct HotspotFuzz {
    static func main() {
        var seconds = 10.0
        var runs: Int?
        var targets = FuzzTarget.allCases
        var seed = UInt64(UInt32.random(in: 1...UInt32.max))
        var corpus = "Fuzz/Corpus"
        var crashes = "."
        var args = CommandLine.arguments.dropFirst().makeIterator()
        while let a = args.next() {
            switch a {
            case "--seconds": seconds = Double(args.next() ?? "") ?? seconds
            case "--runs":
                guard let n = Int(args.next() ?? ""), n > 0 else { fail("--runs takes a number of executions per target, e.g. --runs 1000000") }
                runs = n
            case "--target":
                let name = args.next() ?? ""
                guard let t = FuzzTarget(rawValue: name) else { fail("unknown target '\(name)' (one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))") }
                targets = [t]
            case "--seed": seed = UInt64(args.next() ?? "") ?? seed
            case "--corpus": corpus = args.next() ?? corpus
            case "--crash-dir": crashes = args.next() ?? crashes
            case "--write-seeds":
                let dir = args.next() ?? corpus
                for t in FuzzTarget.allCases {
                    let sub = dir + "/" + t.rawValue
                    try? FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
                    for (i, seed) in t.seeds.enumerated() {
                        FileManager.default.createFile(atPath: sub + "/seed-\(i)", contents: Data(seed))
                    }
                }
                print("seeds written under \(dir)")
                return
            case "-h", "--help":
                print("""
                usage: hotspot-fuzz [--target NAME] [--seconds S | --runs N] [--seed N] [--corpus DIR] [--crash-dir DIR]
                       hotspot-fuzz --write-seeds DIR   (each target's seeds as files, to start libFuzzer from)

                Runs each fuzz target (default: all, \(Int(seconds)) s each) on mutations of its seeds and of the
                committed corpus (DIR/<target>/*). An input that crashes is written to
                DIR/crash-<target>-<hash> before the process dies; commit it under Fuzz/Corpus/<target>/
                to keep it as a regression test. --runs N runs each target for N executions instead of
                a time (make fuzz-runs: 1,000,000 each, in release mode) and prints executions per second.
                Targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")).
                For coverage-guided fuzzing build with libFuzzer: make fuzz-libfuzzer.
                """)
                return
            default: fail("unknown option \(a); see --help")
            }
        }
        CrashCapture.install(directory: crashes)
        print("seed \(seed); " + (runs.map { "\($0) executions per target" } ?? "\(Int(seconds)) s per target"))
        var totalExecutions = 0
        let allStarted = ContinuousClock.now
        for target in targets {
            let inputs = target.seeds + loadCorpus(corpus + "/" + target.rawValue)
            var mutator = Mutator(seed: seed)
            let deadline = Date().addingTimeInterval(seconds)
            let started = ContinuousClock.now
            var executions = 0
            for input in inputs { CrashCapture.arm(target, input); target.run(input); executions += 1 }
            while runs.map({ executions < $0 }) ?? (Date() < deadline) {
                for _ in 0..<min(200, runs.map { max(1, $0 - executions) } ?? 200) {
                    let base = inputs[mutator.below(inputs.count)]
                    let input = mutator.mutate(base, other: inputs[mutator.below(inputs.count)])
                    CrashCapture.arm(target, input)
                    target.run(input)
                    executions += 1
                }
            }
            let elapsed = ContinuousClock.now - started
            let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            totalExecutions += executions
            print("\(target.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)) \(executions) executions in \(String(format: "%.1f", secs)) s"
                  + " (\(Int(Double(executions) / max(secs, 1e-9))) executions/s), no crash")
        }
        let all = ContinuousClock.now - allStarted
        print("all targets: \(totalExecutions) executions in \(all.components.seconds) s, no crash")
    }

    static func loadCorpus(_ dir: String) -> [[UInt8]] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return files.sorted().compactMap { FileManager.default.contents(atPath: dir + "/" + $0).map { [UInt8]($0) } }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}
#endif
