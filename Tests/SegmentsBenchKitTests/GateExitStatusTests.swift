import Foundation
import SegmentsBenchKit
import XCTest

/// The gate's exit status: which outcome gives which code, and which wins when several happen.
final class GateExitStatusTests: XCTestCase {
    private func report(_ figures: [Figure], scenario: String = "tracking-storm", notes: [String] = []) -> BenchReport {
        BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(), command: "test",
            scenarios: [ScenarioResult(scenario: scenario, summary: "", configuration: [:], figures: figures,
                                       allocationsMeasured: true, notes: notes)])
    }

    private let figures = [
        Figure(name: "tracking-storm.allocsPerEvent", value: 2, unit: "allocs/op", gate: .allocations, summary: ""),
        Figure(name: "tracking-storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: ""),
        Figure(name: "tracking-storm.fetchesPerDebounceWindow", value: 0.5, unit: "ratio", gate: .atMost(1), summary: ""),
        Figure(name: "tracking-storm.eventsPerSecond", value: 1e6, unit: "ops/s", summary: ""),
    ]

    private var baseline: Baseline { Baseline(from: report(figures)) }

    private func check(_ change: (inout [Figure]) -> Void) -> GateCheck {
        var changed = figures
        change(&changed)
        return GateCheck(report: report(changed), baseline: baseline)
    }

    func testTheCodesAreTheDocumentedOnes() {
        XCTAssertEqual(ExitStatus.pass.rawValue, 0)
        XCTAssertEqual(ExitStatus.regression.rawValue, 2)
        XCTAssertEqual(ExitStatus.violation.rawValue, 3)
        XCTAssertEqual(ExitStatus.usage.rawValue, 64)
        XCTAssertEqual(ExitStatus.harnessError.rawValue, 70)
    }

    /// A run that missed a `--threshold` limit exits 2 from `run`; `check` on its report, and `ci`,
    /// give the same verdict instead of passing it (also on a report merged from hosts, whose count
    /// is the sum of theirs).
    func testAReportThatMissedAThresholdIsARegression() {
        let missed = Figure(name: "fleet.thresholdsFailed", value: 2, unit: "count", summary: "--threshold limits the run missed")
        let met = Figure(name: "fleet.thresholdsFailed", value: 0, unit: "count", summary: "--threshold limits the run missed")
        let notes = ["threshold p99(track)<1ms: FAILED (344.5 ms)", "threshold max(fetch)<2s: FAILED (2.10 s)", "threshold p50(fetch)<1s: passed (20.0 ms)"]
        let failing = GateCheck(report: report([missed], scenario: "fleet", notes: notes), baseline: Baseline(from: report([], scenario: "fleet")))
        XCTAssertEqual(failing.exitStatus, .regression, failing.renderTable())
        let row = failing.rows.first { $0.name == "fleet.thresholdsFailed" }
        XCTAssertEqual(row?.verdict, .regressed)
        // The verdict names the limits missed and what was measured, not only how many.
        XCTAssertEqual(row?.rule, "the run's --threshold limits: threshold p99(track)<1ms: FAILED (344.5 ms); threshold max(fetch)<2s: FAILED (2.10 s)")
        let passing = GateCheck(report: report([met], scenario: "fleet"), baseline: Baseline(from: report([], scenario: "fleet")))
        XCTAssertEqual(passing.exitStatus, .pass, passing.renderTable())
    }

    /// A count of missed limits that also carries a rule of its own, or has a baseline entry, still
    /// fails the gate when it is not 0: a passing row of the same name does not hide the miss.
    func testAMissedThresholdIsARegressionWhateverRuleTheFigureCarries() {
        let gated = Figure(name: "fleet.thresholdsFailed", value: 3, unit: "count", gate: .atMost(5), summary: "")
        let withRule = GateCheck(report: report([gated], scenario: "fleet"), baseline: Baseline(from: report([], scenario: "fleet")))
        XCTAssertEqual(withRule.exitStatus, .regression, withRule.renderTable())
        let baselined = Baseline(from: report([Figure(name: "fleet.thresholdsFailed", value: 3, unit: "count", gate: .atMost(5), summary: "")],
                                              scenario: "fleet"))
        let plain = Figure(name: "fleet.thresholdsFailed", value: 3, unit: "count", summary: "")
        let againstBaseline = GateCheck(report: report([plain], scenario: "fleet"), baseline: baselined)
        XCTAssertEqual(againstBaseline.exitStatus, .regression, againstBaseline.renderTable())
        let compared = Figure(name: "fleet.thresholdsFailed", value: 3, unit: "count", gate: .lowerIsBetter(relative: 1, absolute: 5), summary: "")
        let new = GateCheck(report: report([compared], scenario: "fleet"), baseline: Baseline(from: report([], scenario: "fleet")))
        XCTAssertEqual(new.exitStatus, .regression, "a row the baseline could not compare does not hide it either: \(new.renderTable())")
    }

    /// A merged report's notes name their host first (`vm (m1): threshold …`); the gate's row still
    /// says which limits were missed.
    func testAMergedReportsMissedLimitsAreNamedInTheRow() {
        let missed = Figure(name: "fleet.thresholdsFailed", value: 1, unit: "count", summary: "")
        let notes = ["vm (m1): threshold p99(track)<1ms: FAILED (measured 344.5 ms)", "vm (m2): threshold p99(track)<1ms: passed (measured 0.5 ms)"]
        let check = GateCheck(report: report([missed], scenario: "fleet", notes: notes), baseline: Baseline(from: report([], scenario: "fleet")))
        let row = check.rows.first { $0.name == "fleet.thresholdsFailed" }
        XCTAssertEqual(row?.rule, "the run's --threshold limits: vm (m1): threshold p99(track)<1ms: FAILED (measured 344.5 ms)")
    }

    func testAnUnchangedRunExitsZero() {
        let check = check { _ in }
        XCTAssertEqual(check.exitStatus, .pass)
        XCTAssertTrue(check.passed)
    }

    func testARegressionExitsTwo() {
        let check = check { $0[0].value = 5 }
        XCTAssertEqual(check.rows.first { $0.name == "tracking-storm.allocsPerEvent" }?.verdict, .regressed)
        XCTAssertEqual(check.exitStatus, .regression)
        XCTAssertTrue(check.verdictLine.contains("exit 2"))
    }

    func testABrokenMustEqualRuleExitsThree() {
        XCTAssertEqual(check { $0[1].value = 1 }.exitStatus, .violation)
    }

    func testABrokenAtMostRuleExitsThree() {
        XCTAssertEqual(check { $0[2].value = 1.5 }.exitStatus, .violation)
    }

    func testAViolationWinsOverARegression() {
        let check = check {
            $0[0].value = 5
            $0[1].value = 1
        }
        XCTAssertEqual(Set(check.rows.map(\.verdict)), [.regressed, .violated, .pass])
        XCTAssertEqual(check.exitStatus, .violation)
    }

    func testAHarnessErrorWinsOverAViolationAndARegression() {
        let check = check {
            $0[0].value = 5
            $0[1].value = 1
            $0[2].value = .nan
        }
        XCTAssertEqual(check.exitStatus, .harnessError)
    }

    func testPrecedenceIsHarnessErrorThenViolationThenRegressionThenPass() {
        XCTAssertEqual(ExitStatus.combined([]), .pass)
        XCTAssertEqual(ExitStatus.combined([.pass, .regression]), .regression)
        XCTAssertEqual(ExitStatus.combined([.regression, .violation, .pass]), .violation)
        XCTAssertEqual(ExitStatus.combined([.violation, .harnessError, .regression]), .harnessError)
        XCTAssertEqual(ExitStatus.combined([.harnessError, .usage]), .usage)
    }

    func testAnImprovementASkipAndANewFigureDoNotFail() {
        XCTAssertEqual(ExitStatus(.improved), .pass)
        XCTAssertEqual(ExitStatus(.skipped), .pass)
        XCTAssertEqual(ExitStatus(.notRun), .pass)
        XCTAssertEqual(ExitStatus(.new), .pass)
    }

    func testANaNFigureIsInvalidInsteadOfPassingEveryRule() {
        for index in 0..<3 {
            let check = check { $0[index].value = .nan }
            XCTAssertEqual(check.rows.first { $0.name == figures[index].name }?.verdict, .invalid, figures[index].name)
            XCTAssertEqual(check.exitStatus, .harnessError, figures[index].name)
        }
    }

    func testAnInfiniteFigureIsInvalid() {
        let check = check { $0[0].value = -.infinity }
        XCTAssertEqual(check.rows.first?.verdict, .invalid)
        XCTAssertEqual(check.exitStatus, .harnessError)
    }

    func testANaNGatedFigureWithoutABaselineIsInvalidToo() {
        let extra = Figure(name: "tracking-storm.newRatio", value: .nan, unit: "ratio", gate: .latencyRatio, summary: "")
        let check = GateCheck(report: report(figures + [extra]), baseline: baseline)
        XCTAssertEqual(check.rows.first { $0.name == extra.name }?.verdict, .invalid)
        XCTAssertEqual(check.exitStatus, .harnessError)
    }

    func testANaNReportedFigureIsAHarnessError() {
        let check = check { $0[3].value = .nan }
        XCTAssertTrue(check.rows.allSatisfy { $0.verdict == .pass })
        XCTAssertEqual(check.harnessErrors.count, 1)
        XCTAssertTrue(check.harnessErrors[0].contains("tracking-storm.eventsPerSecond"))
        XCTAssertEqual(check.exitStatus, .harnessError)
    }

    func testABaselineFigureNotMeasuredNowIsAHarnessError() {
        let check = GateCheck(report: report(Array(figures.dropFirst())), baseline: baseline)
        XCTAssertEqual(check.rows.first { $0.name == "tracking-storm.allocsPerEvent" }?.verdict, .missing)
        XCTAssertEqual(check.exitStatus, .harnessError)
    }

    func testAJemallocStatisticMissingWithoutJemallocIsSkippedNotAHarnessError() {
        let growth = Figure(name: "tracking-storm.jemallocActiveGrowth", value: 0.9, unit: "ratio",
                            gate: .lowerIsBetter(relative: 0.5, absolute: 0.25), summary: "")
        let baseline = Baseline(from: report(figures + [growth]))
        let withoutJemalloc = BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(), command: "test",
            scenarios: [ScenarioResult(scenario: "tracking-storm", summary: "", configuration: [:], figures: figures,
                                       allocationsMeasured: false)])
        let check = GateCheck(report: withoutJemalloc, baseline: baseline)
        XCTAssertEqual(check.rows.first { $0.name == growth.name }?.verdict, .skipped)
        XCTAssertEqual(check.exitStatus, .pass)
        // With jemalloc, the same figure missing is a harness error.
        XCTAssertEqual(GateCheck(report: report(figures), baseline: baseline).exitStatus, .harnessError)
    }

    func testAnUnreadableBaselineIsAHarnessError() {
        let check = GateCheck(report: report(figures), unreadableBaseline: "/nonexistent: no such file")
        XCTAssertTrue(check.rows.isEmpty)
        XCTAssertEqual(check.exitStatus, .harnessError)
        XCTAssertTrue(check.renderTable().contains("baseline unreadable: /nonexistent"))
        XCTAssertFalse(check.renderTable().contains("within their tolerance"), "nothing was compared")
    }

    func testAnUnreadableReportIsAHarnessError() {
        XCTAssertEqual(GateCheck(unreadableReport: "report.json: not JSON").exitStatus, .harnessError)
    }

    func testAScenarioThatThrewIsAHarnessErrorNotOnlyAViolation() {
        let failed = Figure(name: "tracking-storm.scenarioFailed", value: 1, unit: "count", gate: .zero,
                            summary: "the scenario could not run: boom")
        let check = GateCheck(report: report([failed], notes: ["failed: boom"]), baseline: baseline)
        XCTAssertEqual(check.rows.first { $0.name == failed.name }?.verdict, .violated)
        XCTAssertTrue(check.harnessErrors.contains { $0.contains("tracking-storm threw: failed: boom") })
        XCTAssertEqual(check.exitStatus, .harnessError)
    }

    func testTheHelpTextNamesEveryCodeAndThePrecedence() {
        for code in ["0", "2", "3", "64", "70"] {
            XCTAssertTrue(ExitStatus.helpText.contains(code), code)
        }
        XCTAssertTrue(ExitStatus.helpText.contains("70 wins over 3, and 3 over 2"))
    }
}
