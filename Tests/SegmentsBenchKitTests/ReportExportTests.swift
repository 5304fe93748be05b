import Foundation
@testable import SegmentsBenchKit
import XCTest

/// `segments-bench export`'s formats: each writes every figure and latency statistic of a report
/// under the names its files use, escapes what its readers would misread, and names what it leaves out.
final class ReportExportTests: XCTestCase {
    /// 2026-11-29T12:00:00Z.
    private let start = Date(timeIntervalSince1970: 1_795_953_600)

    private func report(figures: [Figure], latencies: [LatencySummary] = [], host: String = "ci", startedAt: Date? = nil) -> BenchReport {
        BenchReport(
            machine: MachineInfo(hostname: host, cores: 2, memoryBytes: 1, cpuModel: "EPYC", kernel: "k", swiftVersion: "6",
                                 loadAverage: "0", jemalloc: "unavailable"),
            gitRevision: "abc123", startedAt: startedAt ?? start, command: "test",
            scenarios: [ScenarioResult(scenario: "pull", summary: "s", configuration: [:], figures: figures, latencies: latencies,
                                       allocationsMeasured: false)],
            toolVersion: "1.0")
    }

    /// 100 samples of 1…100 µs: p50, p90 and p99 supported, p99.9 not.
    private func hundredSamples(_ name: String = "cache hit") -> LatencySummary {
        var recorder = LatencyRecorder()
        for value in 1...100 { recorder.record(UInt64(value) * 1_000) }
        return recorder.summary(name, definition: "d")
    }

    private let ratio = Figure(name: "pull.requestsPerMiss", value: 0.5, unit: "ratio", gate: .atMost(1), summary: "r")
    private let rate = Figure(name: "pull.hitsPerSecond", value: 2_500_000, unit: "ops/s", summary: "h")
    private let count = Figure(name: "pull.switches", value: 7, unit: "count", summary: "no direction")

    private func render(_ format: ExportFormat, _ report: BenchReport) throws -> ExportedReport {
        try format.render(report)
    }

    // MARK: influx

