@testable import SegmentsBenchKit
import XCTest

/// Comparisons end to end against fake `segments-bench` executables (shell scripts that copy a
/// prepared report): the run order, the verdicts, the files and the harness errors.
final class InterleavedRunnerTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try CompareFixtures.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func binary(_ name: String, latency: Double, failRuns: Bool = false) throws -> BenchBinary {
        let report = CompareFixtures.report(
            scenario: "fake", figures: [("fake.latencyNs", latency, "ns"), ("fake.allocs", 2, "allocs/op")])
        return BenchBinary(
            path: try CompareFixtures.fakeBinary(in: directory, named: name, scenario: "fake", report: report, failRuns: failRuns),
            timeout: 60)
    }

    private func compare(
        _ baseline: BenchBinary, _ candidate: BenchBinary, repetitions: Int = 9, incomplete: [String] = []
    ) throws -> ComparisonReport {
        let runner = InterleavedRunner(
            baseline: baseline, candidate: candidate,
            schedule: InterleavedSchedule(scenarios: ["fake"], repetitions: repetitions), quick: true,
            progress: Progress(enabled: false))
        let outcome = try runner.run()
        let (series, candidateOnly, _) = try outcome.samples.validated()
        return ComparisonReport(
            baselineBinary: baseline.path, candidateBinary: candidate.path, scenarios: ["fake"], repetitions: repetitions,
            quick: true, policy: ComparisonPolicy(resamples: 2_000), thresholds: nil, thresholdFile: nil,
            runs: outcome.records, wallSeconds: outcome.seconds, series: series, candidateOnlyFigures: candidateOnly,
            incompleteFigures: incomplete)
    }

    /// A ratio of two timings that states its direction is judged like a time, and the console
    /// calls it a ratio.
    func testARatioOfTimingsIsJudgedAndLabelledAsARatio() throws {
        func build(_ name: String, ratio: Double) throws -> BenchBinary {
            var report = CompareFixtures.report(scenario: "fake", figures: [("fake.latencyNs", 100, "ns")])
            report.scenarios[0].figures.append(
                Figure(name: "fake.callToFloor", value: ratio, unit: "ratio", direction: .lowerIsBetter, summary: ""))
            return BenchBinary(
                path: try CompareFixtures.fakeBinary(in: directory, named: name, scenario: "fake", report: report, failRuns: false),
                timeout: 60)
        }
        let report = try compare(try build("a", ratio: 2), try build("b", ratio: 3))
        XCTAssertEqual(report.figures.first { $0.name == "fake.callToFloor" }?.verdict, .regressed)
        let console = ComparisonText(report).console()
        XCTAssertTrue(console.contains("fake.callToFloor\n    ratio:  ["), console)
    }

    func testTheScenarioListComesFromTheBinary() throws {
        XCTAssertEqual(try binary("a", latency: 100).scenarioNames(scratch: directory), ["fake"])
    }

    func testABuildAgainstItselfShowsNoChangeAndExitsZero() throws {
        let build = try binary("a", latency: 100)
        let report = try compare(build, build)
        XCTAssertEqual(report.figures.map(\.name), ["fake.latencyNs"])
        XCTAssertEqual(report.figures[0].verdict, .noChange)
        XCTAssertEqual(report.figures[0].test.pValue, 1)
        XCTAssertEqual(report.exitCode, CompareExitCode.passed)
    }

    func testASlowerCandidateRegressesAndExitsTwo() throws {
        let report = try compare(try binary("a", latency: 100), try binary("b", latency: 130))
        let figure = try XCTUnwrap(report.figures.first)
        XCTAssertEqual(figure.verdict, .regressed)
        XCTAssertEqual(figure.baselineSamples, Array(repeating: 100, count: 9))
        XCTAssertEqual(figure.candidateSamples, Array(repeating: 130, count: 9))
        XCTAssertEqual(figure.change.estimate, 0.3, accuracy: 1e-12)
        XCTAssertEqual(report.exitCode, CompareExitCode.regressed)
        XCTAssertEqual(report.regressedFigures, ["fake.latencyNs"])
        XCTAssertEqual(report.runs.prefix(4).map(\.run.side.rawValue).joined(), "ABBA")
    }

    func testTheReportIsWrittenAsJSONAndMarkdown() throws {
        let report = try compare(try binary("a", latency: 100), try binary("b", latency: 130))
        let out = directory.appendingPathComponent("out")
        let files = try report.write(to: out)
        XCTAssertEqual(files.map(\.lastPathComponent), ["compare.json", "compare.md"])
        let reread = try ComparisonReport.load(from: out.appendingPathComponent("compare.json"))
        XCTAssertEqual(reread.figures.map(\.verdict), [.regressed])
        XCTAssertEqual(reread.figures[0].candidateSamples, report.figures[0].candidateSamples)
        let markdown = try String(contentsOf: out.appendingPathComponent("compare.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("| `fake.latencyNs` | 100 ns | [130 130 130] ns | [+30.00% +30.00% +30.00%] |"), markdown)
        XCTAssertTrue(markdown.contains("**regressed**"))
    }

    /// A figure some runs left out is not judged, and the Markdown says so as the console does.
    func testTheMarkdownListsFiguresMeasuredInSomeRunsOnly() throws {
        let report = try compare(try binary("a", latency: 100), try binary("b", latency: 100), incomplete: ["fake.p999Ns"])
        XCTAssertTrue(ComparisonText(report).markdown().contains("Measured in some runs only (not compared): `fake.p999Ns`"))
    }

    func testTheConsoleTextReadsLikeCriterion() throws {
        let text = ComparisonText(try compare(try binary("a", latency: 100), try binary("b", latency: 130))).console()
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "fake.latencyNs")
        XCTAssertEqual(lines[1], "    time:   [130 130 130] ns  (baseline 100 ns)")
        XCTAssertEqual(lines[2], "    change: [+30.00% +30.00% +30.00%] (p = 4.7e-05 < 0.01)")
        XCTAssertEqual(lines[3], "    Performance has regressed. (noise threshold 5.00%, default)")
        XCTAssertTrue(lines[4].hasPrefix("compare: 0 no change, 0 inconclusive, 1 regressed, 0 improved, 0 within noise — 9 repetitions"), lines[4])
    }

    /// A candidate that times nothing (0 ns: a loop the optimizer removed) read as a 100%
    /// improvement with no word of doubt.
    func testATimeOfZeroIsWarnedOf() throws {
        let report = try compare(try binary("a", latency: 100), try binary("b", latency: 0))
        let text = ComparisonText(report)
        XCTAssertTrue(text.console().contains("warning: the candidate reads 0 ns (median): nothing was timed"), text.console())
        XCTAssertTrue(text.markdown().contains("- Warning: `fake.latencyNs`: the candidate reads 0 ns"), text.markdown())
    }

    func testNumbersKeepFourSignificantDigits() {
        XCTAssertEqual(ComparisonText.number(761040), "761040")
        XCTAssertEqual(ComparisonText.number(12.2571), "12.26")
        XCTAssertEqual(ComparisonText.number(0.41312), "0.4131")
        XCTAssertEqual(ComparisonText.number(-3), "-3")
        XCTAssertEqual(ComparisonText.percent(-0.0421), "-4.21%")
        XCTAssertEqual(ComparisonText.percent(1e298), "> +1000000%", "a baseline of 1e-300 printed 300 digits")
        XCTAssertEqual(ComparisonText.pValue(0.00041, alpha: 0.01), "0.0004")
        XCTAssertEqual(ComparisonText.pValue(1.9e-13, alpha: 0.01), "1.9e-13")
        // Never rounded to the other side of alpha.
        XCTAssertEqual(ComparisonText.pValue(0.00996, alpha: 0.01), "0.00996")
        XCTAssertEqual(ComparisonText.pValue(0.0099996, alpha: 0.01), "0.0099996")
        XCTAssertEqual(ComparisonText.pValue(0.01004, alpha: 0.01), "0.0100")
    }

    func testAFailingRunIsAHarnessErrorWithItsStandardError() throws {
        XCTAssertThrowsError(try compare(try binary("a", latency: 100), try binary("b", latency: 100, failRuns: true))) { error in
            guard case .runFailed(_, let status, let standardError) = error as? CompareError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(status, 3)
            XCTAssertEqual(standardError, "scenario blew up")
        }
    }

    func testAMissingBinaryIsAHarnessError() throws {
        let missing = BenchBinary(path: directory.appendingPathComponent("nothing-here").path)
        XCTAssertThrowsError(try compare(try binary("a", latency: 100), missing)) { error in
            XCTAssertEqual(error as? CompareError, .binaryMissing(path: missing.path))
        }
    }

    func testCalibrationWritesAThresholdFileThatCompareReads() throws {
        let build = try binary("a", latency: 100)
        let runner = InterleavedRunner(
            baseline: build, candidate: build, schedule: InterleavedSchedule(scenarios: ["fake"], repetitions: 3),
            quick: true, progress: Progress(enabled: false))
        let (series, _, _) = try runner.run().samples.validated()
        let file = ThresholdFile(
            calibrating: series, binary: build.path, scenarios: ["fake"], repetitions: 3, groupSize: 2, quick: true)
        let url = directory.appendingPathComponent("thresholds/wallclock.json")
        try file.write(to: url)
        let reread = try ThresholdFile.load(from: url)
        XCTAssertEqual(reread.figures.keys.sorted(), ["fake.latencyNs"])
        XCTAssertEqual([reread.repetitions, reread.groupSize], [3, 2])
        XCTAssertEqual(reread.figures["fake.latencyNs"], ThresholdFile.Entry(unit: "ns", relative: 0.01, median: 100, runs: 6))
        XCTAssertEqual(reread.threshold(for: "fake.latencyNs"), NoiseThreshold(relative: NoiseThreshold.minimumRelative))
        XCTAssertNil(reread.threshold(for: "other"))
    }
}
