import Foundation
import SegmentsBenchCLI
import SegmentsBenchKit
import XCTest

/// `--threshold` on every scenario: `run`, the suite and `ci` judge each limit on its own
/// scenario's result, and a missed one fails the command with the regression status.
final class ThresholdCommandTests: XCTestCase {
    /// A scenario measuring `fetch` at 1 … 100 ms and `<name>.rate` at 500 ops/s, with a count that
    /// must be 0 and a ratio compared with a baseline; it honours no option of its own.
    private struct MeasuringScenario: Scenario {
        var name: String
        var fails = false
        var count = 0.0
        let simulates = "nothing"
        let measures = "a fixed latency and rate"
        let honouredOptions: Set<BenchOptionName> = []

        func run(_ options: BenchOptions, progress: SegmentsBenchKit.Progress) throws -> ScenarioResult {
            struct Broken: Error {}
            if fails { throw Broken() }
            return ScenarioResult(
                scenario: name, summary: name, configuration: [:],
                figures: [
                    Figure(name: "\(name).count", value: count, unit: "count", gate: .zero, summary: "zero"),
                    Figure(name: "\(name).rateRatio", value: 1, unit: "ratio", gate: .lowerIsBetter(relative: 0.1, absolute: 0), summary: "baseline only"),
                    Figure(name: "\(name).rate", value: 500, unit: "ops/s", summary: "a rate"),
                ],
                latencies: [fetchSamples(1...100).summary("fetch", definition: "a fetch")], allocationsMeasured: false)
        }
    }

    private func registry(_ scenarios: MeasuringScenario...) throws -> ScenarioRegistry {
        var registry = ScenarioRegistry(builtIns: false)
        for scenario in scenarios { try registry.register(scenario) }
        return registry
    }

