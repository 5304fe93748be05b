import Foundation
import SegmentsBenchKit
import XCTest

/// Adding a field to the report or the baseline never breaks reading an older file, and a file
/// from a newer version with fields this one does not know still reads.
final class FormatCompatibilityTests: XCTestCase {
    /// The checkout's root, from this file's path.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func committed(_ path: String) throws -> Data {
        try Data(contentsOf: Self.root.appendingPathComponent(path))
    }

    func testTheCommittedBaselineWithoutToolVersionOrConfigurationReads() throws {
        let data = try committed("Reports/baseline.json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        // The file as committed before these fields existed (if it gains them, this test still
        // reads it, with them removed).
        var old = object.filter { $0.key != "toolVersion" && $0.key != "configuration" }
        if var machine = old["machine"] as? [String: Any] {
            machine.removeValue(forKey: "clock")
            old["machine"] = machine
        }
        let baseline = try Baseline.decode(JSONSerialization.data(withJSONObject: old))
        XCTAssertNil(baseline.toolVersion)
        XCTAssertNil(baseline.configuration)
        XCTAssertNil(baseline.machine.clock)
        XCTAssertEqual(baseline.figures.count, (object["figures"] as? [String: Any])?.count)
        XCTAssertEqual(baseline.figures["customer-switch.lostEvents"]?.gate, .zero)
    }

    func testABaselineWithUnknownFieldsReads() throws {
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: committed("Reports/baseline.json")) as? [String: Any])
        object["addedInAFutureVersion"] = ["anything": [1, 2, 3]]
        var machine = try XCTUnwrap(object["machine"] as? [String: Any])
        machine["gpu"] = "none"
        object["machine"] = machine
        var figures = try XCTUnwrap(object["figures"] as? [String: Any])
        var entry = try XCTUnwrap(figures["customer-switch.lostEvents"] as? [String: Any])
        entry["confidence"] = 0.99
        figures["customer-switch.lostEvents"] = entry
        object["figures"] = figures

        let baseline = try Baseline.decode(JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(baseline.figures["customer-switch.lostEvents"]?.value, 0)
        XCTAssertEqual(baseline.machine.cores, 2)
    }

    func testANewBaselineRoundTripsItsNewFields() throws {
        let report = BenchReport(
            machine: MachineInfo.current(), gitRevision: "t", startedAt: Date(), command: "t",
            scenarios: [ScenarioResult(scenario: "pull", summary: "", configuration: ["quick": "true"],
                                       figures: [Figure(name: "pull.failures", value: 0, unit: "count", gate: .zero, summary: "")],
                                       allocationsMeasured: true)])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Baseline(from: report).write(to: url)
        let loaded = try Baseline.load(from: url)
        XCTAssertEqual(loaded.toolVersion, ToolVersion.current)
        XCTAssertEqual(loaded.configuration, ["pull": ["quick": "true"]])
        XCTAssertNotNil(loaded.machine.clock)
    }

    /// `Tests/Fixtures/report-before-tool-version.json`: three scenarios of a report written
    /// before reports named the harness's version (the sample committed then, cut down).
    func testAReportFromBeforeTheToolVersionReads() throws {
        let report = try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: committed("Tests/Fixtures/report-before-tool-version.json"))
        XCTAssertFalse(report.scenarios.isEmpty)
        XCTAssertEqual(report.toolVersion, "unknown")
        // Its percentiles were written whatever the count; read back, the rule applies.
        for latency in report.scenarios.flatMap(\.latencies) {
            XCTAssertEqual(latency.p9999 != nil, latency.count >= 10_000, latency.name)
            XCTAssertEqual(latency.p999 != nil, latency.count >= 1_000, latency.name)
        }
    }

    func testAReportWithUnknownFieldsReads() throws {
        let report = BenchReport(
            machine: MachineInfo.current(), gitRevision: "t", startedAt: Date(), command: "t",
            scenarios: [ScenarioResult(scenario: "pull", summary: "", configuration: [:], allocationsMeasured: true)])
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: ReportWriter.makeJSONEncoder().encode(report)) as? [String: Any])
        object["instructionCounts"] = ["pull": 123]
        var scenarios = try XCTUnwrap(object["scenarios"] as? [[String: Any]])
        scenarios[0]["probe"] = "perf"
        object["scenarios"] = scenarios
        let decoded = try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(decoded.scenarios.map(\.scenario), ["pull"])
    }
}
