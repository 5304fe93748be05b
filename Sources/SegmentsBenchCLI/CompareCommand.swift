import ArgumentParser
import Foundation
import SegmentsBenchKit

/// `segments-bench compare`: two builds run interleaved, every wall-clock figure judged with a
/// Mann-Whitney U test, a bootstrap interval and a noise threshold.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare the wall-clock figures of two segments-bench builds over repeated, interleaved runs.",
        discussion: """
            Runs `BINARY run SCENARIO [--quick] --out DIR --json` for both builds in ABBA order and judges every \
            figure measured in a time or a rate. A figure regressed (or improved) only when p < alpha, the bootstrap \
            interval of the median ratio excludes 1, and the change exceeds its noise threshold (calibrated, or the \
            default). Writes compare.json and compare.md into --out. Exit status: 0 no regression, 2 a figure \
            regressed, 64 usage error, 70 harness error (a binary missing or failing, a figure the candidate never measured, a unit that changed). \
            Ended by SIGINT, SIGTERM or SIGHUP, it ends the build it is running first and exits 128 + the signal's number.
            """)

    @Option(help: "The reference build's segments-bench executable (A).") var baselineBinary: String
    @Option(help: "The build under test's segments-bench executable (B).") var candidateBinary: String
    @OptionGroup var runs: RepetitionOptions
    @Option(help: "Directory for compare.json and compare.md.") var out: String = "Reports/compare"
    @Option(help: "Noise thresholds from `segments-bench calibrate`.") var thresholdFile: String?
    @Option(parsing: .unconditional, help: "Noise threshold of a figure the threshold file does not list (0.05 = 5%).")
    var defaultThreshold = NoiseThreshold.default.relative
    @Option(parsing: .unconditional, help: "Significance level of the Mann-Whitney U test.") var alpha = 0.01
    @Option(parsing: .unconditional, help: "Bootstrap resamples (2000 to 1000000).") var resamples = 10_000
    @Option(parsing: .unconditional, help: "Seed of the bootstrap.") var seed: UInt64 = 1

    func validate() throws {
        guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must lie strictly between 0 and 1") }
        guard (2_000...1_000_000).contains(resamples) else { throw ValidationError("--resamples must lie between 2000 and 1000000") }
        guard defaultThreshold.isFinite, defaultThreshold >= 0, defaultThreshold < 1 else {
            throw ValidationError("--default-threshold must be a share from 0 up to, not including, 1 (0.05 = 5%)")
        }
    }

    func run() throws {
        // Checked before the runs, which can take an hour, so that their verdict is not lost.
        let directory = try reportDirectory(out)
        let thresholds: ThresholdFile?
        if let thresholdFile {
            let loaded: ThresholdFile
            do {
                loaded = try ThresholdFile.load(from: URL(fileURLWithPath: thresholdFile))
            } catch {
                throw ValidationError("cannot read the threshold file \(thresholdFile): \(describe(error))")
            }
            // Noise calibrated for other runs is the wrong noise: quick and full runs differ, and the
            // medians of fewer runs move more than thresholds calibrated for more allow.
            if loaded.quick != runs.quick {
                throw ValidationError(
                    "\(thresholdFile) was calibrated \(loaded.quick ? "with" : "without") --quick, and this comparison runs "
                        + "\(runs.quick ? "with" : "without") it: calibrate again as you compare")
            }
            if loaded.groupSize > runs.repetitions {
                throw ValidationError(
                    "\(thresholdFile) was calibrated for groups of \(loaded.groupSize) runs, more than --repetitions \(runs.repetitions): "
                        + "compare with --repetitions \(loaded.groupSize) or more, or calibrate for \(runs.repetitions)")
            }
            thresholds = loaded
        } else {
            thresholds = nil
        }
        let baseline = BenchBinary(path: baselineBinary, timeout: runs.runTimeout)
        let candidate = BenchBinary(path: candidateBinary, timeout: runs.runTimeout)
        let report = try exitingOnHarnessError { () throws -> ComparisonReport in
            let (scenarios, outcome) = try runs.runInterleaved(baseline: baseline, candidate: candidate, label: "compare")
            let (compared, candidateOnly, incomplete) = try outcome.samples.validated()
            return ComparisonReport(
                baselineBinary: baselineBinary, candidateBinary: candidateBinary, scenarios: scenarios,
                repetitions: runs.repetitions, quick: runs.quick,
                policy: ComparisonPolicy(
                    alpha: alpha, resamples: resamples, seed: seed,
                    defaultThreshold: NoiseThreshold(relative: defaultThreshold)),
                thresholds: thresholds, thresholdFile: thresholdFile, runs: outcome.records,
                wallSeconds: outcome.seconds, series: compared, candidateOnlyFigures: candidateOnly,
                incompleteFigures: incomplete)
        }
        let files = try report.write(to: directory)
        print(ComparisonText(report).console())
        print("Written: \(files.map(\.path).joined(separator: ", "))")
        if report.exitCode != CompareExitCode.passed { throw ExitCode(report.exitCode) }
    }
}