    private func scratch() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thresholds-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }

    private func report(in directory: String) throws -> BenchReport {
        try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent("report.json")))
    }

    /// A scenario that honours no option of its own takes `--threshold`; a met one passes, a missed
    /// one exits 2 with the report written and its verdict in the notes.
    func testRunJudgesAnyScenariosLatenciesAndFigures() throws {
        let alpha = try registry(MeasuringScenario(name: "alpha"))
        let met = scratch()
        XCTAssertNil(commandFailure(["run", "alpha", "--threshold", "p99(fetch)<1s", "--threshold", "value(alpha.rate)>=500", "--out", met],
                             registry: alpha).map { "\($0)" })
        XCTAssertEqual(try report(in: met).scenarios.first?.figure("alpha.thresholdsFailed")?.value, 0)

        let missed = scratch()
        let refused = try XCTUnwrap(commandFailure(
            ["run", "alpha", "--threshold", "p50(alpha.fetch)<10ms", "--threshold", "value(rate)>1000", "--out", missed], registry: alpha))
        XCTAssertEqual(refused.status, ExitStatus.regression.rawValue, refused.message)
        let result = try XCTUnwrap(try report(in: missed).scenarios.first)
        XCTAssertEqual(result.figure("alpha.thresholdsFailed")?.value, 2)
        XCTAssertTrue(result.notes.contains { $0.hasPrefix("threshold p50(alpha.fetch)<10ms: FAILED (measured 50") }, "\(result.notes)")
        XCTAssertTrue(result.notes.contains("threshold value(rate)>1000: FAILED (measured 500 ops/s)"), "\(result.notes)")
    }

    /// A name the run did not measure fails: a typo does not pass unnoticed.
    func testALimitOnSomethingNotMeasuredFailsTheRun() throws {
        let out = scratch()
        let refused = try XCTUnwrap(commandFailure(
            ["run", "alpha", "--threshold", "p99(fetch-round-trip)<1s", "--out", out], registry: try registry(MeasuringScenario(name: "alpha"))))
        XCTAssertEqual(refused.status, ExitStatus.regression.rawValue)
        let notes = try XCTUnwrap(try report(in: out).scenarios.first).notes
        XCTAssertTrue(notes.contains { $0.contains("not measured: alpha reported no latency fetch-round-trip (its latencies: fetch)") }, "\(notes)")
    }

    /// In the suite, each limit is judged on the scenario it names, and a name that says no
    /// scenario is a usage error before anything runs.
    func testTheSuiteJudgesEachLimitOnItsOwnScenario() throws {
        let both = try registry(MeasuringScenario(name: "alpha"), MeasuringScenario(name: "beta"))
        let bare = try XCTUnwrap(commandFailure(["suite", "--threshold", "p99(fetch)<1s", "--out", scratch()], registry: both))
        XCTAssertEqual(bare.status, 64, bare.message)
        XCTAssertTrue(bare.message.contains("names none of the scenarios here (alpha, beta)"), bare.message)

        let out = scratch()
        let refused = try XCTUnwrap(commandFailure(["suite", "--threshold", "max(beta.fetch)<1ms", "--out", out], registry: both))
        XCTAssertEqual(refused.status, ExitStatus.regression.rawValue, refused.message)
        let scenarios = try report(in: out).scenarios
        XCTAssertNil(scenarios[0].figure("alpha.thresholdsFailed"), "alpha has no limit of its own")
        XCTAssertEqual(scenarios[1].figure("beta.thresholdsFailed")?.value, 1)
    }

    /// A scenario that could not run met none of its limits.
    func testAScenarioThatFailedMissesItsLimits() throws {
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(MeasuringScenario(name: "alpha", fails: true))
        let out = scratch()
        _ = commandFailure(["run", "alpha", "--threshold", "p99(fetch)<1s", "--out", out], registry: registry)
        XCTAssertEqual(try report(in: out).scenarios.first?.figure("alpha.thresholdsFailed")?.value, 1)
    }

    /// `ci --threshold`: a missed limit fails the gate (exit 2, a row naming it), however the
    /// baseline's figures compare; a malformed one is a usage error before the suite runs.
    func testCIFailsTheGateOnAMissedLimit() throws {
        let alpha = try registry(MeasuringScenario(name: "alpha"))
        let baseline = scratch() + "/baseline.json"
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: alpha).map { "\($0)" })
        XCTAssertNil(commandFailure(["ci", "--baseline", baseline, "--threshold", "p99(alpha.fetch)<1s", "--out", scratch()], registry: alpha)
            .map { "\($0)" })

        let out = scratch()
        let refused = try XCTUnwrap(commandFailure(["ci", "--baseline", baseline, "--threshold", "p99(alpha.fetch)<1ms", "--out", out], registry: alpha))
        XCTAssertEqual(refused.status, ExitStatus.regression.rawValue, refused.message)
        let gate = try String(contentsOfFile: out + "/gate-summary.md", encoding: .utf8)
        XCTAssertTrue(gate.contains("alpha.thresholdsFailed"), gate)
        let verdict = try String(contentsOfFile: out + "/gate.json", encoding: .utf8)
        XCTAssertTrue(verdict.contains("p99(alpha.fetch)<1ms: FAILED"), verdict)

        let malformed = try XCTUnwrap(commandFailure(["ci", "--baseline", baseline, "--threshold", "p99(alpha.fetch)<1", "--out", scratch()], registry: alpha))
        XCTAssertEqual(malformed.status, 64, malformed.message)
    }

    /// `check --threshold` judges a report already written (a merged one, say) without changing it.
    func testCheckJudgesAWrittenReportByLimitsGivenThen() throws {
        let both = try registry(MeasuringScenario(name: "alpha"), MeasuringScenario(name: "beta"))
        let baseline = scratch() + "/baseline.json"
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: both).map { "\($0)" })
        let run = scratch()
        XCTAssertNil(commandFailure(["suite", "--out", run], registry: both).map { "\($0)" })
        let written = try Data(contentsOf: URL(fileURLWithPath: run + "/report.json"))

        XCTAssertNil(commandFailure(["check", "--report", run, "--baseline", baseline, "--threshold", "p99(beta.fetch)<1s"], registry: both)
            .map { "\($0)" })
        let missed = try XCTUnwrap(commandFailure(
            ["check", "--report", run, "--baseline", baseline, "--threshold", "max(beta.fetch)<1ms", "--threshold", "value(alpha.rate)>1"],
            registry: both))
        XCTAssertEqual(missed.status, ExitStatus.regression.rawValue, missed.message)
        let verdict = try String(contentsOfFile: run + "/gate.json", encoding: .utf8)
        XCTAssertTrue(verdict.contains("beta.thresholdsFailed") && verdict.contains("max(beta.fetch)<1ms: FAILED"), verdict)
        XCTAssertFalse(verdict.contains("alpha.thresholdsFailed"), "alpha met its limit: \(verdict)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: run + "/report.json")), written, "check changes no report")

        let bare = try XCTUnwrap(commandFailure(["check", "--report", run, "--baseline", baseline, "--threshold", "max(fetch)<1ms"], registry: both))
        XCTAssertEqual(bare.status, 64, bare.message)
    }

    /// `check` refusing a limit (exit 64) leaves no verdict of an earlier check behind for a CI job
    /// to read as a pass.
    func testACheckRefusingALimitLeavesNoEarlierVerdict() throws {
        let alpha = try registry(MeasuringScenario(name: "alpha"))
        let baseline = scratch() + "/baseline.json"
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: alpha).map { "\($0)" })
        let run = scratch()
        XCTAssertNil(commandFailure(["run", "alpha", "--out", run], registry: alpha).map { "\($0)" })
        XCTAssertNil(commandFailure(["check", "--report", run, "--baseline", baseline], registry: alpha).map { "\($0)" })
        let refused = try XCTUnwrap(commandFailure(["check", "--report", run, "--baseline", baseline, "--threshold", "p99(fetch)<5"], registry: alpha))
        XCTAssertEqual(refused.status, 64, refused.message)
        for file in ["gate.json", "gate-junit.xml", "gate-summary.md"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: run + "/" + file), "\(file) of the earlier check is still there")
        }
    }

    /// Limits judge a run; they do not shape it, so a baseline taken without them reports no
    /// configuration drift for them.
    func testALimitIsNoConfigurationDrift() throws {
        let alpha = try registry(MeasuringScenario(name: "alpha"))
        let baseline = scratch() + "/baseline.json"
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: alpha).map { "\($0)" })
        let out = scratch()
        XCTAssertNil(commandFailure(["run", "alpha", "--threshold", "p99(fetch)<1s", "--out", out], registry: alpha).map { "\($0)" })
        let report = try report(in: out)
        XCTAssertEqual(report.scenarios.first?.configuration["threshold"], "p99(fetch)<1s", "the report records the limits")
        let drift = GateCheck(report: report, baseline: try Baseline.load(from: URL(fileURLWithPath: baseline))).warnings
        XCTAssertFalse(drift.contains { $0.contains("threshold") }, "\(drift)")
    }

    /// `check --no-baseline` judges a report on its own rules and limits (a merged report of runs
    /// against a target has no baseline to compare with); `check` of a limit on a scenario the
    /// report lacks is a harness error, not a usage error that hides the gate's own verdict.
    func testCheckWithoutABaselineJudgesTheReportsOwnRulesAndLimits() throws {
        let both = try registry(MeasuringScenario(name: "alpha"), MeasuringScenario(name: "beta"))
        let run = scratch()
        XCTAssertNil(commandFailure(["run", "alpha", "--out", run], registry: both).map { "\($0)" })
        XCTAssertNil(commandFailure(["check", "--report", run, "--no-baseline", "--threshold", "p99(fetch)<1s"], registry: both).map { "\($0)" })
        let verdict = try String(contentsOfFile: run + "/gate.json", encoding: .utf8)
        XCTAssertTrue(verdict.contains("alpha.count"), "the report's own rule is judged: \(verdict)")

        let missed = try XCTUnwrap(commandFailure(["check", "--report", run, "--no-baseline", "--threshold", "p99(fetch)<1ms"], registry: both))
        XCTAssertEqual(missed.status, ExitStatus.regression.rawValue, missed.message)

        let absent = try XCTUnwrap(commandFailure(["check", "--report", run, "--no-baseline", "--threshold", "p99(beta.fetch)<1s"], registry: both))
        XCTAssertEqual(absent.status, ExitStatus.harnessError.rawValue, absent.message)
        let written = try String(contentsOfFile: run + "/gate.json", encoding: .utf8)
        XCTAssertTrue(written.contains("names scenario beta, which the report does not hold"), written)

        let both2 = try XCTUnwrap(commandFailure(["check", "--report", run, "--no-baseline", "--baseline", "b.json"], registry: both))
        XCTAssertEqual(both2.status, 64, both2.message)

        var broken = ScenarioRegistry(builtIns: false)
        try broken.register(MeasuringScenario(name: "alpha", count: 2))
        let violated = scratch()
        _ = commandFailure(["run", "alpha", "--out", violated], registry: broken)
        XCTAssertEqual(commandFailure(["check", "--report", violated, "--no-baseline"], registry: broken)?.status, ExitStatus.violation.rawValue,
                       "a broken correctness rule needs no baseline to fail")
    }
}
