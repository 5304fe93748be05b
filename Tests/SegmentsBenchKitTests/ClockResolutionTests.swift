import Foundation
import XCTest

@testable import SegmentsBenchKit

/// The clock's resolution is recorded with the machine, and durations near it are marked.
final class ClockResolutionTests: XCTestCase {
    func testTheMeasurementIsAPositiveStepAndACost() {
        let clock = ClockResolution.measure(reads: 10_000)
        XCTAssertGreaterThan(clock.resolutionNs, 0)
        XCTAssertTrue(clock.readCostNs.isFinite)
        XCTAssertNotNil(MachineInfo.current().clock)
    }

    func testDurationsUnderTenStepsAreMarkedAndOthersAreNot() {
        let clock = ClockResolution(resolutionNs: 20, readCostNs: 25)
        XCTAssertTrue(clock.isNear(Figure(name: "a", value: 150, unit: "ns", summary: "")))
        XCTAssertFalse(clock.isNear(Figure(name: "b", value: 250, unit: "ns", summary: "")))
        XCTAssertTrue(clock.isNear(Figure(name: "c", value: 0.1, unit: "µs", summary: "")))
        XCTAssertFalse(clock.isNear(Figure(name: "d", value: 5, unit: "count", summary: "")), "not a duration")
    }

    func testReportsShowTheClockAndTheMark() throws {
        var machine = SyntheticReport.machine
        machine.clock = ClockResolution(resolutionNs: 20, readCostNs: 25)
        let report = BenchReport(
            machine: machine, gitRevision: "t", startedAt: Date(timeIntervalSince1970: 0), command: "t",
            scenarios: [ScenarioResult(
                scenario: "hot-path", summary: "", configuration: [:],
                figures: [Figure(name: "hot-path.reload.requestNs", value: 3, unit: "ns", summary: "request"),
                          Figure(name: "hot-path.decodeAndDiff.3x10Us", value: 4, unit: "µs", summary: "decode")],
                allocationsMeasured: true)])
        let files = try ReportWriter(directory: FileManager.default.temporaryDirectory).render(report)
        let markdown = String(decoding: try XCTUnwrap(files.first { $0.name == "summary.md" }).contents, as: UTF8.self)
        XCTAssertTrue(markdown.contains("| Clock | resolution 20 ns, 25 ns per read"), markdown)
        let lines = markdown.split(separator: "\n")
        XCTAssertTrue(try XCTUnwrap(lines.first { $0.contains("hot-path.reload.requestNs") }).contains("3 ns ‡"))
        XCTAssertFalse(try XCTUnwrap(lines.first { $0.contains("hot-path.decodeAndDiff.3x10Us") }).contains("‡"))
        XCTAssertTrue(ConsoleSummary.render(report).contains("clock: resolution 20 ns"))
    }
}
