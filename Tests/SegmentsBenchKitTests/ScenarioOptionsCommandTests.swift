import Foundation
import SegmentsBenchCLI
import SegmentsBenchKit
import XCTest

/// The command line refuses an option the chosen scenario ignores, and records the ones it honours.
final class ScenarioOptionsCommandTests: XCTestCase {
    private var registry: ScenarioRegistry {
        var registry = ScenarioRegistry(builtIns: false)
        try! registry.register(StubScenario(name: "stub", honouredOptions: [.producers, .duration]))
        return registry
    }

    /// The exit status and message of running `arguments`, or nil when it succeeded.
    private func failure(_ arguments: [String], registry: ScenarioRegistry? = nil) -> (status: Int32, message: String)? {
        do {
            try SegmentsBenchCLI.run(arguments, registry: registry ?? self.registry)
            return nil
        } catch {
            return (SegmentsBenchCLI.exitStatus(for: error), SegmentsBenchCLI.message(for: error))
        }
    }

    func testAnOptionTheScenarioIgnoresIsAUsageError() throws {
        let refused = try XCTUnwrap(failure(["run", "stub", "--callbacks", "5", "--quick", "--out", scratch()]))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.message.contains("--callbacks is not an option of scenario 'stub'"), refused.message)
        XCTAssertTrue(refused.message.contains("stub accepts --producers, --duration, --threshold, --quick"), refused.message)
    }

    func testABuiltInScenarioRefusesWhatItsRunDoesNotRead() throws {
        let refused = try XCTUnwrap(
            failure(["run", "hot-path", "--transport", "http", "--seed", "2", "--out", scratch()], registry: ScenarioRegistry()))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.message.contains("--transport, --seed are not options of scenario 'hot-path'"), refused.message)
        XCTAssertTrue(refused.message.contains("hot-path accepts --threshold, --quick"), refused.message)
    }

    func testAnHonouredOptionIsAcceptedAndRecordedAlone() throws {
        let out = scratch()
        XCTAssertNil(failure(["run", "stub", "--producers", "3", "--quick", "--out", out]).map { "\($0)" })
        let report = try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("report.json")))
        XCTAssertEqual(report.scenarios.map(\.configuration), [["quick": "true", "producers": "3"]])
    }

    func testASpinWindowOutsideTheEnginesRangeIsAUsageError() throws {
        for value in ["0", "-1", "10.5", "nan"] {
            let refused = try XCTUnwrap(
                failure(["run", "peers", "--spin-window-ms=\(value)", "--quick", "--out", scratch()], registry: ScenarioRegistry()), value)
            XCTAssertEqual(refused.status, 64, value)
            XCTAssertTrue(refused.message.contains("--spin-window-ms must be more than 0 and at most 10 milliseconds"), refused.message)
        }
        // Only the scenarios that measure a spin window take one.
        let refused = try XCTUnwrap(failure(["run", "hot-path", "--spin-window-ms", "1", "--out", scratch()], registry: ScenarioRegistry()))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.message.contains("--spin-window-ms is not an option of scenario 'hot-path'"), refused.message)
    }

    func testTheSuiteRefusesAnOptionNoScenarioHonours() throws {
        let refused = try XCTUnwrap(failure(["suite", "--seed", "7", "--out", scratch()]))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.message.contains("no scenario of the suite honours --seed"), refused.message)
    }

    func testAnUnknownScenarioIsAUsageErrorNamingTheRegisteredOnes() throws {
        let refused = try XCTUnwrap(failure(["run", "nope", "--out", scratch()]))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.message.contains("unknown scenario 'nope'; known: stub"), refused.message)
        XCTAssertTrue(refused.message.contains("See 'segments-bench run --help'"), "the run command's usage: \(refused.message)")
    }

    private func scratch() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-options-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }
}
