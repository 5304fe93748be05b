import Foundation
import XCTest

@testable import SegmentsBenchKit

/// A percentile is reported only when the distribution has the samples to hold it.
final class LatencyPercentileSupportTests: XCTestCase {
    private func summary(count: Int) -> LatencySummary {
        var recorder = LatencyRecorder()
        for value in 1...max(count, 1) where count > 0 { recorder.record(UInt64(value) * 1_000) }
        return recorder.summary("call", definition: "test")
    }

    func testTheMinimumCountsAreTheOnesThePercentilesNeed() {
        XCTAssertEqual(LatencySummary.minimumCount(forPercentile: 90), 10)
        XCTAssertEqual(LatencySummary.minimumCount(forPercentile: 99), 100)
        XCTAssertEqual(LatencySummary.minimumCount(forPercentile: 99.9), 1_000)
        XCTAssertEqual(LatencySummary.minimumCount(forPercentile: 99.99), 10_000)
    }

    func testTwentySamplesGiveP50AndP90Only() {
        let latency = summary(count: 20)
        XCTAssertNotNil(latency.p90)
        XCTAssertNil(latency.p99)
        XCTAssertNil(latency.p999)
        XCTAssertNil(latency.p9999)
        XCTAssertEqual(latency.max, latency.histogram.max)
    }

    func testEachPercentileAppearsAtItsCount() {
        XCTAssertNil(summary(count: 99).p99)
        XCTAssertNotNil(summary(count: 100).p99)
        XCTAssertNil(summary(count: 999).p999)
        XCTAssertNotNil(summary(count: 1_000).p999)
        XCTAssertNil(summary(count: 9_999).p9999)
        XCTAssertNotNil(summary(count: 10_000).p9999)
    }

    func testAnOmittedPercentileIsAbsentFromJSON() throws {
        let data = try ReportWriter.makeJSONEncoder().encode(summary(count: 20))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertNotNil(object["p90"])
        XCTAssertNil(object["p99"])
        XCTAssertNil(object["p999"])
        XCTAssertNil(object["p9999"])
        let decoded = try ReportWriter.makeJSONDecoder().decode(LatencySummary.self, from: data)
        XCTAssertNil(decoded.p999)
        XCTAssertEqual(decoded.count, 20)
    }

    func testAnOldFileWithUnsupportedPercentilesReadsWithoutThem() throws {
        let json = """
            {"name": "fetch", "definition": "d", "count": 2, "p50": 100, "p90": 200, "p99": 200, "p999": 200, "p9999": 200,
             "max": 200, "mean": 150, "coordinatedOmissionCorrected": false, "recorded": [{"value": 100, "count": 1}, {"value": 200, "count": 1}]}
            """
        let decoded = try JSONDecoder().decode(LatencySummary.self, from: Data(json.utf8))
        XCTAssertEqual(decoded.p50, 100)
        XCTAssertNil(decoded.p90)
        XCTAssertNil(decoded.p9999)
        XCTAssertEqual(decoded.max, 200)
    }

    private func report(with latency: LatencySummary) -> BenchReport {
        BenchReport(
            machine: SyntheticReport.machine, gitRevision: "t", startedAt: Date(timeIntervalSince1970: 0), command: "t",
            scenarios: [ScenarioResult(scenario: "pull", summary: "", configuration: [:], latencies: [latency], allocationsMeasured: true)])
    }

    func testMarkdownHTMLAndConsoleShowADashForAnOmittedPercentile() throws {
        let report = report(with: summary(count: 20))
        let files = try ReportWriter(directory: FileManager.default.temporaryDirectory).render(report)
        let markdown = String(decoding: try XCTUnwrap(files.first { $0.name == "summary.md" }).contents, as: UTF8.self)
        let row = try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("| call |") })
        // Latency, count, p50, p90, p99, p99.9, p99.99, max.
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(cells.count, 8, String(row))
        XCTAssertEqual(cells[1], "20")
        XCTAssertEqual(Array(cells[4...6]), ["—", "—", "—"], String(row))
        XCTAssertFalse([cells[2], cells[3], cells[7]].contains("—"), String(row))
        XCTAssertTrue(markdown.contains(ReportFormat.omittedPercentileNote))

        let html = String(decoding: try XCTUnwrap(files.first { $0.name == "index.html" }).contents, as: UTF8.self)
        XCTAssertEqual(html.components(separatedBy: "<td class=\"num\">—</td>").count - 1, 3)

        let console = ConsoleSummary.render(report)
        XCTAssertTrue(console.contains("p99.99 — (n=20)"), console)
    }

    func testAFullDistributionShowsNoDash() throws {
        let report = report(with: summary(count: 10_000))
        let files = try ReportWriter(directory: FileManager.default.temporaryDirectory).render(report)
        let markdown = String(decoding: try XCTUnwrap(files.first { $0.name == "summary.md" }).contents, as: UTF8.self)
        XCTAssertFalse(markdown.contains(ReportFormat.omittedPercentileNote))
    }
}
