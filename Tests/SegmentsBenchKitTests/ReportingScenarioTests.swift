import Foundation
@testable import SegmentsBenchKit
import XCTest

final class ReportingScenarioTests: XCTestCase {
    /// One quick run with tiny sizes, shared by every test.
    private static let quickRun: Result<ScenarioResult, any Error> = Result {
        var options = BenchOptions()
        options.quick = true
        options.producers = 2
        options.duration = 0.2
        return try ReportingScenario(persistedVisitors: 20).run(options, progress: Progress(enabled: false))
    }

    private func result() throws -> ScenarioResult { try Self.quickRun.get() }

    func testTheScenarioIsInTheCatalog() {
        XCTAssertNotNil(ScenarioRegistry().named("reporting"))
    }

    func testNoUpdateIsLostAndEveryCallPublishesOneEvent() throws {
        let result = try result()
        XCTAssertEqual(result.figure("reporting.lostUpdates")?.value, 0)
        XCTAssertEqual(result.figure("reporting.eventsMinusSetters")?.value, 0)
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("reporting.setterCalls")).value, 0)
    }

    func testEveryPersistedVisitorIsRestored() throws {
        let result = try result()
        XCTAssertEqual(result.figure("reporting.restoreMismatches")?.value, 0)
        XCTAssertEqual(result.figure("reporting.persistedFiles")?.value, 20)
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("reporting.persistedBytes")).value, 0)
    }

    func testCorrectnessFiguresAreGatedAtZero() throws {
        let result = try result()
        for name in ["reporting.lostUpdates", "reporting.eventsMinusSetters", "reporting.restoreMismatches"] {
            XCTAssertEqual(result.figure(name)?.gate, .zero, name)
        }
    }

    func testSetterLatencyIsRecorded() throws {
        let result = try result()
        XCTAssertEqual(result.latencies.count, 1)
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("reporting.setterP50")).value, 0)
        // p99 is a figure only when the calls are enough to hold it (100 or more).
        XCTAssertEqual(result.figure("reporting.setterP99") != nil, result.latencies[0].count >= 100)
        // `compare` judges each percentile once, under the figure's name.
        var samples = FigureSamples()
        let report = BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(), command: "test", scenarios: [result])
        samples.add(report, scenario: result.scenario, side: .baseline)
        samples.add(report, scenario: result.scenario, side: .candidate)
        let compared = try samples.validated().compared.map(\.name)
        XCTAssertTrue(compared.contains("reporting.setterP50"), "\(compared)")
        XCTAssertFalse(compared.contains("reporting.setter p50"), "\(compared)")
        XCTAssertFalse(compared.contains("reporting.setter p99"), "\(compared)")
    }
}
