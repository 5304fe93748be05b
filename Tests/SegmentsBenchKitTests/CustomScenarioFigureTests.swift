import Foundation
import RealtimeSegments
import SegmentsBenchCLI
import SegmentsBenchKit
import XCTest

/// What the gate does with a custom scenario's badly named figures: each is a harness error, never
/// a figure silently left unjudged.
final class CustomScenarioFigureTests: XCTestCase {
    private func report(_ scenarios: [(String, [Figure])]) -> BenchReport {
        BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(), command: "test",
            scenarios: scenarios.map { ScenarioResult(scenario: $0.0, summary: "", configuration: [:], figures: $0.1, allocationsMeasured: true) })
    }

    private func wrong(_ value: Double, name: String = "my-scenario.wrongAnswers") -> Figure {
        Figure(name: name, value: value, unit: "count", gate: .zero, summary: "wrong answers")
    }

    /// A scenario that reports the same figure name twice: the gate must not judge only one of them.
    func testADuplicateFigureNameWithinAScenarioDoesNotHideAViolation() {
        let baseline = Baseline(from: report([("my-scenario", [wrong(0)])]))
        let check = GateCheck(report: report([("my-scenario", [wrong(3), wrong(0)])]), baseline: baseline)
        XCTAssertFalse(check.passed, "my-scenario.wrongAnswers = 3 was reported, yet: \(check.verdictLine)")
    }

    /// A gated figure not named `<scenario>.<what>` (as ``Figure/name`` asks): once in a baseline,
    /// the gate takes the part before the first dot for its scenario, so when the scenario stops
    /// reporting it the verdict is "scenario not run" and the gate passes (0 figures checked).
    /// Such a figure must be refused when reported, before any baseline holds it.
    func testAGatedFigureNotNamedForItsScenarioIsRefused() {
        let named = report([("my-scenario", [wrong(0, name: "wrongAnswers")])])
        let check = GateCheck(report: named, baseline: Baseline(from: named))
        XCTAssertFalse(check.passed, "wrongAnswers is not named my-scenario.<what>, yet: \(check.verdictLine)")
        let vanished = GateCheck(report: report([("my-scenario", [])]), baseline: Baseline(from: named))
        print("the same figure vanished from a run of my-scenario: \(vanished.verdictLine)")
    }

    /// A figure whose own rule is not well formed (a negative tolerance, a NaN bound) and a
    /// negative count of missed `--threshold` limits are broken reports: `baseline update` wrote
    /// such a rule into a baseline the gate then refused, and `check` passed a count of −1.
    func testAMalformedRuleOrANegativeThresholdCountIsAHarnessError() {
        let rules: [(Figure, String)] = [
            (Figure(name: "my-scenario.ns", value: 5, unit: "ns", gate: .lowerIsBetter(relative: -1, absolute: 0), summary: ""),
             "figure my-scenario.ns has a gate rule that is not well formed"),
            (Figure(name: "my-scenario.ns", value: 5, unit: "ns", gate: .atMost(.nan), summary: ""),
             "figure my-scenario.ns has a gate rule that is not well formed"),
            (Figure(name: "my-scenario.thresholdsFailed", value: -1, unit: "count", summary: ""),
             "figure my-scenario.thresholdsFailed is -1: a count of missed limits is a whole number, 0 or more"),
            (Figure(name: "my-scenario.thresholdsFailed", value: 1e19, unit: "count", summary: ""),
             "figure my-scenario.thresholdsFailed is 1e+19: a count of missed limits is a whole number, 0 or more"),
        ]
        // Read by `baseline update` after those checks, and by `check`: no trap on any value.
        // A value no count can be counts as every limit missed, so `run` does not exit 0 on it, and
        // another scenario's misses do not wrap the sum around.
        for value in [1e19, -1e19, -1, 0.5, .nan, .infinity] {
            let broken = Figure(name: "my-scenario.thresholdsFailed", value: value, unit: "count", summary: "")
            XCTAssertEqual(report([("my-scenario", [broken])]).thresholdsFailed, Int.max, "\(value)")
            let other = Figure(name: "other.thresholdsFailed", value: 1, unit: "count", summary: "")
            XCTAssertEqual(report([("my-scenario", [broken]), ("other", [other])]).thresholdsFailed, Int.max, "\(value) and 1")
        }
        for (figure, message) in rules {
            let errors = GateCheck.harnessErrors(in: report([("my-scenario", [figure])]))
            XCTAssertTrue(errors.contains { $0.hasPrefix(message) }, "\(errors)")
            let empty = Baseline(from: report([("my-scenario", [])]))
            XCTAssertEqual(GateCheck(report: report([("my-scenario", [figure])]), baseline: empty).exitStatus, .harnessError)
        }
    }

    /// A custom scenario's figure named like a built-in's: it must not mask the built-in's violation.
    func testAFigureNameClashingWithABuiltInsDoesNotHideItsViolation() {
        let lost = "tracking-storm.lostEvents"
        let baseline = Baseline(from: report([("tracking-storm", [wrong(0, name: lost)])]))
        let check = GateCheck(
            report: report([("tracking-storm", [wrong(5, name: lost)]), ("my-scenario", [wrong(0, name: lost)])]),
            baseline: baseline)
        XCTAssertFalse(check.passed, "tracking-storm lost 5 events, yet: \(check.verdictLine)")
    }
}

/// A package's own engine factory, and bad figures through the command line.
final class CustomEngineAndCLITests: XCTestCase {
    /// A package's own engine whose factory happens to be named "SegmentsClient" is still another
    /// engine: a scenario that measures `SegmentsClient` itself must refuse it, and reports must say
    /// which engine ran.
    func testACustomEngineNamedLikeTheDefaultIsNotTakenForIt() {
        let custom = BenchEngineFactory(name: "SegmentsClient") { configuration in
            SegmentsClientEngine(SegmentsClient(configuration: configuration))
        }
        var options = BenchOptions()
        options.engine = custom
        XCTAssertFalse(custom.isDefault, "a factory of the package's own is not the harness's SegmentsClient")
        XCTAssertNotNil(HotPathScenario().refusal(of: options), "hot-path would silently measure SegmentsClient instead")
    }

    private struct NaNScenario: Scenario {
        let name = "nan-scenario"
        let simulates = "a broken measurement"
        let measures = "nothing"
        let honouredOptions: Set<BenchOptionName> = []
        func run(_ options: BenchOptions, progress: SegmentsBenchKit.Progress) throws -> ScenarioResult {
            ScenarioResult(scenario: name, summary: "", configuration: [:], figures: [
                Figure(name: "nan-scenario.ratio", value: .nan, unit: "ratio", gate: .latencyRatio, summary: "0/0"),
            ], allocationsMeasured: false)
        }
    }

    /// `baseline update` from a run whose gated figure is NaN: refused with a harness error naming
    /// the figure as the gate does, not an encoder's error.
    func testBaselineUpdateWithANaNFigureSaysWhichFigure() throws {
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(NaNScenario())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rev-e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let to = directory.appendingPathComponent("baseline.json").path
        XCTAssertThrowsError(try SegmentsBenchCLI.run(
            ["baseline", "update", "--to", to, "--out", directory.appendingPathComponent("out").path], registry: registry)
        ) { error in
            let message = SegmentsBenchCLI.message(for: error)
            print("baseline update said: \(message) (exit \(SegmentsBenchCLI.exitStatus(for: error)))")
            XCTAssertFalse(error is EncodingError, "an encoder's error, not a harness error: \(message)")
            XCTAssertTrue(message.contains("nan-scenario.ratio") && message.contains("not a finite number"), message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: to))
    }
}
