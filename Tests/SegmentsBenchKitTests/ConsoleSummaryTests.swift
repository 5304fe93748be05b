import Foundation
import XCTest

@testable import SegmentsBenchKit

final class ConsoleSummaryTests: XCTestCase {
    /// Every figure is printed under its whole name, however long: a cut name can be read as
    /// another figure's (`…producers1.uploadedEven`).
    func testLongFigureNamesArePrintedWhole() throws {
        let long = "tracking-storm.producerSweep.producers1.uploadedEventsPerSecond"
        let short = "tracking-storm.lostEvents"
        let report = BenchReport(
            machine: SyntheticReport.machine, gitRevision: "t", startedAt: Date(timeIntervalSince1970: 0), command: "t",
            scenarios: [ScenarioResult(
                scenario: "tracking-storm", summary: "", configuration: [:],
                figures: [Figure(name: long, value: 1_000, unit: "ops/s", summary: "rate"),
                          Figure(name: short, value: 0, unit: "count", gate: .zero, summary: "lost")],
                allocationsMeasured: true)])
        let lines = ConsoleSummary.render(report).split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains(long + " ") }, lines.joined(separator: "\n"))
        let shortLine = String(try XCTUnwrap(lines.first { $0.contains(short) }))
        let longLine = String(try XCTUnwrap(lines.first { $0.contains(long) }))
        XCTAssertEqual(shortLine.firstRange(of: "0")?.lowerBound.utf16Offset(in: shortLine),
                       longLine.firstRange(of: "1,000")?.lowerBound.utf16Offset(in: longLine),
                       "values start in one column:\n\(shortLine)\n\(longLine)")
    }
}
