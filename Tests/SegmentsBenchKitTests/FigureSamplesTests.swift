@testable import SegmentsBenchKit
import XCTest

/// Gathering wall-clock figures from run reports, and the checks that every run measured them.
final class FigureSamplesTests: XCTestCase {
    private func report(_ figures: [(String, Double, String)]) -> BenchReport {
        CompareFixtures.report(scenario: "s", figures: figures)
    }

    func testOnlyWallClockFiguresAreGathered() throws {
        var samples = FigureSamples()
        for side in InterleavedSchedule.Side.allCases {
            samples.add(report([("s.latencyNs", 10, "ns"), ("s.allocs", 3, "allocs/op"), ("s.rate", 5, "ops/s")]), scenario: "s", side: side)
        }
        let (compared, candidateOnly, _) = try samples.validated()
        XCTAssertEqual(compared.map(\.name), ["s.latencyNs", "s.rate"])
        XCTAssertEqual(compared.map(\.direction), [.lowerIsBetter, .higherIsBetter])
        XCTAssertEqual(compared[0].baseline, [10])
        XCTAssertEqual(compared[0].candidate, [10])
        XCTAssertTrue(candidateOnly.isEmpty)
    }

    /// A ratio of two timings of one run states which way is better and is compared; other
    /// ratios are not. The floor-normalised ratios the README reads first were dropped, so a
    /// churn rate achieved falling from 1.01 to 0.08 of its target made no block in `compare`.
    func testARatioThatStatesItsDirectionIsCompared() throws {
        var samples = FigureSamples()
        for side in InterleavedSchedule.Side.allCases {
            var run = report([("s.hitRatio", 0.8, "ratio")])
            run.scenarios[0].figures.append(
                Figure(name: "s.achievedToTarget", value: 1.01, unit: "ratio", direction: .higherIsBetter, summary: ""))
            samples.add(run, scenario: "s", side: side)
        }
        let (compared, _, _) = try samples.validated()
        XCTAssertEqual(compared.map(\.name), ["s.achievedToTarget"])
        XCTAssertEqual(compared.map(\.direction), [.higherIsBetter])
    }

    /// A latency's p50 and p99 are compared too (`compare --scenario customer-switch`, whose
    /// headline is a latency, found no figure to compare: exit 70); a p99 a run has too few
    /// samples for is listed, not judged.
    func testALatencysP50AndP99AreCompared() throws {
        func run(_ samples: Int) -> BenchReport {
            var recorder = LatencyRecorder()
            for value in 1...samples { recorder.record(UInt64(value) * 1_000) }
            var report = report([])
            report.scenarios[0].latencies = [recorder.summary("change to callback", definition: "d")]
            return report
        }
        var samples = FigureSamples()
        samples.add(run(1_000), scenario: "s", side: .baseline)
        samples.add(run(1_000), scenario: "s", side: .candidate)
        let (compared, _, _) = try samples.validated()
        XCTAssertEqual(compared.map(\.name), ["s.change to callback p50", "s.change to callback p99"])
        XCTAssertEqual(compared.map(\.unit), ["ns", "ns"])
        XCTAssertEqual(compared.map(\.direction), [.lowerIsBetter, .lowerIsBetter])
        XCTAssertEqual(compared[0].baseline.first ?? 0, 500_000, accuracy: 5_000)
        var few = FigureSamples()
        few.add(run(1_000), scenario: "s", side: .baseline)
        few.add(run(5), scenario: "s", side: .candidate)
        few.add(run(1_000), scenario: "s", side: .candidate)
        few.add(run(1_000), scenario: "s", side: .baseline)
        let (judged, _, incomplete) = try few.validated()
        XCTAssertEqual(judged.map(\.name), ["s.change to callback p50"])
        XCTAssertEqual(incomplete, ["s.change to callback p99"])
    }

