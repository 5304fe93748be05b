import ArgumentParser
import Foundation
import SegmentsBenchKit

/// `segments-bench calibrate`: one build against itself, to measure how far each wall-clock
/// figure's median moves by chance; writes the threshold file `compare --threshold-file` reads.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure each wall-clock figure's noise threshold by running one build against itself.",
        discussion: """
            Runs the build as two interleaved groups of --repetitions runs per scenario (A/A), then, per figure, \
            splits the pooled runs at random into two groups of --group-size runs (compare's --repetitions) many \
            times and records the --quantile of |ln(median ratio)| as the relative noise threshold (at least 1%). \
            More repetitions than the group size make the threshold steadier. Exit status: 0 written, 64 usage \
            error, 70 harness error.
            """)

    @Option(help: "The segments-bench executable to calibrate.") var binary: String
    @OptionGroup var runs: RepetitionOptions
    @Option(help: "The threshold file to write.") var out: String = "Reports/wallclock-thresholds.json"
    @Option(parsing: .unconditional, help: "Runs per side of the comparisons the thresholds serve (compare's --repetitions; default: 9, at most --repetitions).")
    var groupSize: Int?
    @Option(parsing: .unconditional, help: "Quantile of the chance changes that becomes the threshold.") var quantile = 0.95
    @Option(parsing: .unconditional, help: "Seed of the random splits.") var seed: UInt64 = 1

    func validate() throws {
        guard quantile > 0, quantile < 1 else { throw ValidationError("--quantile must lie strictly between 0 and 1") }
        if let groupSize, !(2...runs.repetitions).contains(groupSize) {
            throw ValidationError("--group-size must lie between 2 and --repetitions (\(runs.repetitions))")
        }
    }

    func run() throws {
        // Checked before the runs, which can take an hour, so that their thresholds are not lost.
        try checkWritableFile(out, option: "--out")
        let build = BenchBinary(path: binary, timeout: runs.runTimeout)
        let file = try exitingOnHarnessError { () throws -> ThresholdFile in
            let (scenarios, outcome) = try runs.runInterleaved(baseline: build, candidate: build, label: "calibrate")
            let (series, _, _) = try outcome.samples.validated()
            return ThresholdFile(
                calibrating: series, binary: binary, scenarios: scenarios, repetitions: runs.repetitions,
                groupSize: groupSize ?? min(RepetitionOptions.minimum, runs.repetitions), quick: runs.quick,
                quantile: quantile, seed: seed)
        }
        try file.write(to: URL(fileURLWithPath: out))
        for (name, entry) in file.figures.sorted(by: { $0.key < $1.key }) {
            print("\(name)  median \(ComparisonText.number(entry.median)) \(entry.unit)  noise threshold \(String(format: "%.2f%%", entry.relative * 100))")
        }
        print("Noise thresholds of \(file.figures.count) figures written to \(out)")
    }
}
