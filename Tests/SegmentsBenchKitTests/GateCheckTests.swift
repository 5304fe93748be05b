import Foundation
import SegmentsBenchKit
import XCTest

/// The regression gate: what fails, what passes, what only hints.
final class GateCheckTests: XCTestCase {
    private func report(_ figures: [Figure], scenario: String = "tracking-storm", allocationsMeasured: Bool = true) -> BenchReport {
        BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(), command: "test",
            scenarios: [ScenarioResult(scenario: scenario, summary: "", configuration: [:], figures: figures,
                                       allocationsMeasured: allocationsMeasured)])
    }

    private let baselineFigures = [
        Figure(name: "tracking-storm.allocsPerEvent", value: 0.02, unit: "allocs/op", gate: .allocations, summary: ""),
        Figure(name: "tracking-storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: ""),
        Figure(name: "tracking-storm.trackEventP50ToFetchAdd", value: 4, unit: "ratio", gate: .latencyRatio, summary: ""),
        Figure(name: "tracking-storm.eventsPerSecond", value: 1e6, unit: "ops/s", summary: ""),
    ]

    private var baseline: Baseline { Baseline(from: report(baselineFigures)) }

    func testTheBaselineKeepsOnlyGatedFigures() {
        XCTAssertEqual(Set(baseline.figures.keys), ["tracking-storm.allocsPerEvent", "tracking-storm.lostEvents", "tracking-storm.trackEventP50ToFetchAdd"])
    }

    func testAnUnchangedRunPasses() {
        let check = GateCheck(report: report(baselineFigures), baseline: baseline)
        XCTAssertTrue(check.passed)
        XCTAssertTrue(check.renderTable().contains("GATE PASSED"))
    }

    func testOneExtraAllocationPerTrackedEventFails() {
        var figures = baselineFigures
        figures[0].value += 1
        let check = GateCheck(report: report(figures), baseline: baseline)
        XCTAssertFalse(check.passed)
        let row = check.rows.first { $0.name == "tracking-storm.allocsPerEvent" }
        XCTAssertEqual(row?.verdict, .regressed)
        let table = check.renderTable()
        XCTAssertTrue(table.contains("tracking-storm.allocsPerEvent"))
        XCTAssertTrue(table.contains("REGRESSED"))
        XCTAssertTrue(table.contains("GATE FAILED"))
    }

    func testHalfAnAllocationOfNoiseStillPasses() {
        var figures = baselineFigures
        figures[0].value += 0.4
        XCTAssertTrue(GateCheck(report: report(figures), baseline: baseline).passed)
    }

    func testALostEventFailsWhateverTheBaselineSays() {
        var figures = baselineFigures
        figures[1].value = 1
        let check = GateCheck(report: report(figures), baseline: baseline)
        XCTAssertFalse(check.passed)
        XCTAssertEqual(check.rows.first { $0.name == "tracking-storm.lostEvents" }?.verdict, .violated)
    }

    func testAnAtMostFigureIsJudgedByItsBoundWhateverTheBaselineSays() {
        let bounded = Figure(name: "tracking-storm.fetchesPerDebounceWindow", value: 0.25, unit: "ratio", gate: .atMost(1), summary: "")
        let baseline = Baseline(from: report(baselineFigures + [bounded]))
        var figures = baselineFigures + [bounded]
        figures[4].value = 1  // four times the baseline, but within the bound
        XCTAssertTrue(GateCheck(report: report(figures), baseline: baseline).passed)
        figures[4].value = 1.34
        let check = GateCheck(report: report(figures), baseline: baseline)
        XCTAssertFalse(check.passed)
        XCTAssertEqual(check.rows.first { $0.name == bounded.name }?.verdict, .violated)
        // Not in the baseline yet: still judged by its bound.
        XCTAssertFalse(GateCheck(report: report(figures), baseline: self.baseline).passed)
    }

    func testLatencyRatiosAreGatedLooselyAgainstTheSameRunsFloor() {
        var figures = baselineFigures
        figures[2].value = 12.9  // within 3× + 1 of 4
        XCTAssertTrue(GateCheck(report: report(figures), baseline: baseline).passed)
        figures[2].value = 13.5  // beyond
        XCTAssertFalse(GateCheck(report: report(figures), baseline: baseline).passed)
    }

    func testAnImprovementBeyondToleranceIsReportedWithAHintAndDoesNotFail() {
        var figures = baselineFigures
        figures[0].value = 0
        let strict = Baseline(from: report([Figure(name: "tracking-storm.allocsPerEvent", value: 3, unit: "allocs/op", gate: .allocations, summary: "")]))
        let check = GateCheck(report: report([figures[0]]), baseline: strict)
        XCTAssertTrue(check.passed)
        XCTAssertEqual(check.rows.first?.verdict, .improved)
        XCTAssertTrue(check.renderTable().contains("baseline update"))
    }

    func testAGatedFigureMissingFromTheRunFails() {
        let check = GateCheck(report: report(Array(baselineFigures.dropFirst())), baseline: baseline)
        XCTAssertFalse(check.passed)
        XCTAssertEqual(check.rows.first { $0.name == "tracking-storm.allocsPerEvent" }?.verdict, .missing)
    }

    func testAllocationFiguresAreSkippedNotFailedWithoutJemalloc() {
        let check = GateCheck(report: report(Array(baselineFigures.dropFirst()), allocationsMeasured: false), baseline: baseline)
        XCTAssertTrue(check.passed)
        XCTAssertEqual(check.rows.first { $0.name == "tracking-storm.allocsPerEvent" }?.verdict, .skipped)
        XCTAssertTrue(check.renderTable().contains("libjemalloc-dev"))
    }

    /// Soak's leak slope is read from jemalloc's allocated bytes, though neither its name nor its
    /// unit says so: without jemalloc it was MISSING, and the gate a harness error (exit 70).
    func testSoaksLeakSlopeIsSkippedNotMissingWithoutJemalloc() {
        let slope = Figure(name: "soak.retainedBytesPerOperation", value: 0.5, unit: "bytes/op", gate: .atMost(16), summary: "")
        let other = Figure(name: "soak.lostEvents", value: 0, unit: "count", gate: .zero, summary: "")
        let soakBaseline = Baseline(from: report([slope, other], scenario: "soak"))
        let check = GateCheck(report: report([other], scenario: "soak", allocationsMeasured: false), baseline: soakBaseline)
        XCTAssertEqual(check.rows.first { $0.name == slope.name }?.verdict, .skipped, check.renderTable())
        XCTAssertTrue(check.passed, check.verdictLine)
    }

    /// A check that loses a callback ends the probe early, so its allocation count is not
    /// measured: that missing figure made the gate a harness error (70), which wins over the
    /// violation (3), and an engine bug read as an infrastructure flake.
    func testFiguresAScenarioCouldNotMeasureAfterAViolationLeaveTheViolationAsTheVerdict() {
        let incomplete = Figure(name: "fanout-sweep.N100.incomplete", value: 0, unit: "count", gate: .zero, summary: "")
        let allocations = Figure(name: "fanout-sweep.N100.allocsPerCheck", value: 12, unit: "allocs/check", gate: .allocations, summary: "")
        let sweepBaseline = Baseline(from: report([incomplete, allocations], scenario: "fanout-sweep"))
        var lost = incomplete
        lost.value = 1
        var violated = report([lost], scenario: "fanout-sweep")
        violated.scenarios[0].unmeasuredAfterViolation = [allocations.name]
        let check = GateCheck(report: violated, baseline: sweepBaseline)
        XCTAssertEqual(check.exitStatus, .violation, check.renderTable())
        XCTAssertEqual(check.rows.first { $0.name == allocations.name }?.verdict, .unmeasured)
        XCTAssertTrue(check.renderTable().contains("not measured after"), check.renderTable())
        // In JUnit, a skipped test case beside the failed one, not a pass.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unmeasured-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertNoThrow(try GateVerdictFiles(directory: directory).write(check, report: violated, baselinePath: nil))
        let junit = (try? String(contentsOf: directory.appendingPathComponent(GateVerdictFiles.junit), encoding: .utf8)) ?? ""
        XCTAssertTrue(junit.contains("skipped=\"1\""), junit)
        XCTAssertTrue(junit.contains("failures=\"1\""), junit)
        XCTAssertTrue(junit.contains("<skipped message=\"not measured after its scenario violated a rule\"/>"), junit)
        // Without a violation the same gap is still the harness's error.
        var gap = report([incomplete], scenario: "fanout-sweep")
        gap.scenarios[0].unmeasuredAfterViolation = [allocations.name]
        XCTAssertEqual(GateCheck(report: gap, baseline: sweepBaseline).exitStatus, .harnessError)
    }

    /// A violation does not excuse a gap its scenario does not name: a figure a change dropped or
    /// renamed in the same run is still the harness's error, not hidden behind the violation.
    func testAViolationLeavesAnUndeclaredGapOfItsScenarioAHarnessError() {
        let lostEvents = Figure(name: "tracking-storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: "")
        let ratio = Figure(name: "tracking-storm.ratio", value: 4, unit: "ratio", gate: .latencyRatio, summary: "")
        let stormBaseline = Baseline(from: report([lostEvents, ratio]))
        var lost = lostEvents
        lost.value = 3
        let check = GateCheck(report: report([lost]), baseline: stormBaseline)
        XCTAssertEqual(check.rows.first { $0.name == ratio.name }?.verdict, .missing)
        XCTAssertEqual(check.exitStatus, .harnessError, check.renderTable())
    }

    func testBaselinesRoundTripThroughTheirFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(UUID().uuidString).json")
        try baseline.write(to: url)
        let loaded = try Baseline.load(from: url)
        XCTAssertEqual(loaded.figures, baseline.figures)
        try? FileManager.default.removeItem(at: url)
    }

    /// Every comparison with NaN is false, so a NaN (or infinite) baseline value would pass any
    /// current value: it is refused as invalid instead.
    func testANonFiniteBaselineValueIsRefused() throws {
        let json = """
            {"figures": {"tracking-storm.allocsPerEvent": {"value": "NaN", "unit": "allocs/op",
              "gate": {"lowerIsBetter": {"relative": 0.05, "absolute": 0.5}}}}}
            """
        let baseline = try Baseline.decode(Data(json.utf8))
        let current = report([Figure(name: "tracking-storm.allocsPerEvent", value: 1_000, unit: "allocs/op", gate: .allocations, summary: "")])
        let check = GateCheck(report: current, baseline: baseline)
        XCTAssertFalse(check.passed, check.verdictLine)
        XCTAssertEqual(check.rows.first?.verdict, .invalid)
        XCTAssertEqual(check.exitStatus, .harnessError)
    }

    /// A figure whose unit changed (per check → per callback, µs → ns) does not compare with its
    /// baseline value: neither an improvement nor a regression, a harness error that asks for a
    /// new baseline.
    func testAFigureInAnotherUnitThanItsBaselineIsRefused() {
        let before = report([Figure(name: "tracking-storm.allocsPerEvent", value: 400, unit: "allocs/check", gate: .allocations, summary: "")])
        let after = report([Figure(name: "tracking-storm.allocsPerEvent", value: 0.8, unit: "allocs/op", gate: .allocations, summary: "")])
        let check = GateCheck(report: after, baseline: Baseline(from: before))
        XCTAssertEqual(check.rows.first?.verdict, .invalid)
        XCTAssertFalse(check.passed)
        XCTAssertEqual(check.exitStatus, .harnessError)
        XCTAssertTrue(check.harnessErrors.contains { $0.contains("allocs/op now, allocs/check in the baseline") }, "\(check.harnessErrors)")
    }
}

extension GateCheckTests {
    func testFiguresOfScenariosThatDidNotRunAreNotCheckedAndNotShown() {
        let other = Baseline(from: BenchReport(
            machine: MachineInfo.current(), gitRevision: "t", startedAt: Date(), command: "t",
            scenarios: [ScenarioResult(scenario: "pull", summary: "", configuration: [:],
                                       figures: [Figure(name: "pull.failures", value: 0, unit: "count", gate: .zero, summary: "")],
                                       allocationsMeasured: true)]))
        let check = GateCheck(report: BenchReport(
            machine: MachineInfo.current(), gitRevision: "t", startedAt: Date(), command: "t",
            scenarios: [ScenarioResult(scenario: "tracking-storm", summary: "", configuration: [:], allocationsMeasured: true)]),
            baseline: other)
        XCTAssertTrue(check.passed)
        XCTAssertEqual(check.rows.first?.verdict, .notRun)
        XCTAssertTrue(check.notable.isEmpty)
        XCTAssertTrue(check.renderTable().contains("not part of this run"))
    }
}
