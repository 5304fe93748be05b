import ArgumentParser
import Foundation
import SegmentsBenchKit

/// The options `compare` and `calibrate` share: which scenarios, how many repetitions, how long a
/// run may take.
struct RepetitionOptions: ParsableArguments {
    @Option(name: .customLong("scenario"), help: "A scenario to run; repeat for several (default: every scenario the binary lists).")
    var scenarios: [String] = []
    @Option(parsing: .unconditional, help: "Runs per build and scenario (at least \(Self.minimum)).")
    var repetitions = Self.minimum
    @Flag(help: "Accept fewer than \(Self.minimum) repetitions (at least 2), for smoke tests: p < 0.01 may then be out of reach.")
    var allowFewRepetitions = false
    @Flag(help: "Pass --quick to every run (what CI uses).")
    var quick = false
    @Option(parsing: .unconditional, help: "Seconds one run may take before it is terminated (a harness error).")
    var runTimeout: Double = 900

    /// Fewer runs per build cannot reach p < 0.01 reliably with the Mann-Whitney U test.
    static let minimum = 9
    /// More runs per build than anyone waits for (the schedule of every run is built up front).
    static let maximum = 10_000

    func validate() throws {
        let floor = allowFewRepetitions ? 2 : Self.minimum
        guard repetitions >= floor else {
            throw ValidationError(
                allowFewRepetitions
                    ? "--repetitions must be at least 2"
                    : "--repetitions must be at least \(Self.minimum) (--allow-few-repetitions accepts 2 or more)")
        }
        guard repetitions <= Self.maximum else { throw ValidationError("--repetitions must be at most \(Self.maximum)") }
        guard runTimeout > 0 else { throw ValidationError("--run-timeout must be positive") }
        let unique = Set(scenarios)
        guard unique.count == scenarios.count else {
            throw ValidationError("--scenario names a scenario twice: each is run --repetitions times per build, in ABBA order")
        }
    }

    /// The scenarios asked for, or every one `binary` lists; a name the binary does not list is a
    /// usage error.
    func resolveScenarios(with binary: BenchBinary) throws -> [String] {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("segments-bench-list-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let known = try binary.scenarioNames(scratch: scratch)
        guard !scenarios.isEmpty else { return known }
        let unknown = scenarios.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw ValidationError("unknown scenario \(unknown.joined(separator: ", ")); \(binary.path) knows: \(known.joined(separator: ", "))")
        }
        return scenarios
    }

    /// Validates both builds, then runs the asked-for scenarios of `baseline` and `candidate`
    /// interleaved (the same binary twice for `calibrate`); returns the scenarios and the outcome.
    func runInterleaved(
        baseline: BenchBinary, candidate: BenchBinary, label: String
    ) throws -> (scenarios: [String], outcome: InterleavedRunner.Outcome) {
        try baseline.validate()
        if candidate.path != baseline.path { try candidate.validate() }
        let scenarios = try resolveScenarios(with: baseline)
        let runner = InterleavedRunner(
            baseline: baseline, candidate: candidate,
            schedule: InterleavedSchedule(scenarios: scenarios, repetitions: repetitions), quick: quick,
            progress: Progress(enabled: true, prefix: label))
        return (scenarios, try endingChildrenOnSignal { try runner.run() })
    }
}

/// Runs `body`; a ``CompareError`` is printed on standard error and becomes exit status 70, or
/// 128 + the signal's number when a signal ended the command (as `endingChildrenOnSignal` exits).
func exitingOnHarnessError<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as CompareError {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        if error == .interrupted, let signal = BenchChildren.shared.endingSignal { throw ExitCode(128 + signal) }
        throw ExitCode(CompareExitCode.harnessError)
    }
}
