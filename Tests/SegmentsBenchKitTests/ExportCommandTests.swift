import Foundation
@testable import SegmentsBenchCLI
@testable import SegmentsBenchKit
import XCTest

/// `segments-bench export`: writes the format asked for, and refuses what it cannot do with the
/// command line's statuses (64 usage, 70 an unreadable report) without touching the report.
final class ExportCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        let report = BenchReport(
            machine: MachineInfo(hostname: "ci", cores: 2, memoryBytes: 1, cpuModel: "c", kernel: "k", swiftVersion: "6",
                                 loadAverage: "0", jemalloc: "unavailable"),
            gitRevision: "abc", startedAt: Date(timeIntervalSince1970: 1_795_953_600), command: "test",
            scenarios: [ScenarioResult(
                scenario: "pull", summary: "s", configuration: [:],
                figures: [Figure(name: "pull.requestsPerMiss", value: 0.5, unit: "ratio", gate: .atMost(1), summary: "r")],
                latencies: [], allocationsMeasured: false)])
        try ReportWriter(directory: directory).write(report)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var reportJSON: URL { directory.appendingPathComponent("report.json") }

    func testItWritesTheFormatAskedForFromAReportDirectory() throws {
        let out = directory.appendingPathComponent("figures.influx")
        XCTAssertNil(commandFailure(["export", "--report", directory.path, "--format", "influx", "--out", out.path], registry: ScenarioRegistry()))
        let report = try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: Data(contentsOf: reportJSON))
        XCTAssertEqual(try String(contentsOf: out, encoding: .utf8), try ExportFormat.influx.render(report).text)
        XCTAssertTrue(try String(contentsOf: out, encoding: .utf8).hasPrefix("segments_bench_figure,scenario=pull,figure=pull.requestsPerMiss"))
    }

    func testAReportThatCannotBeReadIsAHarnessError() {
        let out = directory.appendingPathComponent("out.csv")
        let failure = commandFailure(
            ["export", "--report", directory.appendingPathComponent("missing").path, "--format", "csv", "--out", out.path],
            registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 70)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing is written for a report not read")
    }

    func testAnOutThatIsTheReportOrCannotBeWrittenIsAUsageError() throws {
        let before = try Data(contentsOf: reportJSON)
        var failure = commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", reportJSON.path], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("is the report itself") ?? false, failure?.message ?? "")
        XCTAssertEqual(try Data(contentsOf: reportJSON), before, "the report is untouched")

        let nowhere = directory.appendingPathComponent("no/such/dir/out.csv").path
        failure = commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", nowhere], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("cannot be written") ?? false, failure?.message ?? "")
    }

    func testAnUnknownOrMissingFormatIsAUsageErrorNamingTheFormats() {
        var failure = commandFailure(["export", "--report", directory.path, "--format", "xml"], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("json-smaller-is-better") ?? false, failure?.message ?? "")
        failure = commandFailure(["export", "--report", directory.path], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("--format") ?? false, failure?.message ?? "")
    }
}