    /// A run of scenario `s` with a latency `setter` and a figure repeating its p50, marked as such
    /// (``Figure/restates``) when `marked`, as a build before the mark did not.
    private func restatingRun(marked: Bool = true) -> BenchReport {
        var recorder = LatencyRecorder()
        for value in 1...1_000 { recorder.record(UInt64(value) * 1_000) }
        let latency = recorder.summary("setter", definition: "d")
        var report = report([])
        report.scenarios[0].latencies = [latency]
        report.scenarios[0].figures = [
            Figure(name: "s.setterP50", value: Double(latency.p50), unit: "ns",
                   restates: marked ? latency.comparedName("p50", in: "s") : nil, summary: "p50")
        ]
        return report
    }

    /// A figure that repeats a latency's percentile (`reporting.setterP50`, `reporting.setter p50`)
    /// is judged once, under the figure's name: judged twice, one change read as two regressions.
    func testAFigureThatRestatesALatencysPercentileIsComparedOnce() throws {
        var samples = FigureSamples()
        samples.add(restatingRun(), scenario: "s", side: .baseline)
        samples.add(restatingRun(), scenario: "s", side: .candidate)
        XCTAssertEqual(try samples.validated().compared.map(\.name), ["s.setterP50", "s.setter p99"])
    }

    /// A baseline build older than `Figure.restates` still reports the repeated percentile under
    /// the latency's name; the candidate does not. The percentile is judged once, as the figure,
    /// not read as a figure the candidate dropped (a harness error, exit 70).
    func testARestatedPercentileIsJudgedOnceAgainstABuildThatDoesNotMarkIt() throws {
        var samples = FigureSamples()
        for _ in 0..<2 {
            samples.add(restatingRun(marked: false), scenario: "s", side: .baseline)
            samples.add(restatingRun(), scenario: "s", side: .candidate)
        }
        let (compared, candidateOnly, incomplete) = try samples.validated()
        XCTAssertEqual(compared.map(\.name), ["s.setterP50", "s.setter p99"])
        XCTAssertEqual(candidateOnly, [])
        XCTAssertEqual(incomplete, [])
    }

    /// A figure a run reports twice cannot be judged: read as a figure measured in some runs only,
    /// a tenfold regression of it passed (`check` refuses such a report too).
    func testAFigureReportedTwiceInARunIsAHarnessError() {
        var samples = FigureSamples()
        samples.add(report([("s.other", 1, "ns"), ("s.latencyNs", 5, "ns"), ("s.latencyNs", 500, "ns")]), scenario: "s", side: .baseline)
        samples.add(report([("s.other", 1, "ns"), ("s.latencyNs", 5_000, "ns"), ("s.latencyNs", 5_000, "ns")]), scenario: "s", side: .candidate)
        XCTAssertThrowsError(try samples.validated()) { error in
            XCTAssertEqual(error as? CompareError, .figureDuplicated(name: "s.latencyNs", side: .baseline, times: 2))
            XCTAssertEqual("\(error)", "figure s.latencyNs is reported 2 times in one run of build A: it cannot be judged")
        }
    }

    /// A run's time limit is said as given: `--run-timeout 0.5` read "within 0 s".
    func testATimedOutRunSaysItsLimitAsGiven() {
        XCTAssertEqual("\(CompareError.runTimedOut(command: "b list", seconds: 0.5))", "`b list` did not finish within 0.5 s and was terminated")
        XCTAssertEqual("\(CompareError.runTimedOut(command: "b list", seconds: 900))", "`b list` did not finish within 900 s and was terminated")
    }

    /// A percentile a run reports only when it has the samples for it: listed, not judged.
    func testAFigureMissingFromSomeRunsIsListedNotCompared() throws {
        var samples = FigureSamples()
        samples.add(report([("s.latencyNs", 10, "ns"), ("s.p999Ns", 50, "ns")]), scenario: "s", side: .baseline)
        samples.add(report([("s.latencyNs", 11, "ns"), ("s.p999Ns", 51, "ns")]), scenario: "s", side: .candidate)
        samples.add(report([("s.latencyNs", 10, "ns")]), scenario: "s", side: .candidate)
        samples.add(report([("s.latencyNs", 10, "ns")]), scenario: "s", side: .baseline)
        let (compared, _, incomplete) = try samples.validated()
        XCTAssertEqual(compared.map(\.name), ["s.latencyNs"])
        XCTAssertEqual(incomplete, ["s.p999Ns"])
    }

