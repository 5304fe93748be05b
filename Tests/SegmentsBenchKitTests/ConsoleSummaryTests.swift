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

    /// `run hot-path` printed none of its headline figures (ns per request, diff ns per segment):
    /// ungated, they were left to the report. One scenario's console shows every figure; a suite's
    /// keeps to the gated ones and rates.
    func testOneScenarioShowsEveryFigureASuiteTheGatedOnes() {
        func scenario(_ name: String) -> ScenarioResult {
            ScenarioResult(
                scenario: name, summary: "", configuration: [:],
                figures: [Figure(name: "\(name).nsPerRequest", value: 12, unit: "ns", summary: "headline"),
                          Figure(name: "\(name).lostEvents", value: 0, unit: "count", gate: .zero, summary: "lost")],
                allocationsMeasured: true)
        }
        func report(_ scenarios: [ScenarioResult]) -> String {
            ConsoleSummary.render(BenchReport(
                machine: SyntheticReport.machine, gitRevision: "t", startedAt: Date(timeIntervalSince1970: 0), command: "t",
                scenarios: scenarios))
        }
        let one = report([scenario("hot-path")])
        XCTAssertTrue(one.contains("hot-path.nsPerRequest"), one)
        let suite = report([scenario("hot-path"), scenario("pull")])
        XCTAssertFalse(suite.contains("nsPerRequest"), suite)
        XCTAssertTrue(suite.contains("pull.lostEvents"), suite)
    }
}
