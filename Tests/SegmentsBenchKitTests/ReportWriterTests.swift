import Foundation
import XCTest

@testable import SegmentsBenchKit

/// A small report built in code: two scenarios, figures with every kind of gate rule, latencies
/// with a few thousand values (one corrected for coordinated omission), line and point series, and
/// text that needs escaping.
enum SyntheticReport {
    static let machine = MachineInfo(
        hostname: "bench-host", cores: 2, memoryBytes: 8 << 30, cpuModel: "Test CPU @ 2.0GHz", kernel: "6.1.0-test",
        swiftVersion: "6.3+", loadAverage: "0.50 0.40 0.30", jemalloc: "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c")

    static var trackingStorm: ScenarioResult {
        ScenarioResult(
            scenario: "tracking-storm",
            summary: "Simulates an app tracking events as fast as it can; measures the `trackEvent` cost and allocations.",
            configuration: ["events": "5000", "debounce": "50ms"],
            figures: [
                Figure(name: "tracking-storm.allocsPerEvent", value: 3.25, unit: "allocs/op", gate: .allocations,
                       summary: "malloc calls per trackEvent"),
                Figure(name: "tracking-storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: "events not delivered"),
                Figure(name: "tracking-storm.eventsPerSecond", value: 1_234_567.8, unit: "ops/s",
                       gate: .higherIsBetter(relative: 0.1, absolute: 0), summary: "throughput"),
                Figure(name: "tracking-storm.trackEventP50Ns", value: 142, unit: "ns", summary: "trackEvent p50"),
                Figure(name: "tracking-storm.trackEventP50ToFetchAdd", value: 7.5, unit: "ratio", gate: .latencyRatio,
                       summary: "p50 over the fetch-add floor"),
            ],
            latencies: [trackEventLatency, fetchLatency],
            series: [
                ChartSeries(chart: "fanout-latency", label: "p50", xLabel: "callbacks", yLabel: "latency (ns)",
                            points: [1, 10, 100, 1_000, 10_000].map { .init(x: $0, y: 800 + $0 * 3) }),
                ChartSeries(chart: "fanout-latency", label: "p99", xLabel: "callbacks", yLabel: "latency (ns)",
                            points: [1, 10, 100, 1_000, 10_000].map { .init(x: $0, y: 2_000 + $0 * 9) }),
            ],
            allocationsMeasured: true,
            notes: ["Counts are exact: jemalloc runs with `tcache:false`.", "Escaping check: a <b>&</b> c"],
            wallSeconds: 12.5)
    }

    static var customerSwitch: ScenarioResult {
        ScenarioResult(
            scenario: "customer-switch",
            summary: "Switches customers while changes stream in; measures stale deliveries.",
            configuration: ["switches": "200"],
            figures: [
                Figure(name: "customer-switch.staleDeliveries", value: 0, unit: "count", gate: .zero, summary: "stale deliveries"),
                Figure(name: "customer-switch.allocsPerSwitch", value: 41, unit: "allocs/switch", gate: .allocations,
                       summary: "malloc calls per switch"),
            ],
            latencies: [switchLatency],
            series: [
                ChartSeries(chart: "peers", label: "RealtimeSegments", xLabel: "listeners", yLabel: "latency (ns)",
                            points: [.init(x: 100, y: 1_500)]),
                ChartSeries(chart: "peers", label: "polling SDK", xLabel: "listeners", yLabel: "latency (ns)",
                            points: [.init(x: 100, y: 250_000_000)]),
                ChartSeries(chart: "peers", label: "naive <&> SDK", xLabel: "listeners", yLabel: "latency (ns)",
                            points: [.init(x: 100, y: 4_000_000)]),
            ],
            allocationsMeasured: true,
            wallSeconds: 3)
    }

    static func report(_ scenarios: [ScenarioResult] = [trackingStorm, customerSwitch]) -> BenchReport {
        BenchReport(
            machine: machine, gitRevision: "0123456789abcdef-dirty", startedAt: Date(timeIntervalSince1970: 1_750_000_000),
            command: "segments-bench run --scenario all", scenarios: scenarios)
    }

    /// 5,000 values around 150 ns with a tail to ~50 µs, from a fixed generator.
    static var trackEventLatency: LatencySummary {
        var recorder = LatencyRecorder()
        var generator = Generator(seed: 1)
        for index in 0..<5_000 {
            let base = 100 + generator.next() % 100
            recorder.record(index % 500 == 0 ? base * 300 : index % 50 == 0 ? base * 10 : base)
        }
        return recorder.summary("trackEvent call", definition: "time spent in `trackEvent`, per call")
    }

    static var fetchLatency: LatencySummary {
        var recorder = LatencyRecorder()
        var generator = Generator(seed: 2)
        for _ in 0..<3_000 { recorder.recordCorrected(200_000 + generator.next() % 300_000, expectedInterval: 1_000_000) }
        recorder.recordCorrected(9_000_000, expectedInterval: 1_000_000)
        return recorder.summary("fetch round trip", definition: "transport fetch, start to return", corrected: true)
    }

    static var switchLatency: LatencySummary {
        var recorder = LatencyRecorder()
        var generator = Generator(seed: 3)
        for _ in 0..<2_000 { recorder.record(1_000_000 + generator.next() % 4_000_000) }
        return recorder.summary("server change to callback", definition: "change stamped on the server to listener callback")
    }

    /// A linear congruential generator, so the histograms are the same in every run.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
    }
}