    /// Values in different units are never compared as numbers: 1,000× fewer µs than ns is no
    /// improvement.
    func testAFigureWhoseUnitChangedBetweenBuildsIsAHarnessError() {
        var samples = FigureSamples()
        samples.add(report([("s.latency", 10_000, "ns")]), scenario: "s", side: .baseline)
        samples.add(report([("s.latency", 10, "us")]), scenario: "s", side: .candidate)
        XCTAssertThrowsError(try samples.validated()) { error in
            XCTAssertEqual(error as? CompareError, .unitChanged(name: "s.latency", baseline: "ns", candidate: "us"))
        }
    }

    func testAFigureTheCandidateDroppedIsAHarnessError() {
        var samples = FigureSamples()
        samples.add(report([("s.latencyNs", 10, "ns")]), scenario: "s", side: .baseline)
        samples.add(report([]), scenario: "s", side: .candidate)
        XCTAssertThrowsError(try samples.validated()) { error in
            XCTAssertEqual(error as? CompareError, .figureMissing(name: "s.latencyNs", side: .candidate, runs: 0, expected: 1))
        }
    }

    func testANotANumberValueCountsAsMissing() {
        var samples = FigureSamples()
        samples.add(report([("s.latencyNs", 10, "ns")]), scenario: "s", side: .baseline)
        samples.add(report([("s.latencyNs", .nan, "ns")]), scenario: "s", side: .candidate)
        XCTAssertThrowsError(try samples.validated())
    }

    /// A build that reports ∞ or NaN in some runs measured something wrong there: a harness
    /// error naming the figure, not a figure left unjudged (which let `compare` exit 0).
    func testANonFiniteValueInSomeRunsIsAHarnessError() {
        var samples = FigureSamples()
        for _ in 0..<3 { samples.add(report([("s.latencyNs", 100, "ns")]), scenario: "s", side: .baseline) }
        samples.add(report([("s.latencyNs", .infinity, "ns")]), scenario: "s", side: .candidate)
        samples.add(report([("s.latencyNs", 100, "ns")]), scenario: "s", side: .candidate)
        samples.add(report([("s.latencyNs", .nan, "ns")]), scenario: "s", side: .candidate)
        XCTAssertThrowsError(try samples.validated()) { error in
            XCTAssertEqual(error as? CompareError, .figureNotFinite(name: "s.latencyNs", side: .candidate, runs: 2, of: 3))
        }
    }

    func testAFigureOnlyTheCandidateMeasuresIsListedNotCompared() throws {
        var samples = FigureSamples()
        samples.add(report([("s.latencyNs", 10, "ns")]), scenario: "s", side: .baseline)
        samples.add(report([("s.latencyNs", 10, "ns"), ("s.newNs", 4, "ns")]), scenario: "s", side: .candidate)
        let (compared, candidateOnly, _) = try samples.validated()
        XCTAssertEqual(compared.map(\.name), ["s.latencyNs"])
        XCTAssertEqual(candidateOnly, ["s.newNs"])
    }

    func testScenariosWithoutWallClockFiguresAreAHarnessError() {
        var samples = FigureSamples()
        samples.add(report([("s.allocs", 3, "allocs/op")]), scenario: "s", side: .baseline)
        samples.add(report([("s.allocs", 3, "allocs/op")]), scenario: "s", side: .candidate)
        XCTAssertThrowsError(try samples.validated()) { error in
            XCTAssertEqual(error as? CompareError, .noWallClockFigures(scenarios: ["s"]))
        }
    }
}
