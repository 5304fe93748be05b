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
        XCTAssertEqual(exported.notes, [])
    }

    func testInfluxLeavesOutWhatLineProtocolCannotHoldAndSaysSo() throws {
        let exported = try render(.influx, report(figures: [Figure(name: "pull.x", value: .nan, unit: "ns", summary: "x"), ratio]))
        XCTAssertEqual(exported.text.split(separator: "\n").count, 1)
        XCTAssertEqual(exported.notes, ["left out pull.x: its value is nan, which line protocol cannot write"])
    }

    func testInfluxEscapesTagsAndStringsSoAReaderSplitsThemWhereMeant() throws {
        var odd = ratio
        odd.name = #"pull.a,b=c d\e"#
        var exported = try render(.influx, report(figures: [odd]))
        XCTAssertTrue(
            exported.text.hasPrefix(#"segments_bench_figure,scenario=pull,figure=pull.a\,b\=c\ d\e,unit=ratio,host=ci value=0.5,"#),
            exported.text)
        XCTAssertEqual(exported.notes, [], "a backslash before a letter is read as itself")
        var quoted = report(figures: [ratio])
        quoted.gitRevision = #"a"b\c"#
        exported = try render(.influx, quoted)
        XCTAssertTrue(exported.text.contains(#"git_revision="a\"b\\c""#), exported.text)
    }

    /// A separator or quote followed by a combining mark is one `Character` but still the scalar a
    /// reader splits at (the unescaped `host=a,\u{301}b` a review found).
    func testEscapingGoesByScalarsSoACombiningMarkHidesNoSeparator() throws {
        var marked = report(figures: [ratio], host: "a,\u{301}b")
        marked.gitRevision = "x\"\u{301}y"
        let influx = try render(.influx, marked).text
        XCTAssertTrue(influx.contains("host=a\\,\u{301}b "), influx)
        XCTAssertTrue(influx.contains("git_revision=\"x\\\"\u{301}y\""), influx)
        let csv = try render(.csv, marked).text.split(separator: "\n")[1]
        XCTAssertTrue(csv.hasPrefix("2026-11-29T12:00:00Z,\"x\"\"\u{301}y\",\"a,\u{301}b\",pull,"), String(csv))
    }

    func testInfluxRewritesWhatItCannotCarryAndSaysSo() throws {
        var odd = ratio
        odd.name = "pull.x\\"
        let exported = try render(.influx, report(figures: [odd], host: "my host\n2"))
        XCTAssertTrue(exported.text.hasPrefix(#"segments_bench_figure,scenario=pull,figure=pull.x/,unit=ratio,host=my\ host\ 2 "#), exported.text)
        XCTAssertEqual(exported.notes, [
            "wrote the tag 'my host\n2' as 'my host 2': line protocol cannot carry a control character, or a backslash before a separator or at the end",
            #"wrote the tag 'pull.x\' as 'pull.x/': line protocol cannot carry a control character, or a backslash before a separator or at the end"#,
        ])
    }

    /// Rewritten, `pull.x\` is `pull.x/`: the server would keep one of the two points.
    func testANameRewrittenIntoAnothersSeriesIsLeftOut() throws {
        var rewritten = ratio
        rewritten.name = "pull.x\\"
        var other = ratio
        other.name = "pull.x/"
        other.value = 2
        let exported = try render(.influx, report(figures: [other, rewritten]))
        XCTAssertEqual(exported.text.split(separator: "\n").count, 1)
        XCTAssertTrue(exported.text.contains(" value=2.0,"), exported.text)
        XCTAssertTrue(exported.notes.contains(#"left out pull.x\ in pull: once rewritten, its series is another value's"#), "\(exported.notes)")
    }

    /// Readers compare names by their bytes: é and e + U+0301 are two names, both written.
    func testNamesThatReadAlikeButDifferInBytesAreBothWritten() throws {
        var composed = ratio
        composed.name = "pull.caf\u{E9}"
        var decomposed = ratio
        decomposed.name = "pull.cafe\u{301}"
        for format in ExportFormat.allCases where format != .jsonBiggerIsBetter {
            let exported = try render(format, report(figures: [composed, decomposed]))
            XCTAssertEqual(exported.notes.filter { $0.contains("second") }, [], "\(format)")
        }
    }

    func testAStartPastWhatLineProtocolStampsIsStillTheRunsStartForPrometheus() throws {
        var late = report(figures: [ratio])
        late.startedAt = "2300-01-01T00:00:00Z"
        let influx = try render(.influx, late)
        XCTAssertTrue(influx.text.hasSuffix(#"git_revision="abc123""# + "\n"), influx.text)
        XCTAssertEqual(influx.notes, [
            "left out the timestamps: the report's start 2300-01-01T00:00:00Z is outside the times line protocol stamps (1677 to 2262), so the server stamps the points",
        ])
        let prometheus = try render(.prometheus, late)
        XCTAssertTrue(prometheus.text.contains("segments_bench_report_start_time_seconds 10413792000.0"), prometheus.text)
        XCTAssertEqual(prometheus.notes, [])
    }

    func testALatencyPastLineProtocolsIntegersIsLeftOutNotATrap() throws {
        let json = #"{"name":"huge","definition":"d","count":1,"p50":18446744073709551615,"max":18446744073709551615,"mean":1.8e19,"coordinatedOmissionCorrected":false}"#
        let huge = try JSONDecoder().decode(LatencySummary.self, from: Data(json.utf8))
        let exported = try render(.influx, report(figures: [], latencies: [huge]))
        XCTAssertTrue(exported.text.contains("count=1i,"), exported.text)
        XCTAssertFalse(exported.text.contains("p50_ns"), exported.text)
        XCTAssertTrue(exported.notes.contains("left out pull.huge p50: 1.8446744073709552e+19 ns, which line protocol cannot write"), "\(exported.notes)")
    }

    func testAMinimumTheRecordedHistogramCannotGiveIsLeftOut() throws {
        // An older report: the summary without its recorded buckets.
        let json = #"{"name":"old","definition":"d","count":5,"p50":100,"max":200,"mean":120,"coordinatedOmissionCorrected":false}"#
        let old = try JSONDecoder().decode(LatencySummary.self, from: Data(json.utf8))
        let exported = try render(.csv, report(figures: [], latencies: [old]))
        XCTAssertFalse(exported.text.contains(",min,"), exported.text)
        XCTAssertEqual(exported.notes, ["left out pull.old min: the report's recorded histogram holds 0 of its 5 samples"])
        XCTAssertFalse(try render(.prometheus, report(figures: [], latencies: [old])).text.contains("latency_min_seconds{"))
        XCTAssertEqual(try render(.jsonBiggerIsBetter, report(figures: [rate], latencies: [old])).notes, [],
                       "a file without latencies says nothing of their minima")
    }

    func testInfluxPointsHaveNoTimestampWhenTheStartDoesNotReadAsADate() throws {
        var undated = report(figures: [ratio])
        undated.startedAt = "yesterday"
        let influx = try render(.influx, undated)
        XCTAssertTrue(influx.text.hasSuffix(#"git_revision="abc123""# + "\n"), influx.text)
        XCTAssertEqual(influx.notes, ["left out the timestamps: the report's start 'yesterday' is not an ISO 8601 time, so the server stamps the points"])
        let prometheus = try render(.prometheus, undated)
        XCTAssertFalse(prometheus.text.contains("segments_bench_report_start_time_seconds "), prometheus.text)
        XCTAssertEqual(prometheus.notes, ["left out segments_bench_report_start_time_seconds: the report's start 'yesterday' is not an ISO 8601 time"])
    }

    func testAStartWithFractionsOfASecondIsATime() throws {
        var fractional = report(figures: [ratio])
        fractional.startedAt = "2026-11-29T12:00:00.250Z"
        XCTAssertTrue(try render(.influx, fractional).text.hasSuffix(" 1795953600250000000\n"))
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
            #"segments_bench_report_latency_min_seconds{scenario="pull",latency="cache-hit"} \#(Double(latency.histogram.min) / 1e9)"#,
            #"segments_bench_report_info{git_revision="abc123",tool_version="1.0",host="ci",cpu_model="EPYC"} 1.0"#,
            "segments_bench_report_start_time_seconds 1795953600.0",
        ]
        for line in expected { XCTAssertTrue(lines.contains(line), "missing: \(line)\n\(text)") }
        XCTAssertFalse(text.contains(#"quantile="0.999""#), "100 samples do not hold a p99.9")
        XCTAssertFalse(text.contains(#"latency="cache-hit",quantile="1"#), "the max is not a quantile")
    }

    func testPrometheusWritesEachFamilyOnceWithItsHelpAndTypeBeforeItsSamples() throws {
        let text = try render(.prometheus, report(figures: [ratio, rate], latencies: [hundredSamples(), hundredSamples("miss")])).text
        var families: [String] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                families.append(String(line.split(separator: " ")[2]))
                continue
            }
            guard !line.hasPrefix("#") else { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            XCTAssertTrue(name.hasPrefix(families.last ?? "-"), "\(name) outside its family: \(families)")
        }
        XCTAssertEqual(families, [
            "segments_bench_report_figure", "segments_bench_report_latency_seconds", "segments_bench_report_latency_min_seconds",
            "segments_bench_report_latency_max_seconds",
            "segments_bench_report_info", "segments_bench_report_start_time_seconds",
        ])
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

    private func entries(_ format: ExportFormat, _ report: BenchReport) throws -> (entries: [Entry], notes: [String]) {
        let exported = try render(format, report)
        return (try JSONDecoder().decode([Entry].self, from: Data(exported.text.utf8)), exported.notes)
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
        XCTAssertEqual(exported.notes, [
            "left out pull.missesPerSecond: its value is nan, which JSON cannot write",
            "left out 2 figures that say neither lower nor higher is better (pull.switches and 1 more): the csv, influx and prometheus formats hold them",
        ])
        exported = try entries(.jsonSmallerIsBetter, report(figures: [ratio, rate, count, lost, expectedOne]))
        XCTAssertEqual(exported.entries.map(\.name), ["pull.requestsPerMiss", "pull.lostEvents"],
                       "a count that must be zero is better lower; one that must be 1, and a count that says nothing, go nowhere")
        XCTAssertEqual(exported.notes, [
            "left out 2 figures that say neither lower nor higher is better (pull.switches and 1 more): the csv, influx and prometheus formats hold them",
        ])
    }

    func testAFiguresStatedDirectionOrGateDecidesItsFile() throws {
        let share = Figure(name: "pull.handedOffShare", value: 0.9, unit: "ratio", direction: .higherIsBetter, summary: "s")
        let hits = Figure(name: "pull.hitRatio", value: 0.8, unit: "ratio", gate: .higherIsBetter(relative: 0.1, absolute: 0), summary: "h")
        let cost = Figure(name: "pull.toFloor", value: 1.2, unit: "ratio", direction: .lowerIsBetter, summary: "c")
        XCTAssertEqual(try entries(.jsonBiggerIsBetter, report(figures: [share, hits, cost])).entries.map(\.name), ["pull.handedOffShare", "pull.hitRatio"])
        XCTAssertEqual(try entries(.jsonSmallerIsBetter, report(figures: [share, hits, cost])).entries.map(\.name), ["pull.toFloor"])
    }

    func testTwoEntriesUnderOneNameAreOneChartSoTheSecondIsLeftOut() throws {
        var result = report(figures: [ratio]).scenarios[0]
        result.scenario = "qualified"
        var twice = report(figures: [ratio])
        twice.scenarios.append(result)
        let exported = try entries(.jsonSmallerIsBetter, twice)
        XCTAssertEqual(exported.entries.map(\.name), ["pull.requestsPerMiss"])
        XCTAssertEqual(exported.notes, ["left out a second entry named pull.requestsPerMiss"])
    }

    func testAFileThatWouldHoldNothingIsRefused() {
        XCTAssertThrowsError(try render(.jsonBiggerIsBetter, report(figures: [ratio, count]))) { error in
            XCTAssertEqual(error as? ExportError, .nothingToWrite("the report holds no value better higher"))
        }
        for format in ExportFormat.allCases {
            XCTAssertThrowsError(try render(format, report(figures: []))) { error in
                XCTAssertEqual(error as? ExportError, .nothingToWrite("the report holds no figure and no latency"), "\(format)")
            }
        }
    }

    // MARK: every format

    func testASecondFigureOrLatencyUnderATakenNameIsLeftOutInEveryFormat() throws {
        var second = ratio
        second.value = 12_345.678
        let twice = report(figures: [ratio, second, rate], latencies: [hundredSamples("cache hit"), hundredSamples("cache-hit")])
        for format in ExportFormat.allCases {
            let exported = try render(format, twice)
            XCTAssertEqual(Array(exported.notes.prefix(2)), ["left out a second figure named pull.requestsPerMiss in pull",
                                                             "left out a second latency named cache-hit (cache-hit) in pull"], "\(format)")
            XCTAssertFalse(exported.text.contains("12345.678"), "\(format) wrote the second figure:\n\(exported.text)")
        }
    }
}