final class ReportWriterTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ReportWriterTests-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func read(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    private func filesInDirectory() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    static let expectedFiles: Set<String> = [
        "report.json", "summary.md", "index.html", "allocations.svg",
        "tracking-storm.json", "tracking-storm.percentiles.svg",
        "tracking-storm.trackevent-call.hgrm", "tracking-storm.fetch-round-trip.hgrm",
        "customer-switch.json", "customer-switch.percentiles.svg", "customer-switch.server-change-to-callback.hgrm",
        "fanout-latency.svg", "peers.svg",
    ]

    func testWritesEveryExpectedFileAndReturnsThem() throws {
        let written = try ReportWriter(directory: directory).write(SyntheticReport.report())
        XCTAssertEqual(try filesInDirectory(), Self.expectedFiles.union(["report-files.txt"]))
        XCTAssertEqual(Set(written.map(\.lastPathComponent)), Self.expectedFiles)
        XCTAssertEqual(written.first?.lastPathComponent, "report.json")
        XCTAssertEqual(written.last?.lastPathComponent, "index.html")
    }

    func testReportJSONDecodesToTheSameFigureValues() throws {
        let report = SyntheticReport.report()
        try ReportWriter(directory: directory).write(report)
        let data = try Data(contentsOf: directory.appendingPathComponent("report.json"))
        let decoded = try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: data)
        XCTAssertEqual(decoded.figures, report.figures)
        XCTAssertEqual(decoded.scenarios.map(\.scenario), ["tracking-storm", "customer-switch"])
        XCTAssertEqual(decoded.scenarios[0].latencies[0].histogram, report.scenarios[0].latencies[0].histogram)
        XCTAssertEqual(decoded.gitRevision, report.gitRevision)
    }

    func testReportJSONHasSortedKeysAndIsPrettyPrinted() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let text = try read("report.json")
        XCTAssertTrue(text.hasPrefix("{\n  \"command\" : "), String(text.prefix(40)))
    }

    func testScenarioJSONCarriesTheRunContextAndItsResult() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let data = try Data(contentsOf: directory.appendingPathComponent("customer-switch.json"))
        let decoded = try ReportWriter.makeJSONDecoder().decode(ScenarioReport.self, from: data)
        XCTAssertEqual(decoded.machine, SyntheticReport.machine)
        XCTAssertEqual(decoded.gitRevision, "0123456789abcdef-dirty")
        XCTAssertEqual(decoded.command, "segments-bench run --scenario all")
        XCTAssertEqual(decoded.startedAt, SyntheticReport.report().startedAt)
        XCTAssertEqual(decoded.result.scenario, "customer-switch")
        XCTAssertEqual(decoded.result.figures, SyntheticReport.customerSwitch.figures)
    }

    func testNonFiniteFigureIsWrittenAndReadBack() throws {
        var scenario = SyntheticReport.customerSwitch
        scenario.figures.append(Figure(name: "customer-switch.ratio", value: .nan, unit: "ratio", summary: "not computed"))
        try ReportWriter(directory: directory).write(SyntheticReport.report([scenario]))
        let data = try Data(contentsOf: directory.appendingPathComponent("report.json"))
        let decoded = try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: data)
        XCTAssertTrue(decoded.figures.last!.value.isNaN)
        XCTAssertTrue(try read("summary.md").contains("| `customer-switch.ratio` | n/a | reported |"))
    }

    func testSummaryShowsMachineRevisionAndCommand() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let summary = try read("summary.md")
        for expected in [
            "2 cores", "Test CPU @ 2.0GHz", "8.00 GiB", "6.1.0-test", "0.50 0.40 0.30", "5.3.0-0-g54eaed1",
            "`0123456789abcdef-dirty`", "`segments-bench run --scenario all`", SyntheticReport.report().startedAt,
        ] {
            XCTAssertTrue(summary.contains(expected), "missing \(expected)")
        }
    }

    func testSummaryListsEveryFigureWithItsValueAndGateRuleInWords() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let summary = try read("summary.md")
        for row in [
            "| `tracking-storm.allocsPerEvent` | 3.25 allocs/op | ≤ baseline +5% +0.5 | malloc calls per trackEvent |",
            "| `tracking-storm.lostEvents` | 0 | must be 0 | events not delivered |",
            "| `tracking-storm.eventsPerSecond` | 1,234,568 ops/s | ≥ baseline -10% | throughput |",
            "| `tracking-storm.trackEventP50Ns` | 142 ns | reported | trackEvent p50 |",
            "| `tracking-storm.trackEventP50ToFetchAdd` | 7.5× | ≤ baseline +200% +1 | p50 over the fetch-add floor |",
            "| `customer-switch.allocsPerSwitch` | 41 allocs/switch | ≤ baseline +5% +0.5 | malloc calls per switch |",
        ] {
            XCTAssertTrue(summary.contains(row), "missing row \(row)")
        }
    }

    func testSummaryHasAPercentileRowPerLatencyAndMarksCorrectedOnes() throws {
        let report = SyntheticReport.report()
        try ReportWriter(directory: directory).write(report)
        let summary = try read("summary.md")
        XCTAssertTrue(summary.contains("| Latency | Count | p50 | p90 | p99 | p99.9 | p99.99 | max |"))
        for latency in report.scenarios.flatMap(\.latencies) {
            let cells = latency.percentiles.map { ReportFormat.percentile($0.value) }.joined(separator: " | ")
            let name = latency.name + (latency.coordinatedOmissionCorrected ? " †" : "")
            XCTAssertTrue(summary.contains("| \(name) | \(ReportFormat.grouped(latency.count)) | \(cells) |"), "missing row for \(name)")
        }
        XCTAssertTrue(summary.contains("† Corrected for coordinated omission"))
    }

    func testSummaryLinksChartsHistogramsAndData() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let summary = try read("summary.md")
        for file in Self.expectedFiles.subtracting(["summary.md"]) {
            XCTAssertTrue(summary.contains("](\(file))"), "no link to \(file)")
        }
        XCTAssertTrue(summary.contains("Simulates an app tracking events"))
        XCTAssertTrue(summary.contains("- Counts are exact: jemalloc runs with `tcache:false`."))
    }

    func testHistogramFilesAreHdrHistogramDistributionsInMicroseconds() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let text = try read("customer-switch.server-change-to-callback.hgrm")
        XCTAssertTrue(text.hasPrefix("       Value     Percentile TotalCount 1/(1-Percentile)"), String(text.prefix(60)))
        XCTAssertTrue(text.contains("Total count    =         2000]"))
        // Values were recorded between 1 and 5 ms, so the µs column reads between 1,000 and 5,000.
        let firstValue = try XCTUnwrap(text.split(separator: "\n").dropFirst().first.flatMap { Double($0.split(separator: " ")[0]) })
        XCTAssertGreaterThanOrEqual(firstValue, 1_000)
        XCTAssertLessThan(firstValue, 5_000)
    }

    func testIndexPageReferencesEverySVGAndDataFile() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let html = try read("index.html")
        let svgs = Self.expectedFiles.filter { $0.hasSuffix(".svg") }
        XCTAssertEqual(svgs.count, 5)
        for svg in svgs {
            XCTAssertTrue(html.contains("<img class=\"chart\" src=\"\(svg)\""), "no image \(svg)")
        }
        for file in Self.expectedFiles.filter({ $0.hasSuffix(".json") || $0.hasSuffix(".hgrm") }) {
            XCTAssertTrue(html.contains("<a href=\"\(file)\">"), "no link to \(file)")
        }
        XCTAssertTrue(html.contains("<td><code>tracking-storm.allocsPerEvent</code></td><td class=\"num\">3.25 allocs/op</td>"))
        XCTAssertTrue(html.contains("≤ baseline +5% +0.5"))
    }

    func testIndexPageIsSelfContained() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let html = try read("index.html")
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains("<style>"))
        for external in ["http://", "https://", "<script", "<link"] {
            XCTAssertFalse(html.contains(external), "page refers to \(external)")
        }
    }

    func testTextIsEscapedInTheHTMLPage() throws {
        try ReportWriter(directory: directory).write(SyntheticReport.report())
        let html = try read("index.html")
        XCTAssertTrue(html.contains("Escaping check: a &lt;b&gt;&amp;&lt;/b&gt; c"))
        XCTAssertFalse(html.contains("<b>&</b>"))
        XCTAssertTrue(html.contains("jemalloc runs with <code>tcache:false</code>."))
        let summary = try read("summary.md")
        XCTAssertTrue(summary.contains("Escaping check: a &lt;b&gt;&amp;&lt;/b&gt; c"))
    }

    func testSecondWriteRemovesFilesOfADroppedScenarioAndKeepsOtherFiles() throws {
        let writer = ReportWriter(directory: directory)
        try writer.write(SyntheticReport.report())
        let foreign = ["notes.txt", "baseline.csv"]
        for name in foreign { try Data("keep".utf8).write(to: directory.appendingPathComponent(name)) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("archive.json"), withIntermediateDirectories: true)

        try writer.write(SyntheticReport.report([SyntheticReport.customerSwitch]))
        let expected: Set<String> = [
            "report.json", "summary.md", "index.html", "allocations.svg", "customer-switch.json",
            "customer-switch.percentiles.svg", "customer-switch.server-change-to-callback.hgrm", "peers.svg",
            "report-files.txt", "notes.txt", "baseline.csv", "archive.json",
        ]
        XCTAssertEqual(try filesInDirectory(), expected)
    }

    func testTheManifestListsTheReportsFilesInOrder() throws {
        let written = try ReportWriter(directory: directory).write(SyntheticReport.report())
        XCTAssertEqual(try read("report-files.txt"), written.map { $0.lastPathComponent + "\n" }.joined())
    }

    func testFilesOfTheKindsTheWriterProducesThatNoReportWroteSurvive() throws {
        // `--out .` in a checkout, `--out Reports` next to the baseline: same kinds, not the writer's.
        let foreign = ["README.md", "baseline.json", "logo.svg", "old.hgrm", "CHANGELOG.md"]
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in foreign { try Data("keep \(name)".utf8).write(to: directory.appendingPathComponent(name)) }

        let writer = ReportWriter(directory: directory)
        try writer.write(SyntheticReport.report())
        try writer.write(SyntheticReport.report([SyntheticReport.customerSwitch]))

        for name in foreign {
            XCTAssertEqual(try read(name), "keep \(name)", "\(name) was removed or changed")
        }
        XCTAssertFalse(try filesInDirectory().contains("tracking-storm.json"), "the earlier report's stale file stays")
    }

    func testAStaleFileOfAnEarlierReportIsRemoved() throws {
        let writer = ReportWriter(directory: directory)
        try writer.write(SyntheticReport.report())
        XCTAssertTrue(try filesInDirectory().contains("tracking-storm.trackevent-call.hgrm"))

        try writer.write(SyntheticReport.report([SyntheticReport.customerSwitch]))
        let files = try filesInDirectory()
        for stale in ["tracking-storm.json", "tracking-storm.percentiles.svg", "tracking-storm.trackevent-call.hgrm",
                      "tracking-storm.fetch-round-trip.hgrm", "fanout-latency.svg"] {
            XCTAssertFalse(files.contains(stale), "\(stale) of the earlier report was left behind")
        }
        XCTAssertEqual(try read("report-files.txt").split(separator: "\n").count, 8)
    }

    func testManifestEntriesThatAreNotPlainFileNamesAreNeverRemoved() throws {
        let fileManager = FileManager.default
        let sub = directory.appendingPathComponent("sub")
        try fileManager.createDirectory(at: sub, withIntermediateDirectories: true)
        let outside = directory.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).json")
        defer { try? fileManager.removeItem(at: outside) }
        try Data("keep".utf8).write(to: outside)
        try Data("keep".utf8).write(to: sub.appendingPathComponent("inner.json"))
        try fileManager.createDirectory(at: directory.appendingPathComponent("folder.json"), withIntermediateDirectories: true)
        let manifest = ["../\(outside.lastPathComponent)", "sub/inner.json", "sub", "folder.json", "..", ".", ""]
        try Data(manifest.joined(separator: "\n").utf8).write(to: directory.appendingPathComponent("report-files.txt"))

        try ReportWriter(directory: directory).write(SyntheticReport.report())

        XCTAssertTrue(fileManager.fileExists(atPath: outside.path))
        XCTAssertTrue(fileManager.fileExists(atPath: sub.appendingPathComponent("inner.json").path))
        XCTAssertTrue(fileManager.fileExists(atPath: directory.appendingPathComponent("folder.json").path))
    }

    func testWritingTheSameReportTwiceGivesTheSameBytes() throws {
        let report = SyntheticReport.report()
        let first = try ReportWriter(directory: directory).render(report)
        let second = try ReportWriter(directory: directory).render(report)
        XCTAssertEqual(first.map(\.name), second.map(\.name))
        XCTAssertEqual(first.map(\.contents), second.map(\.contents))
    }

    func testCollidingNamesGetDistinctFiles() throws {
        var report = SyntheticReport.customerSwitch
        report.scenario = "report"
        report.series = [ChartSeries(chart: "allocations", label: "a", xLabel: "x", yLabel: "y", points: [.init(x: 1, y: 2), .init(x: 2, y: 3)])]
        var twin = SyntheticReport.customerSwitch
        twin.scenario = "Report!"
        twin.series = []
        let written = try ReportWriter(directory: directory).write(SyntheticReport.report([report, twin]))
        let names = written.map(\.lastPathComponent)
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertTrue(names.contains("report-2.json"))
        XCTAssertTrue(names.contains("report-3.json"))
        XCTAssertTrue(names.contains("allocations-2.svg"))
        let decoded = try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: Data(contentsOf: directory.appendingPathComponent("report.json")))
        XCTAssertEqual(decoded.scenarios.count, 2)
    }

    func testCreatesMissingParentDirectories() throws {
        let nested = directory.appendingPathComponent("Reports/latest")
        try ReportWriter(directory: nested).write(SyntheticReport.report())
        XCTAssertTrue(FileManager.default.fileExists(atPath: nested.appendingPathComponent("index.html").path))
    }

    /// A report with one scenario holding only `latency`.
    private func report(with latency: LatencySummary) -> BenchReport {
        BenchReport(
            machine: SyntheticReport.machine, gitRevision: "test", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
            command: "test",
            scenarios: [ScenarioResult(scenario: "soak", summary: "s", configuration: [:], figures: [], latencies: [latency],
                                       allocationsMeasured: true)])
    }

    /// A latency with no samples has no p50, max or mean: the summary and the page show a dash,
    /// never a measured-looking 0 ns.
    func testAnEmptyLatencyShowsNoValues() throws {
        let empty = LatencyRecorder().summary("fetch round trip", definition: "transport fetch call, start to return")
        try ReportWriter(directory: directory).write(report(with: empty))
        let summary = try read("summary.md")
        let row = try XCTUnwrap(summary.split(separator: "\n").first { $0.hasPrefix("| fetch round trip") })
        XCTAssertEqual(String(row), "| fetch round trip | 0 | — | — | — | — | — | — |")
        XCTAssertTrue(summary.contains("(mean —;"), "the mean of no samples")
        XCTAssertFalse(try read("index.html").contains(">0 ns<"))
    }

    /// Phases over 300 s keep one histogram per 2 s or more: the summary and the page say how long
    /// an interval is, not "per second".
    func testIntervalLogsOfLongPhasesSayTheirIntervalLength() throws {
        var recorder = LatencyRecorder()
        recorder.record(1_000)
        XCTAssertEqual(IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: 600), 2_000_000_000)
        let intervals = LatencyIntervals(startTime: 1_700_000_000, intervalSeconds: 2, histograms: [recorder.histogram])
        let latency = LatencySummary(name: "trackEvent call", definition: "d", histogram: recorder.histogram, intervals: [intervals])
        try ReportWriter(directory: directory).write(report(with: latency))
        let line = try XCTUnwrap(try read("summary.md").split(separator: "\n").first { $0.contains("**trackEvent call**") })
        XCTAssertTrue(line.contains("; per 2 s ["), String(line))
        XCTAssertFalse(try read("index.html").contains("one histogram per second"))
    }
}