    func testInfluxWritesAPointPerFigureAndPerLatencyStampedWithTheRunsStart() throws {
        let latency = hundredSamples()
        let exported = try render(.influx, report(figures: [ratio], latencies: [latency]))
        let lines = exported.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(
            lines[0],
            #"segments_bench_figure,scenario=pull,figure=pull.requestsPerMiss,unit=ratio,host=ci value=0.5,git_revision="abc123" 1795953600000000000"#)
        XCTAssertEqual(
            lines[1],
            "segments_bench_latency,scenario=pull,latency=cache-hit,host=ci count=100i,min_ns=\(latency.histogram.min)i,"
                + "p50_ns=\(latency.p50)i,p90_ns=\(latency.p90!)i,p99_ns=\(latency.p99!)i,max_ns=\(latency.max)i,"
                + #"mean_ns=\#(latency.mean),git_revision="abc123" 1795953600000000000"#)
        XCTAssertFalse(lines[1].contains("p99_9_ns"), "100 samples do not hold a p99.9")
        XCTAssertEqual(exported.leftOut, [])
    }

    func testInfluxLeavesOutWhatLineProtocolCannotHoldAndSaysSo() throws {
        let exported = try render(.influx, report(figures: [Figure(name: "pull.x", value: .nan, unit: "ns", summary: "x"), ratio]))
        XCTAssertEqual(exported.text.split(separator: "\n").count, 1)
        XCTAssertEqual(exported.leftOut, ["pull.x: its value is nan, which line protocol cannot write"])
    }

    func testInfluxEscapesTagsAndStringsSoAReaderSplitsThemWhereMeant() throws {
        var odd = ratio
        odd.name = "pull.a,b=c d\\"
        var exported = try render(.influx, report(figures: [odd], host: "my host\n2"))
        XCTAssertTrue(
            exported.text.hasPrefix(#"segments_bench_figure,scenario=pull,figure=pull.a\,b\=c\ d/,unit=ratio,host=my\ host\ 2 value=0.5,"#),
            exported.text)
        var quoted = report(figures: [ratio])
        quoted.gitRevision = #"a"b\c"#
        exported = try render(.influx, quoted)
        XCTAssertTrue(exported.text.contains(#"git_revision="a\"b\\c""#), exported.text)
    }

    func testInfluxPointsHaveNoTimestampWhenTheStartDoesNotReadAsADate() throws {
        var undated = report(figures: [ratio])
        undated.startedAt = ""
        let line = try render(.influx, undated).text
        XCTAssertTrue(line.hasSuffix(#"git_revision="abc123""# + "\n"), line)
    }

    func testALatencyWithoutSamplesIsWrittenAsItsCountAlone() throws {
        let empty = LatencyRecorder().summary("miss", definition: "d")
        let influx = try render(.influx, report(figures: [], latencies: [empty])).text
        XCTAssertEqual(influx, #"segments_bench_latency,scenario=pull,latency=miss,host=ci count=0i,git_revision="abc123" 1795953600000000000"# + "\n")
        let prometheus = try render(.prometheus, report(figures: [], latencies: [empty])).text
        XCTAssertTrue(prometheus.contains(#"segments_bench_report_latency_seconds_count{scenario="pull",latency="miss"} 0.0"#))
        XCTAssertFalse(prometheus.contains(#"quantile="#))
        XCTAssertFalse(prometheus.contains(#"segments_bench_report_latency_max_seconds{"#))
    }

    // MARK: prometheus

    func testPrometheusWritesFiguresAsAGaugeAndLatenciesAsASummaryInSeconds() throws {
        let latency = hundredSamples()
        let text = try render(.prometheus, report(figures: [ratio, Figure(name: "pull.y", value: .infinity, unit: "ns", summary: "y")],
                                                  latencies: [latency])).text
        let lines = Set(text.split(separator: "\n").map(String.init))
        let expected = [
            "# TYPE segments_bench_report_figure gauge",
            #"segments_bench_report_figure{scenario="pull",figure="pull.requestsPerMiss",unit="ratio"} 0.5"#,
            #"segments_bench_report_figure{scenario="pull",figure="pull.y",unit="ns"} +Inf"#,
            "# TYPE segments_bench_report_latency_seconds summary",
            #"segments_bench_report_latency_seconds{scenario="pull",latency="cache-hit",quantile="0.5"} \#(Double(latency.p50) / 1e9)"#,
            #"segments_bench_report_latency_seconds{scenario="pull",latency="cache-hit",quantile="0.99"} \#(Double(latency.p99!) / 1e9)"#,
            #"segments_bench_report_latency_seconds_sum{scenario="pull",latency="cache-hit"} \#(latency.mean * 100 / 1e9)"#,
            #"segments_bench_report_latency_seconds_count{scenario="pull",latency="cache-hit"} 100.0"#,
            #"segments_bench_report_latency_max_seconds{scenario="pull",latency="cache-hit"} \#(Double(latency.max) / 1e9)"#,
            #"segments_bench_report_info{git_revision="abc123",tool_version="1.0",host="ci",cpu_model="EPYC"} 1.0"#,
            "segments_bench_report_start_time_seconds 1795953600.0",
        ]
        for line in expected { XCTAssertTrue(lines.contains(line), "missing: \(line)\n\(text)") }
        XCTAssertFalse(text.contains(#"quantile="0.999""#), "100 samples do not hold a p99.9")
        XCTAssertFalse(text.contains(#"latency="cache-hit",quantile="1"#), "the max is not a quantile")
    }

    func testPrometheusEscapesLabelValuesAndWritesNotANumber() throws {
        var odd = ratio
        odd.name = "pull.\"q\"\\\nx"
        odd.value = .nan
        let text = try render(.prometheus, report(figures: [odd])).text
        XCTAssertTrue(text.contains(#"figure="pull.\"q\"\\\nx",unit="ratio"} NaN"#), text)
    }

    // MARK: csv

    func testCSVWritesARowPerFigureAndPerLatencyStatisticWithItsRun() throws {
        let latency = hundredSamples()
        let rows = try render(.csv, report(figures: [ratio, rate, count], latencies: [latency])).text.split(separator: "\n").map(String.init)
        let run = "2026-11-29T12:00:00Z,abc123,ci,pull"
        XCTAssertEqual(Array(rows.prefix(6)), [
            "started_at,git_revision,host,scenario,kind,name,statistic,value,unit,better",
            "\(run),figure,pull.requestsPerMiss,value,0.5,ratio,lower",
            "\(run),figure,pull.hitsPerSecond,value,2500000,ops/s,higher",
            "\(run),figure,pull.switches,value,7,count,",
            "\(run),latency,cache-hit,count,100,count,",
            "\(run),latency,cache-hit,min,\(latency.histogram.min),ns,lower",
        ])
        XCTAssertEqual(rows.dropFirst(4).map { $0.split(separator: ",")[6] }, ["count", "min", "p50", "p90", "p99", "max", "mean"])
    }

    func testCSVQuotesFieldsThatHoldSeparatorsAndWritesNonNumbers() throws {
        var odd = ratio
        odd.name = #"pull.a,"b""#
        odd.value = -.infinity
        let text = try render(.csv, report(figures: [odd])).text
        XCTAssertTrue(text.contains(#",figure,"pull.a,""b""",value,-inf,ratio,lower"#), text)
    }

    // MARK: github-action-benchmark

    private struct Entry: Decodable, Equatable {
        var name: String
        var unit: String
        var value: Double
        var extra: String
    }

    private func entries(_ format: ExportFormat, _ report: BenchReport) throws -> (entries: [Entry], leftOut: [String]) {
        let exported = try render(format, report)
        return (try JSONDecoder().decode([Entry].self, from: Data(exported.text.utf8)), exported.leftOut)
    }

    func testTheSmallerFileHoldsEveryLatencyStatisticAndTheFiguresBetterLower() throws {
        let latency = hundredSamples()
        let exported = try entries(.jsonSmallerIsBetter, report(figures: [ratio, rate, count], latencies: [latency]))
        XCTAssertEqual(exported.entries.map(\.name), [
            "pull.cache-hit min", "pull.cache-hit p50", "pull.cache-hit p90", "pull.cache-hit p99", "pull.cache-hit max",
            "pull.cache-hit mean", "pull.requestsPerMiss",
        ])
        XCTAssertEqual(exported.entries[1].value, Double(latency.p50))
        XCTAssertEqual(exported.entries[1].unit, "ns")
        XCTAssertTrue(exported.entries[1].extra.hasPrefix("100 samples; git abc123 on ci"), exported.entries[1].extra)
        XCTAssertEqual(exported.entries.last, Entry(name: "pull.requestsPerMiss", unit: "ratio", value: 0.5,
                                                     extra: "git abc123 on ci, started 2026-11-29T12:00:00Z"))
    }

    func testTheBiggerFileHoldsTheFiguresBetterHigherAndNamesWhatItLeavesOut() throws {
        let lost = Figure(name: "pull.lostEvents", value: 0, unit: "count", gate: .zero, summary: "lost")
        let expectedOne = Figure(name: "pull.checksAfterUploads", value: 1, unit: "count", gate: .mustEqual(1), summary: "one")
        let broken = Figure(name: "pull.missesPerSecond", value: .nan, unit: "ops/s", summary: "m")
        var exported = try entries(.jsonBiggerIsBetter, report(figures: [ratio, rate, count, lost, expectedOne, broken], latencies: [hundredSamples()]))
        XCTAssertEqual(exported.entries.map(\.name), ["pull.hitsPerSecond"])
        XCTAssertEqual(exported.leftOut, ["pull.missesPerSecond: its value is nan, which JSON cannot write"])
        exported = try entries(.jsonSmallerIsBetter, report(figures: [ratio, rate, count, lost, expectedOne]))
        XCTAssertEqual(exported.entries.map(\.name), ["pull.requestsPerMiss", "pull.lostEvents"],
                       "a count that must be zero is better lower; one that must be 1, and a count that says nothing, go nowhere")
    }

    // MARK: every format

    func testASecondFigureOrLatencyUnderATakenNameIsLeftOutInEveryFormat() throws {
        var second = ratio
        second.value = 12_345.678
        let twice = report(figures: [ratio, second], latencies: [hundredSamples("cache hit"), hundredSamples("cache-hit")])
        for format in ExportFormat.allCases {
            let exported = try render(format, twice)
            XCTAssertEqual(exported.leftOut, ["pull: a second figure named pull.requestsPerMiss",
                                              "pull: a second latency named cache-hit (cache-hit)"], "\(format)")
            XCTAssertFalse(exported.text.contains("12345.678"), "\(format) wrote the second figure:\n\(exported.text)")
        }
    }
}
