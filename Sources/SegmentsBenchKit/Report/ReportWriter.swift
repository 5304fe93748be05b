import Foundation

/// Writes a ``BenchReport`` into a directory (typically `Reports/latest/`) as files for people and
/// for tools:
///
/// - `report.json`: the whole report; `<scenario>.json`: one ``ScenarioReport`` per scenario.
/// - `summary.md`: machine, revision and command, then per scenario its figures with their gate
///   rules, its latency percentiles, charts and notes.
/// - `<scenario>.<latency>.hgrm`: each latency's HdrHistogram percentile distribution, values in µs.
/// - `<scenario>.percentiles.svg`: the scenario's latencies by percentile; `<chart>.svg`: one chart
///   per distinct ``ChartSeries/chart``; `allocations.svg`: every figure counted in `allocs…`.
/// - `index.html`: a self-contained page with all of the above.
///
/// ```swift
/// let files = try ReportWriter(directory: URL(fileURLWithPath: "Reports/latest")).write(report)
/// ```
///
/// Every file is rendered before the first is written, so a report that cannot be encoded leaves
/// the previous one untouched. After writing, files of the kinds the writer produces (`*.json`,
/// `*.md`, `*.hgrm`, `*.svg`, `index.html`) that this report did not write are removed, so the
/// directory never mixes two runs (a scenario dropped since the last run leaves no stale files).
/// Anything else in the directory, and its subdirectories, stay. Output is deterministic: the same
/// report gives the same bytes.
public struct ReportWriter: Sendable {
    /// Where the files go; created if missing.
    public let directory: URL

    /// A writer into `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// Writes every file of `report`, removes files of earlier reports, and returns the written
    /// files in a stable order (`report.json` first, `summary.md` and `index.html` last).
    ///
    /// - Throws: encoding errors (before anything is written) and file system errors.
    @discardableResult
    public func write(_ report: BenchReport) throws -> [URL] {
        let files = try render(report)
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        var written: [URL] = []
        for (name, contents) in files {
            let url = directory.appendingPathComponent(name)
            try contents.write(to: url, options: .atomic)
            written.append(url)
        }
        try removeStaleFiles(keeping: Set(files.map(\.name)))
        return written
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
            if let name = names.percentilesChart, let svg = charts.percentiles(of: scenario) {
                files.append((name, Data(svg.utf8)))
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

    /// Removes the writer's kinds of files that are not in `keeping`. Only regular, visible files
    /// directly in the directory: the writer never created anything else.
    private func removeStaleFiles(keeping: Set<String>) throws {
        let fileManager = FileManager.default
        let contents = try fileManager.contentsOfDirectory(
            at: directory, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        for url in contents {
            let name = url.lastPathComponent
            guard !keeping.contains(name), Self.isWriterOutput(name),
                (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            else { continue }
            try fileManager.removeItem(at: url)
        }
    }

    /// Whether a file called `name` is of a kind the writer produces.
    static func isWriterOutput(_ name: String) -> Bool {
        if name == ReportLayout.index { return true }
        let fileExtension = (name as NSString).pathExtension
        return ["json", "md", "hgrm", "svg"].contains(fileExtension)
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
