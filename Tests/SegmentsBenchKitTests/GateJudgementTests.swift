import Foundation
import SegmentsBenchKit
import XCTest

/// Verdicts at the edges of the gate's arithmetic and bookkeeping: a whole scenario the gate needs
/// that did not run, negative baselines, tolerances that are not numbers, and what "checked" counts.
final class GateJudgementTests: XCTestCase {
    private func report(_ scenarios: [String: [Figure]], allocationsMeasured: Bool = true) -> BenchReport {
        BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(), command: "test",
            scenarios: scenarios.sorted { $0.key < $1.key }.map {
                ScenarioResult(scenario: $0.key, summary: "", configuration: [:], figures: $0.value, allocationsMeasured: allocationsMeasured)
            })
    }

    private func figure(_ name: String, _ value: Double, unit: String = "count", gate: GateRule?) -> Figure {
        Figure(name: name, value: value, unit: unit, gate: gate, summary: "")
    }

    func testAScenarioOfTheBaselineThatDidNotRunFailsAGateThatNeedsEveryScenario() {
        let baseline = Baseline(from: report([
            "alpha": [figure("alpha.lost", 0, gate: .zero)],
            "beta": [figure("beta.lost", 0, gate: .zero)],
        ]))
        let onlyAlpha = report(["alpha": [figure("alpha.lost", 0, gate: .zero)]])
        XCTAssertTrue(GateCheck(report: onlyAlpha, baseline: baseline).passed, "a run of some scenarios checks those")
        let check = GateCheck(report: onlyAlpha, baseline: baseline, everyScenarioMustRun: true)
        XCTAssertEqual(check.exitStatus, .harnessError)
        XCTAssertEqual(check.rows.first { $0.name == "beta.lost" }?.verdict, .missing)
        XCTAssertTrue(check.harnessErrors.contains { $0.contains("beta") }, "\(check.harnessErrors)")
    }

    /// A baseline written from a run of one scenario (or one with no figures at all) holds no
    /// value for the other scenarios' figures gated against it: `ci` must not pass them unread.
    func testAFigureGatedAgainstABaselineWithoutItFailsTheCIGateAndWarnsInCheck() throws {
        let run = report([
            "alpha": [figure("alpha.instructions", 300_000, unit: "instructions/op", gate: .lowerIsBetter(relative: 0.05, absolute: 0))],
            "beta": [figure("beta.lost", 0, gate: .zero)],
        ])
        let thin = Baseline(from: report(["beta": [figure("beta.lost", 0, gate: .zero)]]))
        let ci = GateCheck(report: run, baseline: thin, everyScenarioMustRun: true)
        XCTAssertEqual(ci.exitStatus, .harnessError, ci.renderTable())
        XCTAssertTrue(ci.harnessErrors.contains { $0.contains("alpha.instructions") }, "\(ci.harnessErrors)")
        let check = GateCheck(report: run, baseline: thin)
        XCTAssertTrue(check.passed)
        XCTAssertTrue(check.warnings.contains { $0.contains("alpha.instructions") && $0.contains("not compared") }, "\(check.warnings)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try GateVerdictFiles(directory: directory).write(check, report: run, baselinePath: nil)
        let junit = try String(contentsOf: directory.appendingPathComponent(GateVerdictFiles.junit), encoding: .utf8)
        XCTAssertTrue(junit.contains("skipped=\"1\""), junit)
        let summary = try String(contentsOf: directory.appendingPathComponent(GateVerdictFiles.summary), encoding: .utf8)
        XCTAssertTrue(summary.contains("alpha.instructions"), summary)
    }

    /// What a run did not measure or did not run is said in every verdict file, not only on the
    /// console: a summary that reads "pass" must say which gates were off.
    func testFiguresNotMeasuredOrNotRunAreWarningsOfTheVerdict() {
        let full = report([
            "alpha": [figure("alpha.allocs", 1, unit: "allocs/op", gate: .allocations), figure("alpha.lost", 0, gate: .zero)],
            "beta": [figure("beta.lost", 0, gate: .zero)],
        ])
        let withoutJemalloc = report(["alpha": [figure("alpha.lost", 0, gate: .zero)]], allocationsMeasured: false)
        let check = GateCheck(report: withoutJemalloc, baseline: Baseline(from: full))
        XCTAssertTrue(check.passed)
        XCTAssertTrue(check.warnings.contains { $0.contains("alpha.allocs") && $0.contains("not measured") }, "\(check.warnings)")
        XCTAssertTrue(check.warnings.contains { $0.contains("not part of this run") && $0.contains("beta") }, "\(check.warnings)")
    }

    /// A value just over its limit reads the same as the limit at the usual precision: the
    /// verdict shows the digits that tell them apart.
    func testAFailingValueThatRoundsToItsLimitIsShownWithTheDigitsThatTellThemApart() throws {
        let run = report(["alpha": [figure("alpha.unsent", 1.0000001, gate: .atMost(1))]])
        let check = GateCheck(report: run, baseline: Baseline(from: run))
        XCTAssertEqual(check.exitStatus, .violation)
        let table = check.renderTable()
        XCTAssertTrue(table.contains("1.0000001"), table)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try GateVerdictFiles(directory: directory).write(check, report: run, baselinePath: nil)
        let summary = try String(contentsOf: directory.appendingPathComponent(GateVerdictFiles.summary), encoding: .utf8)
        XCTAssertTrue(summary.contains("1.0000001"), summary)
    }

    func testAnUnchangedNegativeFigurePasses() {
        let drift = report(["alpha": [figure("alpha.offset", -10, unit: "ms", gate: .lowerIsBetter(relative: 0.1, absolute: 0))]])
        let check = GateCheck(report: drift, baseline: Baseline(from: drift))
        XCTAssertTrue(check.passed, check.renderTable())
        let worse = report(["alpha": [figure("alpha.offset", -8.5, unit: "ms", gate: .lowerIsBetter(relative: 0.1, absolute: 0))]])
        XCTAssertEqual(GateCheck(report: worse, baseline: Baseline(from: drift)).rows.first?.verdict, .regressed)
        let rate = report(["alpha": [figure("alpha.rate", -10, unit: "x", gate: .higherIsBetter(relative: 0.1, absolute: 0))]])
        XCTAssertTrue(GateCheck(report: rate, baseline: Baseline(from: rate)).passed)
    }

    /// Each tolerance's two terms, at and just past its limit, both ways: a value at its limit
    /// passes, the band of "improved" is as wide as the band of "regressed", and a change inside
    /// it asks for no baseline update.
    func testEachToleranceHoldsAtItsLimitAndFailsJustPastIt() {
        func verdict(_ current: Double, baseline: Double, _ gate: GateRule, unit: String = "x") -> (GateCheck.Verdict?, String) {
            let before = report(["alpha": [figure("alpha.v", baseline, unit: unit, gate: gate)]])
            let now = report(["alpha": [figure("alpha.v", current, unit: unit, gate: gate)]])
            let check = GateCheck(report: now, baseline: Baseline(from: before))
            return (check.rows.first?.verdict, check.renderTable())
        }
        let higher = GateRule.higherIsBetter(relative: 0.1, absolute: 5)  // limit 100 − 10 − 5 = 85
        XCTAssertEqual(verdict(85, baseline: 100, higher).0, .pass, "at the limit")
        XCTAssertEqual(verdict(84.9, baseline: 100, higher).0, .regressed)
        XCTAssertEqual(verdict(115, baseline: 100, higher).0, .pass, "the better band has the absolute term too")
        XCTAssertEqual(verdict(115.1, baseline: 100, higher).0, .improved)
        XCTAssertEqual(verdict(100, baseline: 100, .higherIsBetter(relative: 0, absolute: 0)).0, .pass, "unchanged at zero tolerance")
        let lower = GateRule.allocations  // 5% + 0.5: limit 3.65 and better 2.35 around 3
        XCTAssertEqual(verdict(3.65, baseline: 3, lower).0, .pass, "at the limit")
        XCTAssertEqual(verdict(3.66, baseline: 3, lower).0, .regressed)
        let inside = verdict(2.7, baseline: 3, lower)
        XCTAssertEqual(inside.0, .pass)
        XCTAssertFalse(inside.1.contains("baseline update"), inside.1)
        XCTAssertEqual(verdict(2.3, baseline: 3, lower).0, .improved)
    }

    /// The change is relative to the baseline's size, so it keeps its sign for a negative one.
    func testTheChangeOfANegativeFigureKeepsItsSign() throws {
        let drift = report(["alpha": [figure("alpha.offset", -10, unit: "ms", gate: .lowerIsBetter(relative: 0.1, absolute: 0))]])
        let worse = report(["alpha": [figure("alpha.offset", -8.5, unit: "ms", gate: .lowerIsBetter(relative: 0.1, absolute: 0))]])
        let row = try XCTUnwrap(GateCheck(report: worse, baseline: Baseline(from: drift)).rows.first)
        XCTAssertEqual(try XCTUnwrap(row.change), 0.15, accuracy: 1e-9)
    }

    /// A baseline entry without a unit (written before units were kept) is judged, not taken for a
    /// unit change.
    func testABaselineEntryWithoutAUnitIsNotAUnitChange() throws {
        let run = report(["alpha": [figure("alpha.allocs", 2, unit: "allocs/op", gate: .allocations)]])
        let json = #"{"figures":{"alpha.allocs":{"value":2,"gate":{"lowerIsBetter":{"relative":0.05,"absolute":0.5}}}}}"#
        let check = GateCheck(report: run, baseline: try Baseline.decode(Data(json.utf8)))
        XCTAssertTrue(check.passed, check.renderTable())
        XCTAssertEqual(check.harnessErrors, [])
    }

    /// A counted cost of 0 (no retain, no allocation per operation) is a count, not a broken report.
    func testACountedCostOfZeroIsACount() {
        let costs = report(["costs": [figure("costs.x.allocations", 0, unit: "allocs/op", gate: .allocations)]])
        XCTAssertEqual(GateCheck.harnessErrors(in: costs), [])
        XCTAssertTrue(GateCheck(report: costs, baseline: Baseline(from: costs)).passed)
    }

    func testARuleWhoseToleranceIsNotAFiniteNonNegativeNumberCannotJudge() throws {
        let json = #"{"figures":{"alpha.allocs":{"value":2,"unit":"allocs/op","gate":{"lowerIsBetter":{"relative":"NaN","absolute":0.5}}}}}"#
        let baseline = try Baseline.decode(Data(json.utf8))
        let check = GateCheck(report: report(["alpha": [figure("alpha.allocs", 1_000, unit: "allocs/op", gate: .allocations)]]), baseline: baseline)
        XCTAssertEqual(check.rows.first?.verdict, .invalid)
        XCTAssertEqual(check.exitStatus, .harnessError)

        let negative = report(["alpha": [figure("alpha.allocs", 1_000, unit: "allocs/op", gate: .lowerIsBetter(relative: -5, absolute: 0))]])
        XCTAssertEqual(GateCheck(report: negative, baseline: Baseline(from: negative)).rows.first?.verdict, .invalid)
    }

    /// The costs scenario without valgrind or binutils fails, so its allocation counts are missing:
    /// they were reported skipped for want of jemalloc, which was not the cause.
    func testTheAllocationFiguresOfAFailedScenarioAreMissingNotSkipped() {
        let full = report(["costs": [figure("costs.check.allocations", 80, unit: "allocs/op", gate: .allocations)]])
        let failed = report(
            ["costs": [figure("costs.scenarioFailed", 1, gate: .zero)]], allocationsMeasured: false)
        let check = GateCheck(report: failed, baseline: Baseline(from: full))
        XCTAssertEqual(check.rows.first { $0.name == "costs.check.allocations" }?.verdict, .missing)
        XCTAssertFalse(check.warnings.contains { $0.contains("jemalloc") }, "\(check.warnings)")
    }

    func testFiguresCheckedCountsOnlyFiguresCompared() {
        let measured = report(["alpha": [
            figure("alpha.allocs", 1, unit: "allocs/op", gate: .allocations), figure("alpha.lost", 0, gate: .zero),
            figure("alpha.ratio", 2, unit: "ratio", gate: .latencyRatio),
        ]])
        let withoutJemalloc = report(
            ["alpha": [figure("alpha.lost", 0, gate: .zero), figure("alpha.ratio", 2, unit: "ratio", gate: .latencyRatio)]],
            allocationsMeasured: false)
        let check = GateCheck(report: withoutJemalloc, baseline: Baseline(from: measured))
        XCTAssertEqual(check.rows.first { $0.name == "alpha.allocs" }?.verdict, .skipped)
        XCTAssertEqual(check.verdictLine, "GATE PASSED (2 figures checked)")
    }
}
