import Foundation
import SegmentsBenchKit
import XCTest

/// What `segments-bench ci --json` prints: one JSON document with the report and the gate's verdict.
final class GatedReportTests: XCTestCase {
    private let figures = [
        Figure(name: "tracking-storm.allocsPerEvent", value: 0.02, unit: "allocs/op", gate: .allocations, summary: ""),
        Figure(name: "tracking-storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: ""),
        Figure(name: "tracking-storm.ratio", value: .nan, unit: "ratio", summary: "not computed"),
    ]

    private func report(_ figures: [Figure]) -> BenchReport {
        BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(timeIntervalSince1970: 1_750_000_000),
            command: "segments-bench ci --json",
            scenarios: [ScenarioResult(scenario: "tracking-storm", summary: "", configuration: [:], figures: figures,
                                       allocationsMeasured: true)])
    }

    func testTheOutputIsOneJSONObjectHoldingTheReportAndTheGate() throws {
        let report = report(Array(figures.prefix(2)))
        let check = GateCheck(report: report, baseline: Baseline(from: report))
        let text = try GatedReport(report: report, check: check).jsonText()

        // One document: the whole text parses as a single object (two documents in a row do not).
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["report", "gate"])
        let gate = try XCTUnwrap(object["gate"] as? [String: Any])
        XCTAssertEqual(Set(gate.keys), ["passed", "exitCode", "verdict", "rows", "warnings", "harnessErrors"])
        XCTAssertEqual(gate["passed"] as? Bool, true)
        XCTAssertEqual(gate["exitCode"] as? Int, 0)
    }

    func testTheDocumentDecodesToTheSameReportAndRows() throws {
        var regressed = figures
        regressed[1].value = 2
        let baseline = Baseline(from: report(figures))
        let report = report(regressed)
        let check = GateCheck(report: report, baseline: baseline)
        XCTAssertFalse(check.passed)

        let text = try GatedReport(report: report, check: check).jsonText()
        let decoded = try ReportWriter.makeJSONDecoder().decode(GatedReport.self, from: Data(text.utf8))
        let decodedReport = try XCTUnwrap(decoded.report)
        XCTAssertEqual(decodedReport.command, "segments-bench ci --json")
        XCTAssertEqual(decodedReport.figures.map(\.name), report.figures.map(\.name))
        XCTAssertTrue(decodedReport.figures[2].value.isNaN, "a non-finite figure is written, not an encoding error")
        XCTAssertFalse(decoded.gate.passed)
        XCTAssertEqual(decoded.gate.rows.map(\.name), check.rows.map(\.name))
        XCTAssertEqual(decoded.gate.rows.map(\.verdict), check.rows.map(\.verdict))
        XCTAssertEqual(decoded.gate.rows.first { $0.name == "tracking-storm.lostEvents" }?.verdict, .violated)
        // The reported ratio is NaN: a harness error, which wins over the violation.
        XCTAssertEqual(decoded.gate.exitCode, ExitStatus.harnessError.rawValue)
    }
}
