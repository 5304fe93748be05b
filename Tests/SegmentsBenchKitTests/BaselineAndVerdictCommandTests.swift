import Foundation
import SegmentsBenchCLI
import SegmentsBenchKit
import XCTest

/// `ci` and `baseline update` never let a gate pass on figures nobody measured, never take a
/// baseline from a broken run, and never leave an earlier run's verdict standing.
final class BaselineAndVerdictCommandTests: XCTestCase {
    private func registry(_ scenarios: GatedScenario...) throws -> ScenarioRegistry {
        var registry = ScenarioRegistry(builtIns: false)
        for scenario in scenarios { try registry.register(scenario) }
        return registry
    }

    private func baselineFigures(_ path: String) throws -> [String] {
        try Baseline.load(from: URL(fileURLWithPath: path)).figures.keys.sorted()
    }

    func testCIFailsWhenAScenarioOfTheBaselineDoesNotRun() throws {
        let baseline = scratch() + "/baseline.json"
        let both = try registry(GatedScenario(name: "alpha"), GatedScenario(name: "beta"))
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: both).map { "\($0)" })
        let out = scratch()
        let refused = try XCTUnwrap(commandFailure(["ci", "--baseline", baseline, "--out", out], registry: try registry(GatedScenario(name: "alpha"))))
        XCTAssertEqual(refused.status, 70, refused.message)
        let verdict = try String(contentsOfFile: out + "/" + GateVerdictFiles.summary, encoding: .utf8)
        XCTAssertTrue(verdict.contains("beta"), verdict)
    }

    func testBaselineUpdateKeepsTheAllocationFiguresOfARunThatCouldNotCountThem() throws {
        let baseline = scratch() + "/baseline.json"
        let counted = try registry(GatedScenario(name: "alpha", allocations: 2))
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: counted).map { "\($0)" })
        XCTAssertEqual(try baselineFigures(baseline), ["alpha.allocs", "alpha.count"])

        let uncounted = try registry(GatedScenario(name: "alpha"))
        let refused = try XCTUnwrap(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: uncounted))
        XCTAssertEqual(refused.status, 70, refused.message)
        XCTAssertTrue(refused.message.contains("alpha.allocs"), refused.message)
        XCTAssertEqual(try baselineFigures(baseline), ["alpha.allocs", "alpha.count"], "the allocation gate is kept")
        // Written elsewhere, it is the run's own baseline.
        let elsewhere = scratch() + "/without-allocations.json"
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", elsewhere], registry: uncounted).map { "\($0)" })
    }

    /// `--from` a report over a `--to` that cannot be read as a baseline (truncated, of a newer
    /// version): what it gates is unknown, so it is not replaced, and a report is never written
    /// over with a baseline of itself. Both were overwritten (exit 0), the first without the
    /// check of the scenarios it would stop gating.
    func testBaselineUpdateFromAReportDoesNotReplaceWhatItCannotRead() throws {
        let alpha = try registry(GatedScenario(name: "alpha"))
        let out = scratch()
        _ = commandFailure(["run", "alpha", "--out", out], registry: alpha)
        let report = out + "/report.json"
        XCTAssertTrue(FileManager.default.fileExists(atPath: report))
        let unreadable = scratch()
        try Data(#"{"version": 1, "figures": {"beta.count": {"value": 0, "#.utf8).write(to: URL(fileURLWithPath: unreadable))
        let refused = try XCTUnwrap(commandFailure(["baseline", "update", "--from", out, "--to", unreadable], registry: alpha))
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("\(unreadable) exists but cannot be read as a baseline"), refused.message)
        XCTAssertEqual(try String(contentsOfFile: unreadable, encoding: .utf8), #"{"version": 1, "figures": {"beta.count": {"value": 0, "#)

        let same = try XCTUnwrap(commandFailure(["baseline", "update", "--from", report, "--to", report], registry: alpha))
        XCTAssertEqual(same.status, 64, same.message)
        XCTAssertTrue(same.message.contains("--to is the report given with --from"), same.message)
        XCTAssertNoThrow(try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: report))))
    }

    func testNoBaselineIsTakenFromARunThatBrokeACorrectnessRule() throws {
        let baseline = scratch() + "/baseline.json"
        let broken = try registry(GatedScenario(name: "alpha", count: 5))
        let refused = try XCTUnwrap(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: broken))
        XCTAssertEqual(refused.status, 70, refused.message)
        XCTAssertTrue(refused.message.contains("alpha.count"), refused.message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: baseline))
    }

    func testACIRunThatEndsEarlyLeavesNoVerdictOfAnEarlierRun() throws {
        let baseline = scratch() + "/baseline.json"
        let alpha = try registry(GatedScenario(name: "alpha"))
        XCTAssertNil(commandFailure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: alpha).map { "\($0)" })
        let out = scratch()
        XCTAssertNil(commandFailure(["ci", "--baseline", baseline, "--out", out], registry: alpha).map { "\($0)" })
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + GateVerdictFiles.json))

        let ended = try XCTUnwrap(commandFailure(["ci", "--baseline", baseline, "--out", out], registry: ScenarioRegistry(builtIns: false)))
        XCTAssertEqual(ended.status, 64, ended.message)
        for file in [GateVerdictFiles.json, GateVerdictFiles.junit, GateVerdictFiles.summary] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/" + file), "\(file) of the earlier run is still there")
        }
    }

    private func scratch() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-verdict-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }
}
