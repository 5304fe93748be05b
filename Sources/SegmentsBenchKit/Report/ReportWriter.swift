import Foundation

/// Writes a ``BenchReport`` into a directory (typically `Reports/latest/`) as files for people and
/// for tools:
///
/// - `report.json`: the whole report; `<scenario>.json`: one ``ScenarioReport`` per scenario.
/// - `summary.md`: machine, revision and command, then per scenario its figures with their gate
///   rules, its latency percentiles, charts and notes.
/// - `<scenario>.<latency>.hgrm`: each latency's HdrHistogram percentile distribution, values in µs.
/// - `<scenario>.<latency>.hlog`: each latency recorded by interval as an HdrHistogram interval log
///   (``IntervalLogWriter``), with `<scenario>.<latency>.throughput.svg` and `.over-time.svg`, its
///   operations per second and its p50 and p99 per interval.
/// - `<scenario>.percentiles.svg`: the scenario's latencies by percentile; `<chart>.svg`: one chart
///   per distinct ``ChartSeries/chart``; `allocations.svg`: every figure counted in `allocs…`.
/// - `index.html`: a self-contained page with all of the above.
/// - `report-files.txt`: the manifest, the names of the files above, one per line.
///
/// ```swift
/// let files = try ReportWriter(directory: URL(fileURLWithPath: "Reports/latest")).write(report)
/// ```
///
/// Every file is rendered before the first is written, so a report that cannot be encoded leaves
/// the previous one untouched. After writing, the files that the previous manifest lists and this
/// report did not write are removed, so the directory never mixes two runs (a scenario dropped
/// since the last run leaves no stale files). Nothing the manifest does not list is ever removed:
/// with `--out .` the checkout's `README.md` stays, with `--out Reports` so does
/// `Reports/baseline.json`, as do subdirectories and files that a report written before the
/// manifest existed left behind. Output is deterministic: the same report gives the same bytes.
public struct ReportWriter: Sendable {
    /// Where the files go; created if missing.
    public let directory: URL

    /// A writer into `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The manifest's name: the files the last report wrote into the directory, one name a line.
    static let manifestName = "report-files.txt"

    /// Writes every file of `report`, removes the files of the previous report that this one did
    /// not write, writes the manifest, and returns the report's files (the manifest aside) in a
    /// stable order (`report.json` first, `summary.md` and `index.html` last).
    ///
    /// - Throws: encoding errors (before anything is written) and file system errors.
    @discardableResult
    public func write(_ report: BenchReport) throws -> [URL] {
        let files = try render(report)
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        let previous = previousReportFiles()
        let names = files.map(\.name)
        // The manifest names every file this writer may leave behind at each step: first the old
        // ones and the new ones (so a run that stops half-way leaves nothing unlisted), after the
        // stale ones are gone only the new ones.
        try writeManifest(previous.union(names).sorted())
        var written: [URL] = []
        for (name, contents) in files {
            let url = directory.appendingPathComponent(name)
            try contents.write(to: url, options: .atomic)
            written.append(url)
        }
        try removeFiles(previous.subtracting(names))
        try writeManifest(names)
        return written
    }

    private func writeManifest(_ names: [String]) throws {
        let manifest = names.map { $0 + "\n" }.joined()
        try Data(manifest.utf8).write(to: directory.appendingPathComponent(Self.manifestName), options: .atomic)
    }

    /// The report's files as (name, contents), in the order ``write(_:)`` returns them.
    func render(_ report: BenchReport) throws -> [(name: String, contents: Data)] {
        let layout = ReportLayout(report)
        let encoder = Self.makeJSONEncoder()
        let charts = ReportCharts()
        var files: [(name: String, contents: Data)] = [(ReportLayout.reportJSON, try encoder.encode(report))]

        for (scenario, names) in zip(report.scenarios, layout.scenarios) {
            files.append((names.json, try encoder.encode(ScenarioReport(report: report, result: scenario))))
            for (latency, name) in zip(scenario.latencies, names.histograms) {
                var text = ""
                latency.histogram.outputPercentileDistribution(to: &text, outputValueUnitScalingRatio: 1000)
                files.append((name, Data(text.utf8)))
            }
            for (latency, name) in zip(scenario.latencies, names.intervalLogs) {
                guard let name else { continue }
                let writer = IntervalLogWriter(tags: [("scenario", scenario.scenario), ("latency", latency.name)])
                if let text = try writer.render(latency.intervals, defaultHost: report.machine.hostname) {
                    files.append((name, Data(text.utf8)))
                }
            }
            if let name = names.percentilesChart, let svg = charts.percentiles(of: scenario) {
                files.append((name, Data(svg.utf8)))
            }
            for timeline in names.timelines {
                let latency = scenario.latencies[timeline.latency]
                let svgs = charts.timeline(of: latency, scenario: scenario.scenario, defaultHost: report.machine.hostname)
                files.append((timeline.throughput, Data(svgs.throughput.utf8)))
                files.append((timeline.percentiles, Data(svgs.percentiles.utf8)))
            }
        }
        for chart in layout.charts {
            let series = report.scenarios.flatMap { scenario in
                scenario.series.filter { $0.chart == chart.name }.map { (scenario: scenario.scenario, series: $0) }
            }
            files.append((chart.file, Data(charts.seriesChart(named: chart.name, series: series).utf8)))
        }
        if let name = layout.allocationsChart, let svg = charts.allocations(in: report) {
            files.append((name, Data(svg.utf8)))
        }
        files.append((ReportLayout.summary, Data(MarkdownSummary(report: report, layout: layout).render().utf8)))
        files.append((ReportLayout.index, Data(HTMLIndex(report: report, layout: layout).render().utf8)))
        return files
    }

    /// The names the previous manifest lists; none without a readable manifest. A line that is not
    /// a plain file name (empty, `.`, `..`, or with a `/`) is skipped: the writer only ever writes
    /// directly into its directory.
    private func previousReportFiles() -> Set<String> {
        let url = directory.appendingPathComponent(Self.manifestName)
        guard let data = try? Data(contentsOf: url) else { return [] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        return Set(lines.map(String.init).filter { name in
            name != "." && name != ".." && name != Self.manifestName && !name.contains("/") && !name.contains("\0")
        })
    }

    /// Removes the regular files called `names` directly in the directory; a name that is missing
    /// or no longer a regular file (the user replaced it with a directory) is left alone.
    private func removeFiles(_ names: Set<String>) throws {
        let fileManager = FileManager.default
        for name in names.sorted() {
            let url = directory.appendingPathComponent(name)
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            try fileManager.removeItem(at: url)
        }
    }

    /// The encoder of `report.json` and `<scenario>.json`: sorted keys, pretty printed. Non-finite
    /// numbers (a figure that could not be computed) are written as the strings `NaN`, `Infinity`
    /// and `-Infinity` rather than failing the whole report; read with ``makeJSONDecoder()``.
    public static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    /// The decoder matching ``makeJSONEncoder()``, for `report.json` (``BenchReport``) and
    /// `<scenario>.json` (``ScenarioReport``).
    public static func makeJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }
}
