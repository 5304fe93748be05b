import Foundation
import Histogram
@testable import SegmentsBenchKit
import XCTest

/// A latency recorded by interval gets its `.hlog` and its two time-series charts in the report.
final class ReportIntervalFilesTests: XCTestCase {
    private func report() -> BenchReport {
        var recorder = IntervalLatencyRecorder(origin: 0, expectedIntervals: 3)
        for index in 0..<600 { recorder.record(UInt64(1_000 + index), at: UInt64(index / 200) * 1_000_000_000) }
        let recorded = recorder.finish(startTime: 1_700_000_000).summary("trackEvent call", definition: "d", corrected: true)
        var plain = LatencyRecorder()
        plain.record(5)
        return BenchReport(
            machine: MachineInfo(hostname: "ci", cores: 2, memoryBytes: 1, cpuModel: "c", kernel: "k", swiftVersion: "6",
                                 loadAverage: "0", jemalloc: "unavailable"),
            gitRevision: "abc", startedAt: Date(timeIntervalSince1970: 1_700_000_000), command: "test",
            scenarios: [ScenarioResult(
                scenario: "tracking-storm", summary: "s", configuration: [:],
                latencies: [recorded, plain.summary("floor", definition: "f")], allocationsMeasured: false)])
    }

    func testTheReportWritesTheIntervalLogAndTheTimeSeries() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try ReportWriter(directory: directory).write(report()).map(\.lastPathComponent)
        XCTAssertTrue(written.contains("tracking-storm.trackevent-call.hlog"), "\(written)")
        XCTAssertTrue(written.contains("tracking-storm.trackevent-call.throughput.svg"))
        XCTAssertTrue(written.contains("tracking-storm.trackevent-call.over-time.svg"))
        XCTAssertFalse(written.contains { $0.hasPrefix("tracking-storm.floor.") && $0.hasSuffix(".hlog") }, "no intervals, no log")

        let hlog = try String(contentsOf: directory.appendingPathComponent("tracking-storm.trackevent-call.hlog"), encoding: .utf8)
        let lines = hlog.split(separator: "\n").filter { $0.hasPrefix("Tag=") }
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(try lines.map { try HistogramEncoding.decode(base64: $0.split(separator: ",").last!).totalCount }, [200, 200, 200])

        let html = try String(contentsOf: directory.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("tracking-storm.trackevent-call.over-time.svg"))
        XCTAssertTrue(html.contains("href=\"tracking-storm.trackevent-call.hlog\""))
        let markdown = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("(tracking-storm.trackevent-call.throughput.svg)"))
        let svg = try String(contentsOf: directory.appendingPathComponent("tracking-storm.trackevent-call.over-time.svg"), encoding: .utf8)
        XCTAssertTrue(svg.contains("p99"))

        // The same report again gives the same bytes (deterministic output).
        let first = try Data(contentsOf: directory.appendingPathComponent("tracking-storm.trackevent-call.hlog"))
        try ReportWriter(directory: directory).write(report())
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("tracking-storm.trackevent-call.hlog")), first)
    }
}
